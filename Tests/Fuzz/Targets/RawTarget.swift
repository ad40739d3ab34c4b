import FileFacts
import Raw

/// LibRaw's parsers through `RawFile.inspect(bytes:)`: identify, the
/// preview's extraction and, for every other input, the half-size demosaic.
/// Invariants: it returns; what it reads through its stream stays within
/// four times the file plus 64 MiB; the preview it places lies in the
/// file; a demosaic it made has a size. Its allocations are held to
/// the decode memory it was given and more (libFuzzer's -malloc_limit_mb).
enum RawTarget {
    static let maxMemory = 64 << 20

    static let inspect = FuzzTarget("raw", maxLength: 65536, mallocLimitMB: 256) { bytes in
        let inspection = RawFile.inspect(bytes: bytes, maxMemory: maxMemory, develop: bytes.count % 2 == 0)
        let bound = UInt64(4 * bytes.count + (64 << 20))
        let info = inspection.info
        let preview = info?.preview
        return first(
            inspection.bytesRead <= bound ? nil : "read \(inspection.bytesRead) bytes of a \(bytes.count)-byte file",
            info == nil || info?.fileSize == bytes.count ? nil : "a \(bytes.count)-byte file said to be \(info!.fileSize)",
            preview.map { $0.offset >= 0 && $0.length > 0 && $0.offset + $0.length <= bytes.count } ?? true ? nil
                : "a preview of \(preview!.length) bytes at \(preview!.offset) of a \(bytes.count)-byte file",
            inspection.developed.map { $0.width > 0 && $0.height > 0 } ?? true ? nil
                : "a demosaic of \(inspection.developed!.width)x\(inspection.developed!.height)")
    }
}

/// The walk of a RAW's own structure (`StructureCheck.rawLayout`: TIFF
/// directories and maker notes, RAF's header, CR3's boxes). Invariants: it
/// returns, the same way twice; every preview it gives lies in the file,
/// has a size, and they come smallest first; an orientation is 1-8.
enum RawLayoutTarget {
    static let walk = FuzzTarget("raw-layout", maxLength: 16384, mallocLimitMB: 64) { bytes in
        ScratchFile.first.holding(bytes) { descriptor in
            let layout = StructureCheck.rawLayout(descriptor: descriptor)
            let areas = layout.previews.map { $0.width * $0.height }
            return first(
                layout == StructureCheck.rawLayout(descriptor: descriptor) ? nil : "two walks of the same bytes disagree",
                layout.previews.allSatisfy { $0.offset >= 0 && $0.length > 0 && $0.offset <= bytes.count - $0.length } ? nil
                    : "a preview outside the \(bytes.count)-byte file: \(layout.previews)",
                layout.previews.allSatisfy { $0.width > 0 && $0.height > 0 } ? nil : "a preview without a size",
                areas == areas.sorted() ? nil : "previews not smallest first: \(layout.previews)",
                layout.orientation.map { (1...8).contains($0) } ?? true ? nil : "orientation \(layout.orientation!)")
        }
    }
}
