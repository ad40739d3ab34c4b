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
