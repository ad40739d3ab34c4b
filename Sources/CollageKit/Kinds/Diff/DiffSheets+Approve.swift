import Glibc

/// `--approve [PATH...]`: once every pair is compared, the current images
/// named (none named: every pair that fails) become the baseline, one file
/// at a time (`BaselineApproval`); nothing else is written.
extension DiffSheets {
    /// Approves what was asked; the run's failure, if any. A name that is
    /// no pair of the run is a usage error before anything is changed.
    func approve(_ names: [PathName]) -> RunFailure? {
        let (pairs, unreadable, report) = compared.withLock { ($0.pairs, $0.unreadable, $0.report) }
        let chosen: [ComparedPair]
        if names.isEmpty {
            chosen = pairs.filter(\.fails)
        } else {
            for name in names where !pairs.contains(where: { Self.named($0, name) })
                && !unreadable.contains(where: { DiffPairing.relative($0.relative) == DiffPairing.relative(name) }) {
                return RunFailure(status: .usage,
                                  message: "--approve '\(name)' is not an image of this run: name a current image as "
                                      + "compared, or its path below BASELINE; nothing was approved")
            }
            chosen = pairs.filter { pair in pair.status != .unchanged && names.contains { Self.named(pair, $0) } }
        }
        let approval = BaselineApproval(root: settings.baseline, alternative: settings.alternative)
        var failures: [OutputError] = []
        for pair in chosen {
            do throws(OutputError) {
                let approved = try approval.approve(pair)
                report?(.approved(approved))
            } catch {
                failures.append(error)
            }
        }
        guard let first = failures.first else {
            compared.withLock { $0.approvedAll = true }
            return nil
        }
        let more = failures.count > 1 ? " (and \(failures.count - 1) more; a rerun approves what is left)" : ""
        return first.runFailure(prefix: "--approve: ").adding(more)
    }

    /// `--approve-from FILE`: exactly the pairs the reviewer approved, each
    /// as `--approve` would, while its current file still has the SHA-256
    /// the reviewer saw. One that changed since (or that is gone, or is
    /// there again) is refused, named on standard error and left as it is;
    /// the others go through, and the run ends 65. A pair the run finds
    /// `unchanged` (approved already) is left alone.
    func approve(_ decisions: ApprovalDecisions) -> RunFailure? {
        let (pairs, report) = compared.withLock { ($0.pairs, $0.report) }
        var byPath: [PathName: ComparedPair] = [:]
        for pair in pairs { byPath[DiffPairing.relative(pair.relative)] = pair }
        let approval = BaselineApproval(root: settings.baseline, alternative: settings.alternative)
        var failures: [OutputError] = []
        var stale: [PathName] = []
        for decision in decisions.decisions {
            guard let pair = byPath[decision.path], pair.status != .unchanged else {
                if byPath[decision.path] == nil, decision.sha256 != nil {  // the reviewer saw a file no longer there
                    stale.append(decision.path)
                    report?(.failed(path: decision.path, error: "--approve-from: no longer an image of this run; "
                                        + "it was not approved"))
                }
                continue
            }
            do throws(OutputError) {
                switch try approval.approve(pair, alternative: decision.alternative || settings.alternative,
                                            seen: .some(decision.sha256)) {
                case .approved(let approved): report?(.approved(approved))
                case .stale(let now):
                    stale.append(decision.path)
                    report?(.failed(path: pair.path, error: "--approve-from: changed since the review (SHA-256 "
                                        + "\(decision.sha256.map { String($0.prefix(12)) } ?? "none") then, "
                                        + "\(now.map { String($0.prefix(12)) } ?? "none") now); left as it is"))
                }
            } catch {
                failures.append(error)
            }
        }
        if let first = failures.first {
            let more = failures.count > 1 ? " (and \(failures.count - 1) more; a rerun approves what is left)" : ""
            return first.runFailure(prefix: "--approve-from: ").adding(more)
        }
        guard stale.isEmpty else {
            let names = stale.map { "'\(ApprovalDecisions.shown($0))'" }.joined(separator: ", ")
            return RunFailure(status: .someInputsFailed,
                              message: "--approve-from: \(stale.count) decision(s) refused, their current file changed "
                                  + "since the review: \(names); the others were approved")
        }
        compared.withLock { $0.approvedAll = true }
        return nil
    }

    /// `--approve-from`: every path the decisions name stays inside
    /// BASELINE and each INPUT folder, symbolic links followed (a file or
    /// folder on the way that is a link out of the tree refuses the whole
    /// file), and the decisions were made for this run's trees.
    func checkDecisions() -> RunFailure? {
        guard let decisions = settings.decisions else { return nil }
        let file = settings.decisionsFile?.description ?? "FILE"
        func refuse(_ words: String) -> RunFailure {
            RunFailure(status: .usage, message: "--approve-from '\(file)': \(words); nothing was approved")
        }
        guard ApprovalDecisions.sameRoot(decisions.baseline, settings.baseline.description),
              decisions.inputs.count == settings.inputs.count,
              zip(decisions.inputs, settings.inputs).allSatisfy({ ApprovalDecisions.sameRoot($0, $1) }) else {
            let theirs = ([decisions.baseline] + decisions.inputs).map { ApprovalDecisions.shown(PathName($0)) }
            return refuse("the decisions are for --diff \(theirs.joined(separator: " ")), "
                              + "not --diff \(settings.baseline) \(settings.inputs.joined(separator: " "))")
        }
        var roots = [settings.baseline]
        for input in configuration.inputs { if case .path(let path) = input { roots.append(path) } }
        for root in roots where root.isDirectory {
            guard let real = TreePath.real(root) else { return refuse("cannot resolve '\(root)'") }
            for decision in decisions.decisions where !TreePath.stays(root.appending(decision.path.bytes), below: real) {
                return refuse("'\(ApprovalDecisions.shown(decision.path))' leaves '\(root)' through a symbolic link")
            }
        }
        return nil
    }

    /// Whether `name` names `pair`: its current image, its baseline or its
    /// path below the roots, as given or made relative.
    static func named(_ pair: ComparedPair, _ name: PathName) -> Bool {
        let given = DiffPairing.relative(name)
        return [pair.path, pair.relative, pair.baseline].contains { DiffPairing.relative($0) == given }
    }
}

/// Where a path really is, symbolic links followed.
enum TreePath {
    /// `path` with every symbolic link resolved (realpath), or nil.
    static func real(_ path: PathName) -> [UInt8]? {
        path.withCString { pointer -> [UInt8]? in
            guard let pointer, let resolved = realpath(pointer, nil) else { return nil }
            defer { free(resolved) }
            return Array(String(cString: resolved).utf8CString.dropLast().map { UInt8(bitPattern: $0) })
        }
    }

    /// Whether `path` (its deepest part that exists, links followed) is
    /// `root` or below it. A link on the way that leads nowhere is not.
    static func stays(_ path: PathName, below root: [UInt8]) -> Bool {
        var bytes = path.bytes
        while true {
            var info = stat()
            if PathName(bytes: bytes).withCString({ $0.map { lstat($0, &info) } ?? -1 }) == 0 {
                guard let real = real(PathName(bytes: bytes)) else { return false }
                return real == root || real.starts(with: root + (root.last == UInt8(ascii: "/") ? [] : [UInt8(ascii: "/")]))
            }
            guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")), slash > 0 else { return true }
            bytes = Array(bytes[..<slash])
        }
    }
}

private extension RunFailure {
    func adding(_ words: String) -> RunFailure {
        RunFailure(status: status, message: message + words)
    }
}
