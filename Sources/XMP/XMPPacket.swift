/// An XMP packet (a photo's `xmp-data`, or a `NAME.xmp` sidecar) read as
/// RDF spells it: elements opening and closing (namespace URI and local
/// name), and each simple property's value whichever spelling the writer
/// chose: an attribute of the element that holds it
/// (`<rdf:Description xmp:Rating="3">`, `<mwg-rs:Area stArea:x="0.5">`)
/// or an element of its own (`<xmp:Rating>3</xmp:Rating>`). Containers
/// (`rdf:Bag`, `rdf:Seq`, `rdf:Alt`) and their `rdf:li` items, and
/// `rdf:Description`, are elements like any other: their readers
/// (`FaceRegions`, `XMPProperties`) follow them as they open and close.
///
/// libxml2 parses (the CXML target: no network, no document type, no
/// entity but XML's five, nothing printed). Bounded: a packet over
/// `maxBytes` or with a document type is not read, and the walk stops at
/// an element more than `maxDepth` deep. It never throws: the `Outcome`
/// says how far it read and why not further.
public enum XMPPacket {
    public static let maxBytes = 1 << 20
    public static let maxDepth = 64

    public static let rdfNamespace = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"

    /// What the walk meets, in the packet's order.
    public enum Event: Sendable, Equatable {
        /// An element opens (its simple properties as attributes follow).
        case open(XMLName)
        /// A simple property and its value, as written (not trimmed): an
        /// attribute of the element open, but for RDF's own (`rdf:about`,
        /// `rdf:parseType` ...) and `xml:lang`; or, just before it closes, the
        /// text of an element without child elements or property attributes
        /// (outside RDF's syntax names: `rdf:li` and `rdf:value` are
        /// properties, `rdf:Description` or `rdf:Bag` are not), or the URI of
        /// its `rdf:resource`.
        case property(XMLName, String)
        case close(XMLName)
    }

    /// What the visitor says after each event.
    public enum Step: Sendable, Equatable {
        case next
        /// Stop reading, for this reason (what was met until then stands).
        case stop(String)
    }

    public enum Outcome: Sendable, Equatable {
        /// Read to its end (an empty packet too).
        case read
        /// Stopped before its end, at `maxDepth` or by the visitor: what
        /// was met until then stands.
        case stopped(String)
        /// Not XMP this reader takes: too large, not UTF-8, with a document
        /// type, or not XML (met where the parser found it not XML: what
        /// was met before is no more to be trusted than the rest).
        case refused(String)
    }

    /// Walks `packet` (UTF-8; trailing NULs are ignored), calling `visit`
    /// with each event and the names of the elements open around it,
    /// outermost first: for `open` and `close`, ending with that element;
    /// for a property, ending with the element that holds it (the one
    /// bearing the attribute, the one around the property's element), so
    /// that both spellings of one property have the same path.
    public static func walk(_ packet: [UInt8],
                            _ visit: (_ event: Event, _ path: ArraySlice<XMLName>) -> Step) -> Outcome {
        var bytes = packet[...]
        while bytes.last == 0 { bytes = bytes.dropLast() }
        if bytes.isEmpty { return .read }
        if bytes.count > maxBytes { return .refused("XMP of \(bytes.count) bytes, more than \(maxBytes)") }
        // XMP is UTF-8 as JPEG, PNG, WebP, TIFF and HEIF carry it.
        guard String(validating: bytes, as: UTF8.self) != nil else { return .refused("XMP that is not UTF-8") }
        // XMP has no document type; one could only bring entities to expand.
        // The parser refuses one too; this says so whatever follows it.
        if contains(bytes, "<!DOCTYPE") || contains(bytes, "<!ENTITY") {
            return .refused("XMP with a document type")
        }
        var reader = XMLReader(withoutProcessingInstructions(bytes)[...], maxDepth: maxDepth)
        var walker = Walker()
        while true {
            switch reader.next() {
            case let .start(name, attributes):
                if let stop = walker.open(name, attributes, visit) { return stop }
            case let .end(name):
                if let stop = walker.close(name, visit) { return stop }
            case let .text(text):
                walker.text(text)
            case .done:
                return .read
            case .failed(.notWellFormed(let code, let line)):
                return .refused("not XML (libxml2 error \(code) at line \(line))")
            case .failed(.documentType):
                return .refused("XMP with a document type")
            case .failed(.tooDeep):
                return .stopped(tooDeep)
            case .failed(.outOfMemory):
                return .refused("XMP too large to read")
            }
        }
    }

    static let tooDeep = "XMP nested more than \(maxDepth) deep"

    /// The open elements, and what makes a simple property of one.
    private struct Walker {
        struct Open {
            var childElements = false
            var propertyAttributes = false
            var resource: String?
            var text = ""
        }

        var names: [XMLName] = []
        var open: [Open] = []

        mutating func open(_ name: XMLName, _ attributes: [(name: XMLName, value: String)],
                           _ visit: (Event, ArraySlice<XMLName>) -> Step) -> Outcome? {
            if !open.isEmpty { open[open.count - 1].childElements = true }
            names.append(name)
            open.append(Open())
            guard names.count <= XMPPacket.maxDepth else { return .stopped(XMPPacket.tooDeep) }
            if case .stop(let reason) = visit(.open(name), names[...]) { return .stopped(reason) }
            for (attribute, value) in attributes {
                if attribute.namespace == XMPPacket.rdfNamespace {
                    if attribute.local == "resource" { open[open.count - 1].resource = value }
                    continue
                }
                if attribute.namespace == XMPPacket.xmlNamespace { continue }
                open[open.count - 1].propertyAttributes = true
                if case .stop(let reason) = visit(.property(attribute, value), names[...]) { return .stopped(reason) }
            }
            return nil
        }

        mutating func text(_ text: String) {
            guard !open.isEmpty, !open[open.count - 1].childElements else { return }
            open[open.count - 1].text += text
        }

        mutating func close(_ name: XMLName, _ visit: (Event, ArraySlice<XMLName>) -> Step) -> Outcome? {
            guard let element = open.popLast() else { return nil }
            defer { names.removeLast() }
            let syntax = name.namespace == XMPPacket.rdfNamespace && name.local != "li" && name.local != "value"
            if !syntax, !element.childElements, !element.propertyAttributes {
                if case .stop(let reason) = visit(.property(name, element.resource ?? element.text), names.dropLast()) {
                    return .stopped(reason)
                }
            }
            if case .stop(let reason) = visit(.close(name), names[...]) { return .stopped(reason) }
            return nil
        }
    }

    /// `bytes` with every processing instruction (`<?…?>`, an unclosed one
    /// to the end) blanked out: XMP's `<?xpacket …?>` and an XML declaration
    /// carry nothing XMP needs, and libxml2 refuses a declaration anywhere
    /// but at the very start (after an `<?xpacket?>` line, say), where this
    /// reader has always read past one.
    static func withoutProcessingInstructions(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out = Array(bytes)
        var index = 0
        while index + 1 < out.count {
            guard out[index] == UInt8(ascii: "<"), out[index + 1] == UInt8(ascii: "?") else {
                index += 1
                continue
            }
            var end = index + 2
            while end + 1 < out.count, !(out[end] == UInt8(ascii: "?") && out[end + 1] == UInt8(ascii: ">")) { end += 1 }
            end = min(out.count, end + 2)
            for blank in index..<end { out[blank] = UInt8(ascii: " ") }
            index = end
        }
        return out
    }

    private static func contains(_ bytes: ArraySlice<UInt8>, _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        var index = bytes.startIndex
        while index <= bytes.endIndex - needle.count {
            if bytes[index] == needle[0] && bytes[index..<index + needle.count].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}
