/// The error type of the output layer, with the exit status it maps to.
struct OutputError: Error, Sendable, CustomStringConvertible {
    enum Code: Sendable {
        /// The output could not be created: folder missing, not writable,
        /// name too long (exit 73).
        case cannotCreate
        /// Writing failed part-way: disk full, I/O error (exit 74).
        case ioError
        /// The run was interrupted before the file was put in place.
        case cancelled
    }

    let code: Code
    let path: PathName
    let message: String

    var description: String { "\(path): \(message)" }
}

extension OutputError {
    /// The failure that ends a run: 73 for an output that could not be
    /// created, 74 for a write that failed part-way (130 for a write that
    /// was cancelled, which a run reports as its interruption instead).
    var runFailure: RunFailure { runFailure(prefix: "") }

    /// The same, with what was being written said first ("cannot write the page: ").
    func runFailure(prefix: String) -> RunFailure {
        let status: ExitStatus = switch code {
        case .cannotCreate: .cannotCreateOutput
        case .ioError: .ioError
        case .cancelled: .interrupted
        }
        return RunFailure(status: status, message: prefix + description)
    }
}
