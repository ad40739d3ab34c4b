internal import CVipsShim
import FileFacts

/// One owner of one `VipsImage`: unreferenced when this object goes away.
/// No C type appears in a public signature.
final class Image {
    let pointer: UnsafeMutablePointer<VipsImage>

    /// Takes ownership of a reference libvips handed us.
    init(owning pointer: UnsafeMutablePointer<VipsImage>) {
        self.pointer = pointer
    }

    deinit { g_object_unref(pointer) }

    var width: Int { Int(vips_image_get_width(pointer)) }
    var height: Int { Int(vips_image_get_height(pointer)) }
    var size: (width: Int, height: Int) { (width, height) }
    var bands: Int { Int(vips_image_get_bands(pointer)) }
    var format: VipsBandFormat { vips_image_get_format(pointer) }
    var interpretation: VipsInterpretation { vips_image_get_interpretation(pointer) }
    var hasAlpha: Bool { vips_image_hasalpha(pointer) != 0 }

    /// Progressive (JPEG) or interlaced (PNG), as the loader reports it.
    var interlaced: Bool {
        var value: Int32 = 0
        guard vips_image_get_typeof(pointer, "interlaced") != 0,
              vips_image_get_int(pointer, "interlaced", &value) == 0 else { return false }
        return value != 0
    }

    /// EXIF DateTimeOriginal ("2019:05:03 14:22:01 (2019:05:03 14:22:01,
    /// ASCII, 20 components, 20 bytes)" as libvips shows it) as
    /// "2019-05-03"; nil when absent, blank ("    :  :  ", as cameras
    /// without a clock write) or not a date.
    var dateTaken: String? {
        let field = "exif-ifd2-DateTimeOriginal"
        var raw: UnsafePointer<CChar>?
        guard vips_image_get_typeof(pointer, field) != 0,
              vips_image_get_string(pointer, field, &raw) == 0, let raw else { return nil }
        let text = Array(String(cString: raw).utf8.prefix(11))
        guard text.count >= 10, text[4] == UInt8(ascii: ":"), text[7] == UInt8(ascii: ":"),
              text.count == 10 || text[10] == UInt8(ascii: " "),
              let year = Self.number(text[0..<4]), let month = Self.number(text[5..<7]), let day = Self.number(text[8..<10]),
              year > 0, (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        return String(decoding: text[0..<4] + [UInt8(ascii: "-")] + text[5..<7] + [UInt8(ascii: "-")] + text[8..<10],
                      as: UTF8.self)
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    /// EXIF orientation 1-8 as libvips parsed it; 1 when absent or odd.
    var orientation: Int {
        var value: Int32 = 1
        guard vips_image_get_typeof(pointer, "orientation") != 0,
              vips_image_get_int(pointer, "orientation", &value) == 0,
              (1...8).contains(value) else { return 1 }
        return Int(value)
    }

    /// Runs a libvips operation that writes one output image.
    func apply(_ code: VipsError.Code, _ what: String,
               _ body: (UnsafeMutablePointer<VipsImage>, UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32) throws -> Image {
        var out: UnsafeMutablePointer<VipsImage>?
        guard body(pointer, &out) == 0, let out else {
            throw VipsError.fromLibvips(code, what)
        }
        return Image(owning: out)
    }
}

/// One owner of one `VipsSource` (a file descriptor libvips reads from).
final class Source {
    let pointer: UnsafeMutablePointer<VipsSource>

    /// libvips duplicates the descriptor; the caller keeps its own.
    init(descriptor: Int32) throws {
        guard let pointer = vips_source_new_from_descriptor(descriptor) else {
            throw VipsError.fromLibvips(.load, "cannot read")
        }
        self.pointer = pointer
    }

    deinit { g_object_unref(pointer) }

    /// The class name of the loader that recognises the content, if any is
    /// allowed to run.
    var loader: String? {
        guard let name = vips_foreign_find_load_source(pointer) else {
            LibvipsErrors.drop(linesContaining: "is not in a known format")
            return nil
        }
        return String(cString: name)
    }
}
