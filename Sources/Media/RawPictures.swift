import FileFacts
import Raw
import Vips

/// RAW photos: the header from LibRaw's identify (size, LibRaw's flip,
/// capture date, the embedded preview checked as a JPEG of its own), the
/// tile from the largest preview when it covers the tile, else from the
/// raw data demosaiced at the smallest scale that covers it (half size, or
/// full). Never from a preview smaller than the tile.
enum RawPictures {
    static func header(descriptor: Int32, maxPixels: Int, maxBuffer: Int, usePreview: Bool) throws -> ImageHeader {
        // The TIFF-based RAWs' directories: in the file, no loop (RawStructure).
        try StructureCheck.check(descriptor: descriptor, maxPixels: maxPixels, maxBuffer: maxBuffer)
        let file = try open(descriptor, maxBuffer)
        let info = file.info
        var facts = RawFacts()
        facts.hasRawData = info.hasRawData && info.width > 0 && info.height > 0
        facts.rawBytes = product(info.rawWidth, info.rawHeight, max(1, info.rawSamples), 2)
        if facts.hasRawData {
            try limit(info.width, info.height, "raw image", maxPixels)
            try limit(info.rawWidth, info.rawHeight, "raw data", maxPixels)
        }
        if usePreview, let preview = info.preview,
           let jpeg = try? StructureCheck.checkJPEG(descriptor: descriptor, offset: preview.offset, length: preview.length,
                                                    maxPixels: maxPixels, maxBuffer: maxBuffer),
           jpeg.width > 0, jpeg.height > 0 {
            facts.previewWidth = jpeg.width
            facts.previewHeight = jpeg.height
            facts.previewOffset = preview.offset
            facts.previewBytes = preview.length
            facts.previewBufferBytes = jpeg.bufferBytes
        }
        guard facts.hasRawData || facts.previewWidth > 0 else {
            throw VipsError(.load, "a RAW photo with neither a JPEG preview nor raw data LibRaw can decode")
        }
        // Without raw data, the preview is the picture.
        let width = facts.hasRawData ? info.width : facts.previewWidth
        let height = facts.hasRawData ? info.height : facts.previewHeight
        var header = ImageHeader(width: width, height: height, orientation: info.orientation, format: "raw", bands: 3,
                                 dateTaken: info.dateTaken)
        header.takenAt = info.timestamp > 0 ? LocalDateTime(epochSeconds: info.timestamp) : nil
        header.media = .raw(facts)
        return header
    }

    static func tile(descriptor: Int32, width: Int, height: Int, crop: CropMode, background: RGB,
                     header: ImageHeader, maxBuffer: Int) throws -> MediaTile {
        guard case .raw(let facts)? = header.media else { preconditionFailure("not a RAW photo's header") }
        guard let source = header.rawSource(forTile: width, height) else {
            throw VipsError(.load, "no preview of at least \(width)x\(height) (the largest is "
                            + "\(facts.previewWidth)x\(facts.previewHeight)) and no raw data LibRaw can decode")
        }
        // Again: the file may have changed since its header was read.
        try StructureCheck.check(descriptor: descriptor, maxBuffer: maxBuffer)
        if source == .preview {
            do {
                // The preview is a JPEG of its own, decoded where it lies in
                // the file (checked again, as the file as a whole was).
                _ = try StructureCheck.checkJPEG(descriptor: descriptor, offset: facts.previewOffset,
                                                 length: facts.previewBytes, maxBuffer: maxBuffer)
                // LibRaw's flip, when it has one, turns the preview; else the preview's own EXIF does.
                let pixels = try ImageFile.tile(jpegIn: descriptor, offset: facts.previewOffset,
                                                length: facts.previewBytes, width: width, height: height, crop: crop,
                                                background: background,
                                                orientation: header.orientation == 1 ? nil : header.orientation)
                return MediaTile(pixels: pixels, source: "preview")
            } catch let error as VipsError where facts.hasRawData {
                // A preview that is not what it claims: the raw data is the picture.
                let half = header.rawSource(forTile: width, height, preview: false) == .half
                do {
                    return try develop(try open(descriptor, maxBuffer), header: header, half: half, width: width,
                                       height: height, crop: crop, background: background, maxBuffer: maxBuffer)
                } catch let fallback as VipsError {
                    throw VipsError(fallback.code, "\(error.message); \(fallback.message)")
                }
            }
        }
        return try develop(try open(descriptor, maxBuffer), header: header, half: source == .half, width: width,
                           height: height, crop: crop, background: background, maxBuffer: maxBuffer)
    }

    private static func develop(_ file: RawFile, header: ImageHeader, half: Bool, width: Int, height: Int,
                                crop: CropMode, background: RGB, maxBuffer: Int) throws -> MediaTile {
        let bytes = header.demosaicBytes(half: half)
        if bytes > maxBuffer {
            throw VipsError(.tooLarge, "demosaicing the raw data of \(header.width)x\(header.height) needs "
                            + "\(bytes >> 20) MiB at once, over the \(maxBuffer >> 20) MiB a single image may use "
                            + "(--decode-memory raises it)")
        }
        let pixels: RawPixels
        do {
            pixels = try file.develop(half: half)
        } catch {
            guard case .raw(let facts)? = header.media, facts.previewWidth > 0 else {
                throw VipsError(.load, "cannot decode the raw data: \(error.message)")
            }
            throw VipsError(.load, "the largest preview (\(facts.previewWidth)x\(facts.previewHeight)) is smaller than "
                            + "the \(width)x\(height) tile and the raw data cannot be decoded: \(error.message)")
        }
        let tile = try pixels.withBytes { bytes in
            // LibRaw has turned it upright.
            try ImageFile.tile(pixels: bytes, pixelWidth: pixels.width, pixelHeight: pixels.height, bands: pixels.bands,
                               width: width, height: height, crop: crop, background: background)
        }
        return MediaTile(pixels: tile, source: "raw")
    }

    private static func open(_ descriptor: Int32, _ maxBuffer: Int) throws -> RawFile {
        do {
            return try RawFile(descriptor: descriptor, maxMemory: maxBuffer)
        } catch {
            throw VipsError(.load, "unreadable RAW photo: \(error.message)")
        }
    }

    private static func limit(_ width: Int, _ height: Int, _ what: String, _ maxPixels: Int) throws {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maxPixels {
            throw VipsError(.tooLarge, "\(what) of \(width)x\(height) is over --max-pixels \(maxPixels)")
        }
    }

    private static func product(_ values: Int...) -> Int {
        values.reduce(1) { result, value in
            let (next, overflow) = result.multipliedReportingOverflow(by: max(0, value))
            return overflow ? .max : next
        }
    }
}
