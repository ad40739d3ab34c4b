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
    public let status: HTTPResponse.Status
    public let message: String
    public let exitStatus: ExitStatus?
    public let problems: [Problem]

    /// One image the run could not use, and why.
    public struct Problem: Codable, Sendable, Equatable {
        public var path: String
        public var reason: String
    }

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

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = Body(error: message, exitStatus: exitStatus?.rawValue, problems: problems)
        let data = try JSONEncoder().encode(body)
        return Response(status: status, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
