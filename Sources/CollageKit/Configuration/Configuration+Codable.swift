import Vips

/// An option value written as the text the command line takes for it, and
/// read back through the same parser.
protocol OptionText {
    init?(optionText: String)
    var optionText: String { get }
}

extension OptionText {
    static func decoded(from decoder: Swift.Decoder) throws -> Self {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self(optionText: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "'\(text)' is not a value of \(Self.self)"))
        }
        return value
    }

    func encodeText(to encoder: Swift.Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(optionText)
    }
}

extension CanvasSize: OptionText, Codable {
    init?(optionText: String) { self.init(optionText) }
    var optionText: String { "\(width)x\(height.map(String.init) ?? "")" }
    public init(from decoder: Swift.Decoder) throws { self = try Self.decoded(from: decoder) }
    public func encode(to encoder: Swift.Encoder) throws { try encodeText(to: encoder) }
}

extension GridShape: OptionText, Codable {
    init?(optionText: String) { self.init(optionText) }
    var optionText: String { "\(columns.map(String.init) ?? "")x\(rows.map(String.init) ?? "")" }
    public init(from decoder: Swift.Decoder) throws { self = try Self.decoded(from: decoder) }
    public func encode(to encoder: Swift.Encoder) throws { try encodeText(to: encoder) }
}

extension Colour: OptionText, Codable {
    init?(optionText: String) { self.init(optionText) }
    var optionText: String { "\(rgb.red),\(rgb.green),\(rgb.blue)" }
    public init(from decoder: Swift.Decoder) throws { self = try Self.decoded(from: decoder) }
    public func encode(to encoder: Swift.Encoder) throws { try encodeText(to: encoder) }
}

extension PageSize: OptionText, Codable {
    init?(optionText: String) { self.init(optionText) }
    var optionText: String { description }
    public init(from decoder: Swift.Decoder) throws { self = try Self.decoded(from: decoder) }
    public func encode(to encoder: Swift.Encoder) throws { try encodeText(to: encoder) }
}

extension PrintLength: OptionText, Codable {
    init?(optionText: String) { self.init(optionText) }
    var optionText: String { description }
    public init(from decoder: Swift.Decoder) throws { self = try Self.decoded(from: decoder) }
    public func encode(to encoder: Swift.Encoder) throws { try encodeText(to: encoder) }
}

extension FontChoice: OptionText, Codable {
    /// A font that is no longer installed does not read back.
    init?(optionText: String) {
        guard let font = try? FontChoice(optionText) else { return nil }
        self = font
    }
    var optionText: String { description }
    public init(from decoder: Swift.Decoder) throws { self = try Self.decoded(from: decoder) }
    public func encode(to encoder: Swift.Encoder) throws { try encodeText(to: encoder) }
}

extension Fit: Codable {}
extension CropChoice: Codable {}

/// An INPUT: its path, or `-` for standard input (a file named `-` is `./-`).
extension Input: Codable {
    public init(from decoder: Swift.Decoder) throws {
        let path = try PathName(from: decoder)
        self = path.bytes == [UInt8(ascii: "-")] ? .standardInput : .path(path)
    }

    public func encode(to encoder: Swift.Encoder) throws {
        switch self {
        case .standardInput: try PathName("-").encode(to: encoder)
        case .path(let path): try path.encode(to: encoder)
        }
    }
}

/// Any JSON value: what a configuration's properties are compared as.
enum JSONValue: Codable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: Swift.Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    func encode(to encoder: Swift.Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
