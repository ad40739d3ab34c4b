import Synchronization

/// The selection stage of a run: each candidate's header check, its
/// verdict reported (accepted, rejected with a reason, failed), and the
/// accepted images numbered in order.
final class Selection: Sendable {
    let probe: Probe
    private let report: @Sendable (PipelineEvent) -> Void
    /// Hears of every file checked, with its stamp (for `--skip-unchanged`).
    private let observe: (@Sendable (PathName, FileStamp?) -> Void)?
    private let accepted = Mutex(0)

    init(probe: Probe, report: @escaping @Sendable (PipelineEvent) -> Void,
         observe: (@Sendable (PathName, FileStamp?) -> Void)? = nil) {
        self.probe = probe
        self.report = report
        self.observe = observe
    }

    func callAsFunction(_ input: InputFile) -> AcceptedImage? {
        let result = probe.check(input.path)
        if let observe {
            if case .success(let image) = result { observe(input.path, FileStamp(image.file.status())) }
            else { observe(input.path, FileStamp.of(input.path)) }
        }
        switch result {
        case .success(var image):
            image.ordinal = accepted.withLock { count in
                defer { count += 1 }
                return count
            }
            report(.accepted(path: image.path, header: image.header))
            return image
        case .failure(.rejected(let reason, let detail)):
            report(.rejected(path: input.path, reason: reason, detail: detail))
        case .failure(.failed(let error)):
            report(.failed(path: input.path, error: error))
        }
        return nil
    }
}
