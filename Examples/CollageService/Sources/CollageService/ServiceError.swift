import CollageKit
import Foundation
import Hummingbird

/// An error answered as JSON:
///
///     {"error": "cannot read input '/photos/gone.jpg': No such file or directory",
///      "exitStatus": 66, "problems": []}
///
/// `exitStatus` is the run's (the command line's exit status) when the run
/// decided; `problems` are the images it could not use, from its events.
public struct ServiceError: HTTPResponseError, Sendable {
    /// The HTTP status answered.
    public let status: HTTPResponse.Status
    /// The line that says what went wrong (`error` in the JSON).
    public let message: String
    /// The run's status, when a run decided (a bad request is refused before any).
    public let exitStatus: ExitStatus?
    /// The images the run could not use.
    public let problems: [Problem]

    /// One image the run could not use, and why.
    public struct Problem: Codable, Sendable, Equatable {
        /// The image's path, as the run reported it.
        public var path: String
        /// Why: the decoder's error, or the reason it was rejected ("unsupported: ...").
        public var reason: String
    }

    /// An error answered with `status` and `message`; `exitStatus` and
    /// `problems` when a run decided.
    public init(status: HTTPResponse.Status, message: String, exitStatus: ExitStatus? = nil, problems: [Problem] = []) {
        self.status = status
        self.message = message
        self.exitStatus = exitStatus
        self.problems = problems
    }

    /// The answer to a run that wrote nothing: its status says whose fault it was.
    init(outcome: RunOutcome, problems: [Problem]) {
        let status: HTTPResponse.Status = switch outcome.status {
        case .usage: .badRequest
        // A file that is missing, unreadable or not an image: the request named it.
        case .noInput, .someInputsFailed: .unprocessableContent
        // The service is stopping (or the client went away).
        case .interrupted, .terminated: .serviceUnavailable
        case .success, .differs, .cannotCreateOutput, .ioError: .internalServerError
        }
        self.init(status: status, message: outcome.message ?? "the collage was not made", exitStatus: outcome.status,
                  problems: problems)
    }

    private struct Body: Encodable {
        var error: String
        var exitStatus: Int32?
        var problems: [Problem]
    }

    /// The JSON answer: `{"error": ..., "exitStatus": ..., "problems": [...]}`.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = Body(error: message, exitStatus: exitStatus?.rawValue, problems: problems)
        let data = try JSONEncoder().encode(body)
        return Response(status: status, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
