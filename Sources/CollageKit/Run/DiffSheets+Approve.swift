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

    /// Whether `name` names `pair`: its current image, its baseline or its
    /// path below the roots, as given or made relative.
    static func named(_ pair: ComparedPair, _ name: PathName) -> Bool {
        let given = DiffPairing.relative(name)
        return [pair.path, pair.relative, pair.baseline].contains { DiffPairing.relative($0) == given }
    }
}

private extension RunFailure {
    func adding(_ words: String) -> RunFailure {
        RunFailure(status: status, message: message + words)
    }
}
