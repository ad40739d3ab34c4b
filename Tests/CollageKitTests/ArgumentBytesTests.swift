import CollageKit
import CollageTerminal
import XCTest

/// A name that is not UTF-8 reaches the parser as U+FFFD; the front end's
/// `ArgumentBytes` gives each value back its own bytes.
final class ArgumentBytesTests: XCTestCase {
    private let latin1 = Array("caf".utf8) + [0xE9]            // "café" in Latin-1
    private let other = Array("caf".utf8) + [0xE8]             // reads the same once decoded

    func testEachInputTakesTheNextArgumentThatReadsAsIt() {
        var bytes = ArgumentBytes(arguments: [latin1, other, Array("-o".utf8), Array("out.jpg".utf8)])
        let parsed = String(decoding: latin1, as: UTF8.self)
        XCTAssertEqual(bytes.input(parsed).bytes, latin1)
        XCTAssertEqual(bytes.input(parsed).bytes, other)
        XCTAssertEqual(bytes.input("plain").bytes, Array("plain".utf8))
    }

    func testAnOutputsValueIsNeverAnInput() {
        var bytes = ArgumentBytes(arguments: [Array("-o".utf8), latin1, other])
        let parsed = String(decoding: latin1, as: UTF8.self)
        XCTAssertEqual(bytes.input(parsed).bytes, other)
        XCTAssertEqual(bytes.output(parsed).bytes, latin1)
    }

    func testTheLastOutputWinsInEveryForm() {
        let bytes = ArgumentBytes(arguments: [Array("--output=a.jpg".utf8), Array("-o".utf8), latin1])
        XCTAssertEqual(bytes.output(String(decoding: latin1, as: UTF8.self)).bytes, latin1)
        XCTAssertEqual(bytes.output("a.jpg").bytes, Array("a.jpg".utf8))
    }

    func testOptionValuesInOrderAndNothingAfterTheEndOfOptions() {
        let bytes = ArgumentBytes(arguments: [Array("--exclude".utf8), latin1, Array("--exclude=*.tmp".utf8),
                                              Array("--".utf8), Array("--exclude".utf8), other])
        let parsed = [String(decoding: latin1, as: UTF8.self), "*.tmp"]
        XCTAssertEqual(bytes.values(of: ["--exclude"], parsed: parsed).map(\.bytes), [latin1, Array("*.tmp".utf8)])
        // A value the parser read that is not on the line keeps its UTF-8 bytes.
        XCTAssertEqual(bytes.value(of: "--plan", parsed: "p.json").bytes, Array("p.json".utf8))
    }
}
