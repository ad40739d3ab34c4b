internal import CLibRaw
import Glibc

/// What LibRaw's identify found in a RAW file.
public struct RawInfo: Sendable, Equatable {
    /// The image at full size as stored, before orientation (what a
    /// demosaic at full size gives, before LibRaw turns it).
    public let width: Int
    public let height: Int
    /// The raw data as stored: what unpacking allocates (16 bits a sample).
    public let rawWidth: Int
    public let rawHeight: Int
    public let rawSamples: Int
    /// EXIF orientation (1-8) from LibRaw's flip.
    public let orientation: Int
    /// Capture date, YYYY-MM-DD in local time, nil when the file has none.
    public let dateTaken: String?
    /// Capture time in seconds since the epoch (LibRaw reads the EXIF
    /// clock as this machine's zone); 0 when the file has none.
    public let timestamp: Int
    /// The largest embedded preview LibRaw knows of, nil when none.
    public let preview: Preview?
    /// Whether identify found raw data and a decoder for it.
    public let hasRawData: Bool
    public let fileSize: Int
    public let make: String
    public let model: String
    /// The camera's settings as LibRaw read them: ISO speed, exposure in
    /// seconds, f-number, focal length in mm (0 when unknown); the lens's name.
    public let isoSpeed: Double
    public let shutter: Double
    public let aperture: Double
    public let focalLength: Double
    public let lens: String

    /// Where the preview is and what the file claims of it; whether its
    /// bytes are a JPEG is for the caller to check (identify does not look).
    public struct Preview: Sendable, Equatable {
        /// The size the file claims (0 when it does not say).
        public let width: Int
        public let height: Int
        /// Where its bytes are, within the file (checked).
        public let offset: Int
        public let length: Int
    }

    init(_ handle: OpaquePointer) {
        var info = craw_info()
        craw_get_info(handle, &info)
        width = Int(info.width)
        height = Int(info.height)
        rawWidth = Int(info.raw_width)
        rawHeight = Int(info.raw_height)
        rawSamples = Int(info.raw_samples)
        orientation = Self.orientation(flip: Int(info.flip))
        dateTaken = info.timestamp > 0 ? Self.date(time_t(info.timestamp)) : nil
        timestamp = max(0, Int(info.timestamp))
        fileSize = Int(info.file_size)
        let offset = Int(info.thumb_offset), length = Int(info.thumb_length)
        if length > 0, offset >= 0, offset <= fileSize, length <= fileSize - offset {
            preview = Preview(width: Int(info.thumb_width),
                              height: Int(info.thumb_height), offset: offset, length: length)
        } else {
            preview = nil
        }
        hasRawData = info.has_raw != 0
        make = withUnsafeBytes(of: info.make) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        model = withUnsafeBytes(of: info.model) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        (isoSpeed, shutter) = (Double(info.iso_speed), Double(info.shutter))
        (aperture, focalLength) = (Double(info.aperture), Double(info.focal_len))
        lens = withUnsafeBytes(of: info.lens) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// LibRaw's flip (dcraw's) as an EXIF orientation: identify maps EXIF
    /// 1...8 to 0, 1, 3, 2, 4, 6, 7, 5.
    static func orientation(flip: Int) -> Int {
        switch flip {
        case 1: return 2
        case 2: return 4
        case 3: return 3
        case 4: return 5
        case 5: return 8
        case 6: return 6
        case 7: return 7
        default: return 1
        }
    }

    static func date(_ time: time_t) -> String? {
        var seconds = time
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return nil }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = Int(parts.tm_year) + 1900
        guard (1...9999).contains(year) else { return nil }
        let padded = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(padded)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
    }
}

/// Why a RAW file could not give a picture: the step that failed, with
/// LibRaw's words.
public enum RawError: Error, Sendable, CustomStringConvertible {
    case unreadable(String), noPreview(String), undecodable(String)

    public var message: String {
        switch self {
        case .unreadable(let message), .noPreview(let message), .undecodable(let message): message
        }
    }

    public var description: String { message }
}
