import Locking

/// The selection stage of a run: each candidate's header check, its
/// verdict reported (accepted, rejected with a reason, failed), and the
/// accepted images numbered in order. A still's partners (its RAW photo or
/// Live Photo movie) are reported `paired` once the still decides the shot;
/// if the still cannot be read (failed, empty, not an image), the first
/// partner that passes takes its place.
final class Selection: Sendable {
    let probe: Probe
    private let report: @Sendable (PipelineEvent) -> Void
    /// Hears of every file checked, with its stamp and its listed sidecars
    /// (for `--skip-unchanged`).
    private let observe: (@Sendable (PathName, FileStamp?, [PathName]?) -> Void)?
    private let accepted = Locked(0)

    init(probe: Probe, report: @escaping @Sendable (PipelineEvent) -> Void,
         observe: (@Sendable (PathName, FileStamp?, [PathName]?) -> Void)? = nil) {
        self.probe = probe
        self.report = report
        self.observe = observe
    }

    func callAsFunction(_ input: InputFile) -> AcceptedImage? {
        select(input, probe.check(input.path, sidecars: input.sidecars))
    }

    /// An input whose header was read ahead (`ProbeAhead`).
    func callAsFunction(_ checked: CheckedInput) -> AcceptedImage? { select(checked.input, checked.result) }

    private func select(_ input: InputFile, _ result: Result<AcceptedImage, ProbeFailure>) -> AcceptedImage? {
        if let observe {
            if case .success(let image) = result { observe(input.path, image.file.stamp, input.sidecars) }
            else { observe(input.path, input.currentStamp, input.sidecars) }  // the walk's stat
        }
        switch result {
        case .success(var image):
            image.partners = input.partners
            image.sidecars = input.sidecars
            return accept(image, pairedWith: input.partners)
        case .failure(let failure):
            var failures: [(PathName, ProbeFailure)] = [(input.path, failure)]
            if Self.partnerMayStandIn(failure) {
                for (index, partner) in input.partners.enumerated() {
                    switch probe.check(partner) {
                    case .success(let image):
                        report(.notice("\(input.path): \(Self.text(failure)); its pair \(partner) is shown instead"))
                        return accept(image, pairedWith: Array(input.partners[(index + 1)...]))
                    case .failure(let other):
                        failures.append((partner, other))
                    }
                }
            }
            for (path, failure) in failures { reportFailure(path, failure) }
            if failures.count == 1 {  // the still decided the shot: a portrait, too large
                for partner in input.partners { report(.paired(path: partner, with: input.path)) }
            }
            return nil
        }
    }

    private func accept(_ image: AcceptedImage, pairedWith partners: [PathName]) -> AcceptedImage {
        var image = image
        image.ordinal = accepted.withLock { count in
            defer { count += 1 }
            return count
        }
        report(.accepted(path: image.path, header: image.header))
        for note in image.notes { report(.notice("\(image.path): \(note)")) }
        for partner in partners { report(.paired(path: partner, with: image.path)) }
        return image
    }

    private func reportFailure(_ path: PathName, _ failure: ProbeFailure) {
        switch failure {
        case .rejected(let reason, let detail): report(.rejected(path: path, reason: reason, detail: detail))
        case .failed(let error): report(.failed(path: path, error: error))
        }
    }

    /// A still that cannot be read at all lets its partner show the shot;
    /// one left out for what it shows (portrait, too large) does not.
    static func partnerMayStandIn(_ failure: ProbeFailure) -> Bool {
        switch failure {
        case .failed, .rejected(.unsupported, _): return true
        case .rejected: return false
        }
    }

    static func text(_ failure: ProbeFailure) -> String {
        switch failure {
        case .failed(let error): return error
        case .rejected(_, let detail): return detail
        }
    }
}
