internal import CVipsShim
import FileFacts
import Glibc
import XMP

extension Image {
    /// What the image's own XMP packet (libvips' "xmp-data", read with the
    /// header) says of the photo: its rating and label; nil without a packet.
    var xmpTags: XMPProperties? {
        var length = 0
        guard let packet = cvips_xmp(pointer, &length), length > 0 else { return nil }
        return XMPProperties.parse(Array(UnsafeRawBufferPointer(start: packet, count: length)))
    }
}

extension Image {
    /// The camera and its settings, by the EXIF libvips read with the
    /// header (`exif-ifd0-Make` ...); nil when it says none of them.
    var cameraFacts: CameraFacts? {
        let number = { (field: String) in self.exifString(field).flatMap(CameraFacts.number(exif:)) }
        let text = { (field: String) in self.exifString(field).map(CameraFacts.string(exif:)) }
        let iso = number("exif-ifd2-ISOSpeedRatings") ?? number("exif-ifd2-PhotographicSensitivity")
        let facts = CameraFacts(make: text("exif-ifd0-Make"), model: text("exif-ifd0-Model"),
                                lens: text("exif-ifd2-LensModel"), focalLength: number("exif-ifd2-FocalLength"),
                                aperture: number("exif-ifd2-FNumber"), exposure: number("exif-ifd2-ExposureTime"),
                                iso: iso.flatMap { $0 >= 1 && $0 < 10_000_000 ? Int($0) : nil })
        return facts.isEmpty ? nil : facts
    }

    /// An EXIF field as libvips shows it ("VALUE (DESCRIPTION, FORMAT, N
    /// components, M bytes)"), at most 1 KiB of it; nil when absent.
    private func exifString(_ field: String) -> String? {
        var raw: UnsafePointer<CChar>?
        guard vips_image_get_typeof(pointer, field) != 0,
              vips_image_get_string(pointer, field, &raw) == 0, let raw else { return nil }
        return String(decoding: UnsafeBufferPointer(start: raw, count: strnlen(raw, 1024)).map { UInt8(bitPattern: $0) },
                      as: UTF8.self)
    }
}

extension ImageHeader {
    /// Takes `tags`' rating and label, from the file's own XMP packet (a
    /// rating of 0, unrated, as none),
    /// unless something in them could not be used: then neither is taken
    /// and `xmpProblem` says why.
    public mutating func take(embedded tags: XMPProperties?) {
        guard let tags else { return }
        if let problem = tags.problem {
            xmpProblem = problem
            return
        }
        rating = tags.rating == 0 ? nil : tags.rating
        label = tags.label
    }
}
