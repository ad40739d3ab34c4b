import CollageKit
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix

/// How the service is set up.
public struct ServiceSettings: Sendable {
    /// The port to listen on, on 127.0.0.1; 0 picks a free one.
    public var port: Int
    /// Runs at once; a request beyond them waits its turn. Each run gets
    /// its share of the cores and of the decode memory.
    public var concurrentRuns: Int
    /// The memory all runs' decodes may hold at once, in MiB.
    public var decodeMemoryMiB: Int
    /// The most paths one request may name.
    public var maxPaths = 64
    /// The largest side of a sheet, in pixels.
    public var maxSide = 8192

    /// The settings of a service on `port`; `concurrentRuns` at least 1.
    public init(port: Int = 8080, concurrentRuns: Int = 1,
                decodeMemoryMiB: Int = CollageConfiguration.defaultDecodeMemoryMiB) {
        self.port = port
        self.concurrentRuns = max(1, concurrentRuns)
        self.decodeMemoryMiB = decodeMemoryMiB
    }
}

/// The service's application: `POST /sheets` and `GET /health` on
/// 127.0.0.1. `onListening` gets the port it listens on (the one chosen
/// when `settings.port` is 0).
public func buildApplication(_ settings: ServiceSettings, logger: Logger = Logger(label: "collage-service"),
                             onListening: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
    let service = SheetService(settings: settings)
    let router = Router()
    router.get("health") { _, _ -> Response in
        Response(status: .ok, headers: [.contentType: "application/json"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"#)))
    }
    router.post("sheets") { request, context -> Response in
        let body: SheetRequest
        do {
            body = try await request.decode(as: SheetRequest.self, context: context)
        } catch {
            throw ServiceError(status: .badRequest,
                               message: #"the body must be JSON such as {"paths": ["/photos/a.jpg"], "size": "1200x800"}"#)
        }
        return try await service.sheet(body, logger: context.logger)
    }
    return Application(router: router,
                       configuration: .init(address: .hostname("127.0.0.1", port: settings.port),
                                            serverName: "collage-service"),
                       onServerRunning: { channel in await onListening(channel.localAddress?.port ?? settings.port) },
                       logger: logger)
}

/// Turns a request into a sheet: a temporary folder, one run of CollageKit
/// awaited (its blocking work on a thread of its own, never on the event
/// loop or the cooperative pool), the JPEG read back, the folder removed.
struct SheetService: Sendable {
    let settings: ServiceSettings
    let turns: Turns

    init(settings: ServiceSettings) {
        self.settings = settings
        turns = Turns(settings.concurrentRuns)
    }

    func sheet(_ body: SheetRequest, logger: Logger) async throws -> Response {
        let folder = try await Self.blocking { try Self.makeTemporaryFolder() }
        do {
            let bytes = try await sheet(body, in: folder, logger: logger)
            try? await Self.blocking { try FileManager.default.removeItem(atPath: folder) }
            return Response(status: .ok, headers: [.contentType: "image/jpeg"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        } catch {
            try? await Self.blocking { try FileManager.default.removeItem(atPath: folder) }
            throw error
        }
    }

    private func sheet(_ body: SheetRequest, in folder: String, logger: Logger) async throws -> [UInt8] {
        let output = folder + "/sheet.jpg"
        let configuration = try body.configuration(output: output, settings: settings)
        await turns.take()
        var problems: [ServiceError.Problem] = []
        // If the request's task is cancelled, the run stops as on SIGTERM
        // and leaves nothing behind (answered 503).
        let outcome = await Collage.run(configuration, logger: logger) { events in
            for await event in events {
                switch event {
                case .failed(let path, let error):
                    problems.append(.init(path: path.description, reason: error))
                case .rejected(let path, let reason, let detail):
                    problems.append(.init(path: path.description, reason: "\(reason.rawValue): \(detail)"))
                default:
                    break
                }
            }
        }
        turns.give()
        logger.debug("sheet run ended", metadata: ["status": "\(outcome.status.rawValue)",
                                                   "images": "\(outcome.summary.used)"])
        // A sheet made of only some of the images is not what was asked for.
        guard outcome.status == .success else { throw ServiceError(outcome: outcome, problems: problems) }
        return try await Self.blocking { try Array(Data(contentsOf: URL(fileURLWithPath: output))) }
    }

    /// Runs a short blocking file operation on NIO's thread pool, off the event loop.
    private static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }

    private static func makeTemporaryFolder() throws -> String {
        var template = Array((NSTemporaryDirectory() + "/collage-service-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw ServiceError(status: .internalServerError, message: "cannot make a temporary folder")
        }
        return String(cString: made)
    }
}
