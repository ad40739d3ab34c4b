internal import CXML

/// A name in XML's namespaces: the namespace URI (empty for none) and the
/// local name; the prefix a writer chose is not part of it.
public struct XMLName: Hashable, Sendable, CustomStringConvertible {
    public let namespace: String
    public let local: String

    public init(_ namespace: String, _ local: String) {
        self.namespace = namespace
        self.local = local
    }

    public var description: String { namespace.isEmpty ? local : "{\(namespace)}\(local)" }
}

/// The one owner of a CXML reader: XML's events pulled one at a time from
/// libxml2's SAX2 parser (no network, no document type, no entity but
/// XML's five, silent), as Swift values.
struct XMLReader: ~Copyable {
    enum Event {
        case start(XMLName, attributes: [(name: XMLName, value: String)])
        case end(XMLName)
        case text(String)
        /// The document ended, well-formed and whole.
        case done
        /// It cannot be read further.
        case failed(Failure)
    }

    enum Failure: Equatable {
        /// libxml2's first error: its code (xmlParserErrors) and line.
        case notWellFormed(code: Int, line: Int)
        case documentType
        case tooDeep
        case outOfMemory
    }

    private let reader: OpaquePointer?

    /// A reader of a copy of `bytes` (UTF-8: a byte order mark skipped, an
    /// encoding declaration ignored), failing on an element more than
    /// `maxDepth` deep once it has been read.
    init(_ bytes: ArraySlice<UInt8>, maxDepth: Int) {
        reader = bytes.withUnsafeBytes { cxml_reader_new($0.baseAddress, $0.count, Int32(clamping: maxDepth)) }
    }

    deinit {
        cxml_reader_free(reader)
    }

    mutating func next() -> Event {
        guard let reader else { return .failed(.outOfMemory) }
        var item = cxml_item()
        switch cxml_reader_next(reader, &item) {
        case CXML_START_ELEMENT:
            let attributes = (0..<Int(item.attribute_count)).map { index in
                let attribute = item.attributes[index]
                return (name: XMLName(String(cString: attribute.ns), String(cString: attribute.local_name)),
                        value: Self.string(attribute.value, attribute.value_length))
            }
            return .start(XMLName(String(cString: item.ns), String(cString: item.local_name)), attributes: attributes)
        case CXML_END_ELEMENT:
            return .end(XMLName(String(cString: item.ns), String(cString: item.local_name)))
        case CXML_TEXT:
            return .text(Self.string(item.text, item.text_length))
        case CXML_END_OF_DOCUMENT:
            return .done
        default:
            switch cxml_reader_failure(reader) {
            case CXML_NOT_WELL_FORMED:
                return .failed(.notWellFormed(code: Int(cxml_reader_error_code(reader)),
                                              line: Int(cxml_reader_error_line(reader))))
            case CXML_DOCUMENT_TYPE: return .failed(.documentType)
            case CXML_TOO_DEEP: return .failed(.tooDeep)
            default: return .failed(.outOfMemory)
            }
        }
    }

    private static func string(_ start: UnsafePointer<CChar>?, _ length: Int) -> String {
        guard let start, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: start, count: length), as: UTF8.self)
    }
}
