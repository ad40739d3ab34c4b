import Foundation
import Locking
import XCTest
@testable import XMP

/// The XMP packet reader (libxml2 through CXML): RDF's two spellings of a
/// property read alike, a photo's rating and label, and hostile packets
/// refused without a sound.
final class XMPPacketTests: XCTestCase {
    static let head = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        """
    static let tail = "</rdf:RDF></x:xmpmeta>"

    static func packet(_ body: String) -> [UInt8] { Array((head + body + tail).utf8) }

    /// Every event of a walk, with its path, as text.
    static func events(_ packet: [UInt8]) -> (events: [String], outcome: XMPPacket.Outcome) {
        var events: [String] = []
        let outcome = XMPPacket.walk(packet) { event, path in
            let where_ = path.map(\.local).joined(separator: "/")
            switch event {
            case .open(let name): events.append("open \(name.local) @\(where_)")
            case let .property(name, value): events.append("\(name) = \(value) @\(where_)")
            case .close(let name): events.append("close \(name.local)")
            }
            return .next
        }
        return (events, outcome)
    }

    func testBothSpellingsOfAPropertyReadAlike() {
        let attribute = Self.events(Self.packet("""
            <rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" rdf:about="" xml:lang="en" xmp:Rating="3"/>
            """))
        let element = Self.events(Self.packet("""
            <rdf:Description xmlns:q="http://ns.adobe.com/xap/1.0/" rdf:about=""><q:Rating>3</q:Rating></rdf:Description>
            """))
        XCTAssertEqual(attribute.outcome, .read)
        XCTAssertEqual(element.outcome, .read)
        let property = "{http://ns.adobe.com/xap/1.0/}Rating = 3 @xmpmeta/RDF/Description"
        XCTAssertEqual(attribute.events.filter { $0.hasPrefix("{") }, [property])
        XCTAssertEqual(element.events.filter { $0.hasPrefix("{") }, [property])
        // Structures and containers are not simple values; their items and fields are.
        let nested = Self.events(Self.packet("""
            <rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:s="urn:s">
             <dc:subject><rdf:Bag><rdf:li>sea</rdf:li><rdf:li>dune</rdf:li></rdf:Bag></dc:subject>
             <s:place rdf:parseType="Resource"><s:name>Pilat</s:name></s:place>
             <s:link rdf:resource="urn:x:1"/>
             <s:at s:x="0.5"/>
             <s:text>a &amp; b <![CDATA[<c>]]> &#233;</s:text>
            </rdf:Description>
            """)).events.filter { $0.hasPrefix("{") }
        XCTAssertEqual(nested, [
            "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}li = sea @xmpmeta/RDF/Description/subject/Bag",
            "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}li = dune @xmpmeta/RDF/Description/subject/Bag",
            "{urn:s}name = Pilat @xmpmeta/RDF/Description/place",
            "{urn:s}link = urn:x:1 @xmpmeta/RDF/Description",
            "{urn:s}x = 0.5 @xmpmeta/RDF/Description/at",
            "{urn:s}text = a & b <c> é @xmpmeta/RDF/Description",
        ])
    }

    func testTheVisitorCanStopTheWalk() {
        var opened = 0
        let outcome = XMPPacket.walk(Self.packet("<rdf:Description/><rdf:Description/>")) { event, _ in
            guard case .open = event else { return .next }
            opened += 1
            return opened == 3 ? .stop("enough") : .next
        }
        XCTAssertEqual(outcome, .stopped("enough"))
        XCTAssertEqual(opened, 3)
    }

    /// As Lightroom (attributes) and ExifTool (elements) write them, in a
    /// photo or in a sidecar with its XML declaration.
    func testRatingAndLabel() {
        let lightroom = XMPProperties.parse(Array(("""
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
            """ + Self.head + """
            <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="4" xmp:Label="Red"/>
            """ + Self.tail + "<?xpacket end=\"w\"?>").utf8))
        XCTAssertEqual(lightroom, XMPProperties(rating: 4, label: "Red"))
        let sidecar = XMPProperties.parse(Array(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + Self.head + """
            <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
             <xmp:Rating>-1</xmp:Rating><xmp:Label> To print </xmp:Label>
            </rdf:Description>
            """ + Self.tail).utf8))
        XCTAssertEqual(sidecar, XMPProperties(rating: -1, label: "To print"))
        // Only the photo's own: not a rating inside a structure (a history entry).
        let history = XMPProperties.parse(Self.packet("""
            <rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:h="urn:h">
             <h:history><rdf:Seq><rdf:li xmp:Rating="5"/><rdf:li><rdf:Description xmp:Rating="5"/></rdf:li></rdf:Seq></h:history>
            </rdf:Description>
            <rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="2.5"/>
            """))
        XCTAssertEqual(history, XMPProperties(rating: 2))
        XCTAssertEqual(XMPProperties.parse([]), XMPProperties())
        let wrong = XMPProperties.parse(Self.packet("""
            <rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="7" xmp:Label=""/>
            """))
        XCTAssertNil(wrong.rating)
        XCTAssertNil(wrong.label)
        XCTAssertEqual(wrong.problem, "a rating of '7', not -1 to 5")
        XCTAssertEqual(XMPProperties.parse(Self.packet("<rdf:Description>")).problem?.hasPrefix("not XML"), true)
    }

    /// The seeds of the fuzz corpus that attack a parser: each refused, or
    /// read without harm.
    func testHostilePacketsAreRefused() throws {
        let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/corpus/xmp-packet")
        func seed(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: seeds.appendingPathComponent(name))) }
        for name in ["billion-laughs.xmp", "external-entity.xmp"] {
            XCTAssertEqual(XMPProperties.parse(try seed(name)).problem, "XMP with a document type", name)
        }
        XCTAssertEqual(XMPProperties.parse(try seed("deep.xmp")).problem, "XMP nested more than 64 deep")
        XCTAssertEqual(XMPProperties.parse(try seed("invalid-utf8.xmp")).problem, "XMP that is not UTF-8")
        // Processing instructions anywhere, a declaration after the packet's own line, an unclosed one: read past.
        XCTAssertEqual(XMPProperties.parse(try seed("processing-instructions.xmp")), XMPProperties(rating: 4, label: "Gr     een"))
    }

    /// What the Swift side refuses first, the C reader refuses on its own.
    func testTheReaderAloneRefusesDocumentTypesAndEntities() {
        func failure(_ text: String, maxDepth: Int = 64) -> XMLReader.Failure? {
            var reader = XMLReader(Array(text.utf8)[...], maxDepth: maxDepth)
            while true {
                switch reader.next() {
                case .done: return nil
                case .failed(let failure): return failure
                default: continue
                }
            }
        }
        XCTAssertEqual(failure("<!DOCTYPE a [<!ENTITY b SYSTEM \"file:///etc/passwd\">]><a>&b;</a>"), .documentType)
        XCTAssertEqual(failure("<!DOCTYPE a SYSTEM \"http://127.0.0.1:9/a.dtd\"><a/>"), .documentType)
        XCTAssertEqual(failure("<a>&b;</a>"), .notWellFormed(code: 26, line: 1))  // XML_ERR_UNDECLARED_ENTITY
        XCTAssertEqual(failure("<a><b></a>"), .notWellFormed(code: 76, line: 1))  // XML_ERR_TAG_NAME_MISMATCH
        XCTAssertEqual(failure("<a><p:b/></a>"), .notWellFormed(code: 201, line: 1))  // an unbound prefix
        XCTAssertEqual(failure("<a><a><a/></a></a>", maxDepth: 2), .tooDeep)
        XCTAssertNil(failure("<a><a><a/></a></a>", maxDepth: 3))
        XCTAssertNil(failure("<a xmlns:b='urn:x' b:c='&amp;&lt;&#38;&#x41;'/>"))
    }

    func testTextAndAttributesAsWritten() {
        // A byte order mark skipped, an encoding declaration ignored (the bytes are UTF-8).
        var reader = XMLReader(Array("\u{FEFF}<?xml version='1.0' encoding='ISO-8859-1'?><a b='&amp;&#38;#38; é'>é<![CDATA[<&>]]></a>".utf8)[...],
                               maxDepth: 8)
        var seen: [String] = []
        loop: while true {
            switch reader.next() {
            case let .start(name, attributes): seen.append("<\(name) \(attributes.map { "\($0.name)=\($0.value)" })")
            case .end(let name): seen.append("</\(name)")
            case .text(let text): seen.append(text)
            case .done: break loop
            case .failed(let failure): return XCTFail("\(failure)")
            }
        }
        XCTAssertEqual(seen, ["<a [\"b=&&#38; é\"]", "é<&>", "</a"])
    }

    /// libxml2 reports errors to stderr unless told otherwise, on every thread.
    func testNothingIsPrinted() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("xmp-stderr-\(getpid())")
        let saved = dup(2)
        let file = open(log.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(file, 0)
        dup2(file, 2)
        let broken = ["<a><b></a>", "<a>&nbsp;</a>", "<a xmlns:p='not a uri'><p:b/></a>", "<a \u{1}/>", "<x:a/>", "<a>\0</a>"]
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for packet in broken { _ = FaceRegions.parse(Array(packet.utf8)) }
        }
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        close(file)
        let printed = try String(contentsOf: log, encoding: .utf8)
        try? FileManager.default.removeItem(at: log)
        XCTAssertEqual(printed, "")
    }

    /// Many readers at once, on many threads: each reads its packet whole.
    func testReadersOnManyThreads() {
        let packet = FaceRegionsTests.elements(Array(repeating: ("0.5", "0.5", "0.1", "0.1"), count: 40))
        let expected = FaceRegions.parse(packet)
        XCTAssertEqual(expected.regions.count, 40)
        let same = Tally()
        DispatchQueue.concurrentPerform(iterations: 64) { _ in
            if FaceRegions.parse(packet) == expected { same.add() }
        }
        XCTAssertEqual(same.count, 64)
    }
}

private final class Tally: Sendable {
    private let value = Locked(0)

    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}
