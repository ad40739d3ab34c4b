
/// The option values a configuration holds as text, parsed: each a usage
/// error's line when it is not one.
extension Configuration {
    /// `--label` and `--title` parsed; an unknown field or a lone brace is a usage error.
    func templates() throws(ConfigurationError) -> (label: Template?, title: Template?) {
        func parse(_ text: String?, _ option: String, _ fields: [String]) throws(ConfigurationError) -> Template? {
            guard let text else { return nil }
            do { return try Template(text, fields: fields) } catch { throw ConfigurationError("\(option) \(error)") }
        }
        return (try parse(label, "--label", Template.labelFields), try parse(title, "--title", Template.titleFields))
    }

    func rawMode() throws(ConfigurationError) -> RawMode {
        let raw = raw ?? RawMode.preview.rawValue
        guard let mode = RawMode(rawValue: raw) else { throw ConfigurationError("--raw takes preview, full or skip; not '\(raw)'") }
        return mode
    }

    func exclusions() throws(ConfigurationError) -> [ExcludePattern] {
        var patterns: [ExcludePattern] = []
        for pattern in exclude {
            do { patterns.append(try ExcludePattern(pattern.bytes)) } catch {
                throw ConfigurationError("--exclude '\(String(decoding: pattern.bytes, as: UTF8.self))': \(error)")
            }
        }
        return patterns
    }

    /// The kinds named by `--flag`, or nil without it.
    func flagKinds() throws(ConfigurationError) -> Set<FlagKind>? {
        guard let flag else { return nil }
        var kinds = Set<FlagKind>()
        for name in flag.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = String(name.filter { $0 != " " })
            guard let kind = FlagKind(rawValue: trimmed) else {
                let known = FlagKind.allCases.map(\.rawValue).joined(separator: ", ")
                throw ConfigurationError("--flag takes a comma-separated list of \(known); not '\(trimmed)'")
            }
            kinds.insert(kind)
        }
        return kinds
    }

    /// The order, or a usage error's line.
    func order() throws(ConfigurationError) -> ImageOrder {
        guard let sort else { return groupBy == nil ? .name : .taken }
        guard let order = ImageOrder(rawValue: sort) else {
            throw ConfigurationError("--sort takes name, taken or mtime; not '\(sort)'")
        }
        return order
    }

    func grouping() throws(ConfigurationError) -> GroupBy? {
        guard let groupBy else { return nil }
        switch GroupBy.parse(groupBy) {
        case .success(let value): return value
        case .failure(let error): throw ConfigurationError(error.description)
        }
    }

    /// `--ignore`'s rectangles.
    func rectangles() throws(ConfigurationError) -> [(x: Int, y: Int, width: Int, height: Int)] {
        var rectangles: [(x: Int, y: Int, width: Int, height: Int)] = []
        for text in ignore {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.filter { $0 != " " }) }
            guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3],
                  x >= 0, y >= 0, w > 0, h > 0 else {
                throw ConfigurationError("--ignore takes X,Y,W,H in pixels (X and Y at least 0, W and H at least 1), not '\(text)'")
            }
            rectangles.append((x, y, w, h))
        }
        return rectangles
    }

    /// `--fail-on LIST`: the statuses named (comma-separated; `unchanged`
    /// is not one that can fail), or nil without it.
    func failingStatuses() throws(ConfigurationError) -> Set<PairStatus>? {
        guard let failOn else { return nil }
        let named = PairStatus.allCases.filter { $0 != .unchanged }.map(\.rawValue)
        var statuses: Set<PairStatus> = []
        for word in failOn.split(separator: ",", omittingEmptySubsequences: false).map({ $0.filter { $0 != " " } }) {
            guard let status = PairStatus(rawValue: String(word)), status != .unchanged else {
                throw ConfigurationError("--fail-on takes statuses among \(named.joined(separator: ",")); not '\(word)'")
            }
            statuses.insert(status)
        }
        return statuses
    }
}
