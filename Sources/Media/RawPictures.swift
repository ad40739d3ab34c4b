import FileFacts
import Raw
import Vips
import XMP

/// RAW photos: the header from LibRaw's identify (size, LibRaw's flip,
/// capture date) and from the file's own structure (`StructureCheck.rawLayout`:
/// every embedded JPEG preview, each checked as a JPEG of its own; and,
/// when LibRaw cannot read the file, its orientation and date). The tile
/// comes from the previews that cover it, smallest first, the next when
/// one fails to decode; else from the raw data demosaiced at the smallest
/// scale that covers it (half size, or full). Never from a preview smaller
/// than the tile, and never from raw data that develops into nothing.
enum RawPictures {
    static func header(descriptor: Int32, maxPixels: Int, maxBuffer: Int, usePreview: Bool) throws -> ImageHeader {
        // The TIFF-based RAWs' directories: in the file, no loop (RawStructure).
        try StructureCheck.check(descriptor: descriptor, maxPixels: maxPixels, maxBuffer: maxBuffer)
        let walked = StructureCheck.rawLayout(descriptor: descriptor, maxPixels: maxPixels, maxBuffer: maxBuffer)
        var facts = RawFacts()
        var info: RawInfo?
        var xmp: [UInt8]?
        do {
            let file = try RawFile(descriptor: descriptor, maxMemory: maxBuffer)
            info = file.info
            // One past the reader's limit: a larger packet is refused as too large, not cut.
            xmp = file.xmp(limit: ImageHeader.sidecarLimit + 1)
        } catch {
            facts.rawProblem = "LibRaw cannot read it (\(error.message))"
        }
        if let info {
            facts.hasRawData = info.hasRawData && info.width > 0 && info.height > 0
            facts.rawBytes = product(info.rawWidth, info.rawHeight, max(1, info.rawSamples), 2)
            if facts.hasRawData {
                try limit(info.width, info.height, "raw image", maxPixels)
                try limit(info.rawWidth, info.rawHeight, "raw data", maxPixels)
            }
            // Known before decoding it: the raw data is not all in the file (`develop` says so).
            facts.rawProblem = walked.rawDataProblem
        }
        if usePreview {
            var previews = walked.previews
            if let preview = info?.preview, !previews.contains(where: { $0.offset == preview.offset }),
               let jpeg = try? StructureCheck.checkJPEG(descriptor: descriptor, offset: preview.offset,
                                                        length: preview.length, maxPixels: maxPixels, maxBuffer: maxBuffer),
               jpeg.width > 0, jpeg.height > 0 {
                previews.append(EmbeddedJPEG(offset: preview.offset, length: preview.length, width: jpeg.width,
                                             height: jpeg.height, bufferBytes: jpeg.bufferBytes))
            }
            facts.previews = previews.sorted { ($0.width * $0.height, $0.offset) < ($1.width * $1.height, $1.offset) }
            if let largest = facts.previews.last {
                (facts.previewWidth, facts.previewHeight) = (largest.width, largest.height)
                (facts.previewOffset, facts.previewBytes) = (largest.offset, largest.length)
                facts.previewBufferBytes = largest.bufferBytes
            }
        }
        guard facts.hasRawData || !facts.previews.isEmpty else {
            let what = usePreview ? "no JPEG preview" : "--raw full"
            throw VipsError(.load, "a RAW photo with \(what) and no raw data that can be decoded"
                            + (facts.rawProblem.map { ": \($0)" } ?? ""))
        }
        // Without raw data, the largest preview is the picture.
        let width = facts.hasRawData ? info?.width ?? 0 : facts.previewWidth
        let height = facts.hasRawData ? info?.height ?? 0 : facts.previewHeight
        let taken = info.flatMap { $0.timestamp > 0 ? LocalDateTime(epochSeconds: $0.timestamp) : nil } ?? walked.taken
        var header = ImageHeader(width: width, height: height, orientation: info?.orientation ?? walked.orientation ?? 1,
                                 format: "raw", bands: 3, dateTaken: info?.dateTaken ?? walked.taken?.dayName)
        header.takenAt = taken
        header.media = .raw(facts)
        header.take(embedded: xmp.map(XMPProperties.parse))
        if let info {
            let camera = CameraFacts(make: info.make, model: info.model, lens: info.lens, focalLength: info.focalLength,
                                     aperture: info.aperture, exposure: info.shutter,
                                     iso: info.isoSpeed >= 1 && info.isoSpeed < 1e7 ? Int(info.isoSpeed.rounded()) : nil)
            header.camera = camera.isEmpty ? nil : camera
        }
        return header
    }

    static func tile(descriptor: Int32, width: Int, height: Int, crop: CropMode, background: RGB,
                     header: ImageHeader, maxBuffer: Int) throws -> MediaTile {
        guard case .raw(let facts)? = header.media else { preconditionFailure("not a RAW photo's header") }
        guard let source = header.rawSource(forTile: width, height) else {
            throw VipsError(.load, "no preview of at least \(width)x\(height) (the largest is "
                            + "\(facts.previewWidth)x\(facts.previewHeight)) and no raw data that can be decoded"
                            + (facts.rawProblem.map { ": \($0)" } ?? ""))
        }
        // Again: the file may have changed since its header was read.
        try StructureCheck.check(descriptor: descriptor, maxBuffer: maxBuffer)
        var problems: [String] = []
        var half = source == .half
        if source == .preview {
            for preview in header.previews(covering: width, height) {
                do {
                    return MediaTile(pixels: try previewTile(preview, descriptor: descriptor, width: width, height: height,
                                                             crop: crop, background: background, header: header,
                                                             maxBuffer: maxBuffer),
                                     source: "preview")
                } catch let error as VipsError {
                    problems.append("the \(preview.width)x\(preview.height) preview: \(error.message)")
                }
            }
            // No preview that covers the tile decodes: the raw data is the picture.
            guard facts.hasRawData else {
                throw VipsError(.load, (problems + [facts.rawProblem ?? "no raw data that can be decoded"]).joined(separator: "; "))
            }
            half = header.rawSource(forTile: width, height, preview: false) == .half
        }
        do {
            return try develop(try open(descriptor, maxBuffer), header: header, half: half, width: width,
                               height: height, crop: crop, background: background, maxBuffer: maxBuffer)
        } catch let error as VipsError where !problems.isEmpty {
            throw VipsError(error.code, (problems + [error.message]).joined(separator: "; "))
        }
    }

    /// One preview, a JPEG of its own decoded where it lies in the file
    /// (checked again, as the file as a whole was).
    private static func previewTile(_ preview: EmbeddedJPEG, descriptor: Int32, width: Int, height: Int, crop: CropMode,
                                    background: RGB, header: ImageHeader, maxBuffer: Int) throws -> PixelBuffer {
        _ = try StructureCheck.checkJPEG(descriptor: descriptor, offset: preview.offset, length: preview.length,
                                         maxBuffer: maxBuffer)
        // The RAW's orientation, when it has one, turns the preview; else the preview's own EXIF does.
        return try ImageFile.tile(jpegIn: descriptor, offset: preview.offset, length: preview.length, width: width,
                                  height: height, crop: crop, background: background,
                                  orientation: header.orientation == 1 ? nil : header.orientation)
    }

    private static func develop(_ file: RawFile, header: ImageHeader, half: Bool, width: Int, height: Int,
                                crop: CropMode, background: RGB, maxBuffer: Int) throws -> MediaTile {
        let bytes = header.demosaicBytes(half: half)
        if bytes > maxBuffer {
            throw VipsError(.tooLarge, "demosaicing the raw data of \(header.width)x\(header.height) needs "
                            + "\(bytes >> 20) MiB at once, over the \(maxBuffer >> 20) MiB a single image may use "
                            + "(--decode-memory raises it)")
        }
        guard case .raw(let facts)? = header.media else { preconditionFailure("not a RAW photo's header") }
        func failure(_ reason: String) -> VipsError {
            guard facts.previewWidth > 0 else { return VipsError(.load, "cannot decode the raw data: \(reason)") }
            return VipsError(.load, "the largest preview (\(facts.previewWidth)x\(facts.previewHeight)) is smaller than "
                             + "the \(width)x\(height) tile and the raw data cannot be decoded: \(reason)")
        }
        if let problem = facts.rawProblem { throw failure(problem) }
        let pixels: RawPixels
        do {
            pixels = try file.develop(half: half)
        } catch {
            throw failure(error.message)
        }
        // Raw data that is all gone (zeros where the samples were) develops into black.
        if pixels.withBytes(allZero) {
            throw failure("it develops into nothing (every pixel black): its samples are missing")
        }
        let tile = try pixels.withBytes { bytes in
            // LibRaw has turned it upright.
            try ImageFile.tile(pixels: bytes, pixelWidth: pixels.width, pixelHeight: pixels.height, bands: pixels.bands,
                               width: width, height: height, crop: crop, background: background)
        }
        return MediaTile(pixels: tile, source: "raw")
    }

    /// Whether every byte is 0, eight at a time.
    private static func allZero(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let words = bytes.count / 8
        for index in 0..<words where bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self) != 0 { return false }
        for index in words * 8..<bytes.count where bytes[index] != 0 { return false }
        return true
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
