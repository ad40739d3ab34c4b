internal import CVipsShim
import FileFacts

extension Image {
    /// When the photo was taken, by its EXIF: DateTimeOriginal
    /// ("2026:08:14 15:30:12"), with SubSecTimeOriginal's milliseconds and
    /// OffsetTimeOriginal ("+02:00") when present; nil when absent, blank
    /// (as cameras without a clock write) or not a valid date and time.
    var takenAt: LocalDateTime? {
        guard let text = exifText("exif-ifd2-DateTimeOriginal") else { return nil }
        return ExifDateTime.parse(text, subSeconds: exifText("exif-ifd2-SubSecTimeOriginal"),
                                  offset: exifText("exif-ifd2-OffsetTimeOriginal"))
    }

    /// An EXIF field's value as libvips shows it, without the "(..., ASCII,
    /// 20 components, 20 bytes)" that follows.
    private func exifText(_ field: String) -> [UInt8]? {
        var raw: UnsafePointer<CChar>?
        guard vips_image_get_typeof(pointer, field) != 0,
              vips_image_get_string(pointer, field, &raw) == 0, let raw else { return nil }
        let bytes = Array(String(cString: raw).utf8.prefix(64))
        let end = bytes.firstIndex(of: UInt8(ascii: "(")) ?? bytes.count
        return Array(bytes[..<end])
    }
}
