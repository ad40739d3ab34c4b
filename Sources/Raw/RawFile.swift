internal import CLibRaw
import Glibc

/// A camera RAW file read by LibRaw (Debian's libraw_r): its metadata, its
/// largest embedded preview as JPEG bytes, or its raw data demosaiced to
/// 8-bit RGB pixels. One owner of LibRaw's handle; no LibRaw type leaves
/// this target. Not for two threads at once (each decode opens its own).
///
/// LibRaw reads the file only through the stream of `CLibRaw.cpp`: `pread`
/// in 64 KiB blocks at its own position, at most four times the file's
/// size plus 64 MiB in all (a structure that loops ends there). Reading
/// happens in `open` (identify: headers, maker notes, EXIF), `preview()`
/// (the preview's bytes) and `develop(half:)` (the raw data); the pixels
/// of a demosaic are allocated within LibRaw's own limit (`maxMemory`).
public final class RawFile {
    private let handle: OpaquePointer
    /// What identify found (read once, before anything is unpacked).
    public let info: RawInfo

    /// Opens the file open on `descriptor` (read with `pread`; its offset
    /// is left alone) and reads its metadata. `maxMemory`: the most LibRaw
    /// may allocate for the raw data.
    public init(descriptor: Int32, maxMemory: Int) throws(RawError) {
        var error = [CChar](repeating: 0, count: 256)
        guard let handle = craw_open_fd(descriptor, Self.megabytes(maxMemory), &error, error.count) else {
            throw RawError.unreadable(Self.text(error))
        }
        self.handle = handle
        self.info = RawInfo(handle)
    }

    /// The same for bytes in memory: what a fuzzer drives (`RawInspection`).
    /// `bytes` must outlive the file; `withRawFile(bytes:)` keeps it so.
    init(pointer: UnsafeRawBufferPointer, maxMemory: Int) throws(RawError) {
        var error = [CChar](repeating: 0, count: 256)
        guard let base = pointer.baseAddress,
              let handle = craw_open_bytes(base, pointer.count, Self.megabytes(maxMemory), &error, error.count) else {
            throw RawError.unreadable(pointer.baseAddress == nil ? "empty file" : Self.text(error))
        }
        self.handle = handle
        self.info = RawInfo(handle)
    }

    deinit { craw_close(handle) }

    /// The embedded preview's bytes, as stored (a JPEG when
    /// `info.preview?.isJPEG`): copied out of LibRaw's buffer, which goes
    /// with the file.
    public func preview() throws(RawError) -> [UInt8] {
        var bytes: UnsafePointer<UInt8>?
        var length = 0
        var error = [CChar](repeating: 0, count: 256)
        guard craw_preview(handle, &bytes, &length, &error, error.count) == 0, let bytes else {
            throw RawError.noPreview(Self.text(error))
        }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    /// The raw data demosaiced (at half size when `half`), sRGB, 8 bits,
    /// upright (LibRaw's flip applied). After this, `preview()` cannot be
    /// called: LibRaw's buffers are released.
    public func develop(half: Bool) throws(RawError) -> RawPixels {
        var image = craw_image()
        var error = [CChar](repeating: 0, count: 256)
        guard craw_develop(handle, half ? 1 : 0, &image, &error, error.count) == 0, image.data != nil else {
            throw RawError.undecodable(Self.text(error))
        }
        return RawPixels(image)
    }

    /// The file's own XMP packet (a DNG's tag 700), at most `limit` bytes
    /// of it copied; nil when it has none.
    public func xmp(limit: Int) -> [UInt8]? {
        var length = 0
        guard let bytes = craw_xmp(handle, &length), length > 0 else { return nil }
        return Array(UnsafeRawBufferPointer(start: bytes, count: min(length, limit)))
    }

    /// Bytes LibRaw has read through the stream so far.
    public var bytesRead: UInt64 { UInt64(craw_bytes_read(handle)) }

    /// LibRaw's version ("0.20.2-Release").
    public static var version: String { String(cString: craw_version()) }

    private static func megabytes(_ bytes: Int) -> UInt32 { UInt32(clamping: max(1, bytes >> 20)) }

    static func text(_ error: [CChar]) -> String {
        String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// 8-bit RGB pixels a demosaic made, rows packed; LibRaw's memory, freed
/// with this value.
public final class RawPixels: @unchecked Sendable {  // immutable once made; one owner of LibRaw's buffer
    public let width: Int
    public let height: Int
    public let bands: Int
    private var image: craw_image

    init(_ image: craw_image) {
        self.image = image
        width = Int(image.width)
        height = Int(image.height)
        bands = Int(image.bands)
    }

    deinit { craw_image_free(&image) }

    public var byteCount: Int { width * height * bands }

    /// The pixels, for the duration of `body` (libvips reads them in place).
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: image.data, count: byteCount))
    }
}
