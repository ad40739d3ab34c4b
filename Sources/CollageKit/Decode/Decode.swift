import FileFacts
import Glibc
import Media
import Vips

/// One image decoded to its frame, ready to place.
struct DecodedTile: Sendable {
    let path: PathName
    let header: ImageHeader
    let pixels: PixelBuffer
    /// The frame it was decoded for: the composer decodes again if the
    /// sheet's layout gives it another.
    let frame: Frame
    /// The file the header was read from, still open: a sheet whose frames
    /// differ from the ones decoded ahead decodes it again from the same
    /// bytes. nil when the sheet is too large to keep a descriptor per image.
    let file: OpenFile?
    /// Counts the tile as held by its run while it lives.
    var held: HeldTile? = nil
    /// With `--flag`: taken from the pixels where they were decoded.
    var signature: TileSignature? = nil
    /// Set when the tile is a pair's RAW or movie shown because the still
    /// failed to decode: says so (see `Decode.decodePartner`).
    var standIn: String? = nil
    /// A RAW photo's "preview" or "raw"; a video's frame time, in seconds.
    var source: String? = nil
    var frameTime: Double? = nil
    /// What decided its crop ("faces", "attention", "entropy", "centre"),
    /// and why its XMP's face regions were not (all) used, if they were not.
    var focus: TileFocus? = nil
    /// A `--diff` cell: the pair it shows (its caption's fields).
    var comparison: ComparedPair? = nil
    /// A `--frames` tile: the candidates near its time not taken, and why.
    var filmPassedOver: [String]? = nil
}

/// The resize stage: libvips' thumbnail straight to the frame's size, with
/// its crop. It runs on a worker thread, once the decode window has
/// reserved its memory (`cost`); the result carries the path for reporting.
struct Decode: Sendable {
    let background: RGB
    /// The frame of each slot of a full sheet, for decoding ahead of the
    /// cut (layouts that place by count); the n-th accepted image gets slot
    /// n mod the sheet's size.
    var slots: [Frame] = []
    /// The most one decoder buffer may hold: the run's decode budget, and
    /// at least `StructureCheck.bufferLimit`.
    var maxBuffer = StructureCheck.bufferLimit
    /// Counts the decodes running and the tiles held.
    var instrumentation: (any StageInstrumentation)? = nil
    /// Whether the tile keeps its image's file open (see `DecodedTile.file`).
    var keepsFile = true
    /// `--flag`: take each tile's signature on the worker that decoded it.
    var signs = false
    /// The header check of a still's partners, which stand in for it when
    /// it fails to decode; nil: no stand-ins.
    var partnerProbe: Probe? = nil

    /// The frame of the image's slot in a full sheet.
    func slot(of image: AcceptedImage) -> Frame {
        precondition(!slots.isEmpty, "decoding ahead needs the frames of a full sheet")
        return slots[image.ordinal % slots.count]
    }

    /// Decodes to the frame of the image's slot in a full sheet.
    func callAsFunction(_ image: AcceptedImage) -> Result<DecodedTile, DecodeFailure> {
        decode(image, to: slot(of: image))
    }

    /// What decoding `header` to `frame` costs: the decoder's memory while
    /// it runs (the header's estimate), and the tile's pixels while they wait.
    static func cost(_ header: ImageHeader, to frame: Frame) -> WorkCost {
        WorkCost(running: header.decodeBytes(forTile: frame.image.width, frame.image.height), held: tileBytes(frame))
    }

    /// The bytes of the 8-bit RGB tile decoded for `frame`.
    static func tileBytes(_ frame: Frame) -> Int { frame.image.width * frame.image.height * 3 }

    func decode(_ image: AcceptedImage, to frame: Frame) -> Result<DecodedTile, DecodeFailure> {
        do {
            let tile = try (instrumentation?.decoding ?? { try $0() }) {
                try MediaFile.tile(descriptor: image.file.descriptor, width: frame.image.width,
                                   height: frame.image.height, crop: frame.crop,
                                   background: background, header: image.header, maxBuffer: maxBuffer)
            }
            let pixels = tile.pixels
            return .success(DecodedTile(path: image.path, header: image.header, pixels: pixels, frame: frame,
                                        file: keepsFile ? image.file : nil,
                                        held: instrumentation?.holding(tileBytes: pixels.byteCount),
                                        signature: signs ? TileSignature(pixels) : nil,
                                        source: tile.source, frameTime: tile.frameTime, focus: tile.focus))
        } catch {
            let failure = DecodeFailure(path: image.path, message: String(describing: error))
            return decodePartner(of: image, to: frame, after: failure) ?? .failure(failure)
        }
    }
}

struct DecodeFailure: Error, Sendable {
    let path: PathName
    let message: String
    /// A picture could not be kept on disc (`TemporaryFileError`): the
    /// disc's trouble, not the file's.
    var temporaryFile = false
}

extension Decode {
    /// Whether `count` images can each keep a file open without running out
    /// of descriptors (a --max in the thousands could).
    static func canKeepFiles(_ count: Int) -> Bool {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return false }
        return limit.rlim_cur == rlim_t.max || UInt64(count) * 2 + 64 <= UInt64(limit.rlim_cur)
    }
}
