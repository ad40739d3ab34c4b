import CollageService
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import XCTest

/// The service over loopback (HummingbirdTesting's live server and client):
/// two JPEGs become one JPEG of the size asked for, and bad requests are
/// JSON errors with a 4xx.
final class CollageServiceTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        var template = Array("/tmp/collage-service-tests-XXXXXX".utf8CString)
        let made = try XCTUnwrap(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) })
        folder = String(cString: made)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(atPath: folder)
    }

    /// A JPEG of `width`x`height` made with the vips command (libvips-tools).
    private func makeJPEG(_ name: String, width: Int, height: Int) throws -> String {
        let path = folder + "/" + name
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["vips", "gaussnoise", path, "\(width)", "\(height)", "--mean", "128", "--sigma", "40"]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "vips gaussnoise \(path)")
        return path
    }

    func testTwoJPEGsMakeAJPEGOfTheSizeAskedFor() async throws {
        let first = try makeJPEG("a.jpg", width: 600, height: 400)
        let second = try makeJPEG("b.jpg", width: 400, height: 600)
        let before = try temporaryFolders()
        let app = buildApplication(ServiceSettings(port: 0))
        try await app.test(.live) { client in
            let response = try await post(client, #"{"paths": ["\#(first)", "\#(second)"], "size": "640x360"}"#)
            XCTAssertEqual(response.status, .ok, String(buffer: response.body))
            XCTAssertEqual(response.headers[.contentType], "image/jpeg")
            let size = try XCTUnwrap(JPEGSize(Array(buffer: response.body)), "a JPEG with a frame header")
            XCTAssertEqual(size.width, 640)
            XCTAssertEqual(size.height, 360)

            let health = try await client.execute(uri: "/health", method: .get)
            XCTAssertEqual(health.status, .ok)
            XCTAssertEqual(try json(health)["status"] as? String, "ok")
        }
        XCTAssertEqual(try temporaryFolders(), before, "the request's temporary folder is removed")
    }

    /// The service's temporary folders (not the tests').
    private func temporaryFolders() throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
            .filter { $0.hasPrefix("collage-service-") && !$0.hasPrefix("collage-service-tests-") })
    }

    func testBadRequestsAreJSONErrors() async throws {
        let first = try makeJPEG("a.jpg", width: 300, height: 200)
        let folder = self.folder
        let app = buildApplication(ServiceSettings(port: 0))
        try await app.test(.live) { client in
            let empty = try await post(client, #"{"paths": []}"#)
            XCTAssertEqual(empty.status, .badRequest)
            XCTAssertEqual(empty.headers[.contentType], "application/json")
            XCTAssertTrue((try json(empty)["error"] as? String)?.hasPrefix("no paths") == true)

            // A missing file: the run's own status (66) and line.
            let missing = try await post(client, #"{"paths": ["\#(first)", "\#(folder)/gone.jpg"]}"#)
            XCTAssertEqual(missing.status, .unprocessableContent)
            let answer = try json(missing)
            XCTAssertEqual(answer["exitStatus"] as? Int, 66)
            XCTAssertTrue((answer["error"] as? String)?.contains("gone.jpg") == true, "\(answer)")

            // Not an image: the run's failure, and the image it names.
            FileManager.default.createFile(atPath: folder + "/notes.jpg", contents: Data("not a picture".utf8))
            let broken = try await post(client, #"{"paths": ["\#(folder)/notes.jpg"]}"#)
            XCTAssertEqual(broken.status, .unprocessableContent)
            let problems = try XCTUnwrap(try json(broken)["problems"] as? [[String: Any]])
            XCTAssertEqual(problems.first?["path"] as? String, folder + "/notes.jpg")

            let size = try await post(client, #"{"paths": ["\#(first)"], "size": "big"}"#)
            XCTAssertEqual(size.status, .badRequest)
            let notJSON = try await post(client, "paths")
            XCTAssertEqual(notJSON.status, .badRequest)
        }
    }
}

/// `POST /sheets` with a JSON body.
private func post(_ client: some TestClientProtocol, _ body: String) async throws -> TestResponse {
    try await client.execute(uri: "/sheets", method: .post, headers: [.contentType: "application/json"],
                             body: ByteBuffer(string: body))
}

/// An answer's JSON object.
private func json(_ response: TestResponse) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))
    return try XCTUnwrap(object as? [String: Any])
}

/// The width and height in a JPEG's frame header (SOF0-SOF15 but DHT, JPG
/// and DAC), read by walking its markers; nil if there is none.
struct JPEGSize {
    let width: Int
    let height: Int

    init?(_ bytes: [UInt8]) {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var offset = 2
        while offset + 9 < bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                height = Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6])
                width = Int(bytes[offset + 7]) << 8 | Int(bytes[offset + 8])
                return
            }
            offset += 2 + length
        }
        return nil
    }
}
