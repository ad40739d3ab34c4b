/// 64-bit FNV-1a, fed as the bytes go by.
struct RunningFNV: Sendable {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    init() {}

    mutating func add<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes { value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
    }

    var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
