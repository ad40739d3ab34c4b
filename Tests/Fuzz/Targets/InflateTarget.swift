import CPNG

/// CPNG's inflate against zlib's on the same raw deflate stream (the
/// input). Invariants: with the size zlib's own inflate makes of the
/// stream (all of it when zlib ends it, what it made before it stopped
/// when zlib refuses it), CPNG accepts exactly when zlib does, and then
/// makes the same bytes; one byte less room or one more to fill, both
/// refuse. Never a crash, whatever the stream.
enum InflateTarget {
    static let inflate = FuzzTarget("inflate", maxLength: 8192, mallocLimitMB: 64) { stream in
        let made = zlibMade(stream)
        for size in [made, made + 1, made - 1] where size >= 0 {
            var zlib = [UInt8](repeating: 0xA5, count: size), ours = [UInt8](repeating: 0x5A, count: size)
            var ignored = 0
            let expected = cpng_inflate_zlib(stream, stream.count, &zlib, size, &ignored)
            let got = cpng_inflate(stream, stream.count, &ours, size)
            guard expected == got else {
                return "zlib says \(expected), CPNG \(got), for \(size) bytes of \(stream.count) compressed"
            }
            if got == 0, zlib != ours { return "CPNG's \(size) bytes differ from zlib's" }
        }
        return nil
    }

    /// How many bytes zlib makes of `stream` before it ends or stops (at
    /// most 4 MiB): the smallest size it does not stop for want of room.
    static func zlibMade(_ stream: [UInt8]) -> Int {
        var size = 4096
        while true {
            var buffer = [UInt8](repeating: 0, count: size), made = 0
            _ = cpng_inflate_zlib(stream, stream.count, &buffer, size, &made)
            if made < size || size >= 4 << 20 { return made }
            size *= 4
        }
    }
}
