import CollageKit
import CollageService
import Foundation
import Hummingbird
import Logging

/// collage-service [--port N] [--runs N] [--decode-memory MiB] [--batch-allocator]
///
/// Listens on 127.0.0.1 (the port from --port, else COLLAGE_SERVICE_PORT,
/// else 8080; 0 picks a free one) and prints "listening on 127.0.0.1:PORT"
/// once it does. SIGTERM or SIGINT stops it gracefully.
@main
struct CollageServiceMain {
    static func main() async throws {
        var settings = ServiceSettings(port: ProcessInfo.processInfo.environment["COLLAGE_SERVICE_PORT"].flatMap(Int.init) ?? 8080)
        var batchAllocator = false
        var arguments = CommandLine.arguments.dropFirst()
        func value(_ name: String) -> Int {
            guard let text = arguments.popFirst(), let number = Int(text), number >= 0 else { usage("\(name) takes a number") }
            return number
        }
        while let argument = arguments.popFirst() {
            switch argument {
            case "--port": settings.port = value(argument)
            case "--runs": settings.concurrentRuns = max(1, value(argument))
            case "--decode-memory": settings.decodeMemoryMiB = max(16, value(argument))
            case "--batch-allocator": batchAllocator = true
            default: usage("unknown argument '\(argument)'")
            }
        }
        // Process-wide tuning is the program's choice, made before any
        // thread starts: glibc's allocator held to two arenas suits a
        // process that does little but make sheets, not every server.
        if batchAllocator { CollageProcess.prepareForBatch() }
        // libvips starts now, before the server's threads, and a missing
        // libvips is said at once rather than at the first request.
        do {
            try Collage.prepare()
        } catch {
            FileHandle.standardError.write(Data("collage-service: \(error.message)\n".utf8))
            exit(error.status.rawValue)
        }
        let app = buildApplication(settings) { port in
            // One unbuffered write: a script reading the port sees the line at once.
            FileHandle.standardOutput.write(Data("listening on 127.0.0.1:\(port)\n".utf8))
        }
        try await app.runService()
    }

    static func usage(_ problem: String) -> Never {
        FileHandle.standardError.write(Data("""
            collage-service: \(problem)
            usage: collage-service [--port N] [--runs N] [--decode-memory MiB] [--batch-allocator]

            """.utf8))
        exit(64)
    }
}
