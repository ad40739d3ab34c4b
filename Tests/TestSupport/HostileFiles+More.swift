// The GIF, WebP, HEIF and JPEG part of the hostile catalogue.

extension Hostile {
    // MARK: GIF

    /// A GIF89a of screen `width` x `height` and one 1x1 frame at (x, y).
    public static func gif(screen width: Int, _ height: Int, frameAt x: Int = 0, _ y: Int = 0,
                           frame: (Int, Int) = (1, 1)) -> [UInt8] {
        ascii("GIF89a") + le16(width) + le16(height) + [0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
            + [0x2C] + le16(x) + le16(y) + le16(frame.0) + le16(frame.1) + [0]
            + [2, 2, 0x4C, 0x01, 0] + [0x3B]
    }

    static var gif: [HostileFile] {
        [
            HostileFile(name: "gif-screen-16000.gif", bytes: gif(screen: 16000, 16000),
                        verdict: "rejected:too-large", reason: "gif screen of 16000x16000"),
            HostileFile(name: "gif-frame-outside.gif", bytes: gif(screen: 16, 16, frameAt: 60000, 60000),
                        verdict: "failed", reason: "lies outside the 16x16 screen"),
            HostileFile(name: "gif-frame-larger.gif", bytes: gif(screen: 16, 16, frame: (65535, 65535)),
                        verdict: "failed", reason: "frame 1 of 65535x65535"),
        ]
    }

    // MARK: WebP

    /// A RIFF WEBP of `chunks`; `riffSize` overrides the declared size.
    public static func webp(_ chunks: [UInt8], riffSize: Int? = nil) -> [UInt8] {
        ascii("RIFF") + le32(riffSize ?? chunks.count + 4) + ascii("WEBP") + chunks
    }

    public static func webpChunk(_ type: String, _ data: [UInt8], size: Int? = nil) -> [UInt8] {
        ascii(type) + le32(size ?? data.count) + data + (data.count % 2 == 1 ? [0] : [])
    }

    /// A VP8L header of `width` x `height` (no image data behind it).
    public static func vp8l(_ width: Int, _ height: Int) -> [UInt8] {
        webpChunk("VP8L", [0x2F] + le32((width - 1) | (height - 1) << 14))
    }

    /// A VP8X chunk: canvas `width` x `height`, `flags` (0x02 animated).
    public static func vp8x(_ width: Int, _ height: Int, flags: UInt8 = 0) -> [UInt8] {
        let w = width - 1, h = height - 1
        return webpChunk("VP8X", [flags, 0, 0, 0] + Array(le32(w).prefix(3)) + Array(le32(h).prefix(3)))
    }

    static var webp: [HostileFile] {
        [
            HostileFile(name: "webp-riff-1GiB.webp", bytes: webp(vp8l(16, 16), riffSize: 1 << 30),
                        verdict: "failed", reason: "RIFF of 1073741824 bytes"),
            HostileFile(name: "webp-chunk-1GiB.webp", bytes: webp(webpChunk("VP8L", [0x2F, 0, 0, 0, 0], size: 1 << 30)),
                        verdict: "failed", reason: "chunk VP8L of 1073741824 bytes"),
            HostileFile(name: "webp-canvas-16M.webp", bytes: webp(vp8x(1 << 24, 1 << 24) + vp8l(16, 16)),
                        verdict: "rejected:too-large", reason: "16777216x16777216"),
            HostileFile(name: "webp-animated-12000.webp", bytes: webp(vp8x(12000, 12000, flags: 0x02) + vp8l(16, 16)),
                        verdict: "rejected:too-large", reason: "animated webp canvas of 12000x12000"),
            HostileFile(name: "webp-frame-off-canvas.webp", bytes: webp(vp8x(16, 16) + vp8l(4000, 16)),
                        verdict: "failed", reason: "VP8L image of 4000x16"),
        ]
    }

    // MARK: HEIF

    /// An ISO base media box; `size` overrides the declared size.
    public static func box(_ type: String, _ payload: [UInt8], size: Int? = nil) -> [UInt8] {
        be32(size ?? payload.count + 8) + ascii(type) + payload
    }

    /// A full box: version and flags first.
    public static func fullBox(_ type: String, version: UInt8 = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version, 0, 0, 0] + payload)
    }

    public static let ftyp = box("ftyp", ascii("heic") + be32(0) + ascii("mif1") + ascii("heic"))

    /// A HEIF whose meta box holds `children`, then an mdat of `data`.
    public static func heif(meta children: [UInt8], data: [UInt8] = [0, 0, 0, 0]) -> [UInt8] {
        ftyp + fullBox("meta", fullBox("hdlr", be32(0) + ascii("pict") + [UInt8](repeating: 0, count: 13)) + children)
            + box("mdat", data)
    }

    /// An ipco with one ispe of `width` x `height`.
    public static func ispe(_ width: Int, _ height: Int) -> [UInt8] {
        box("iprp", box("ipco", fullBox("ispe", be32(width) + be32(height))))
    }

    /// An iloc (version 0, 4-byte offsets and lengths) of one item with one extent.
    public static func iloc(offset: Int, length: Int, extents: Int = 1) -> [UInt8] {
        fullBox("iloc", [0x44, 0x00] + be16(1) + be16(1) + be16(0) + be16(extents) + be32(offset) + be32(length))
    }

    static var heif: [HostileFile] {
        let meta = fullBox("meta", [UInt8](repeating: 0, count: 16))
        return [
            HostileFile(name: "heif-meta-1GiB.heic", bytes: ftyp + Array(meta.dropFirst(4)).withSize(1 << 30),
                        verdict: "failed", reason: "box meta of 1073741824 bytes"),
            HostileFile(name: "heif-iinf-60000.heic", bytes: heif(meta: fullBox("iinf", be16(60000))),
                        verdict: "failed", reason: "iinf claims 60000 items"),
            HostileFile(name: "heif-ispe-100000.heic", bytes: heif(meta: ispe(100_000, 100_000)),
                        verdict: "rejected:too-large", reason: "100000x100000"),
            HostileFile(name: "heif-ispe-12000.heic", bytes: heif(meta: ispe(12000, 12000)),
                        verdict: "rejected:too-large", reason: "heif image of 12000x12000"),
            HostileFile(name: "heif-extent-1GiB.heic", bytes: heif(meta: iloc(offset: 100, length: 1 << 30)),
                        verdict: "failed", reason: "extent of 1073741824 bytes"),
            HostileFile(name: "heif-60000-extents.heic", bytes: heif(meta: iloc(offset: 100, length: 4, extents: 60000)),
                        verdict: "failed", reason: "claims 60000 extents"),
        ]
    }

    // MARK: JPEG

    /// A progressive JPEG frame header claiming `width` x `height`, 3 components 4:2:0.
    public static func progressiveJPEG(_ width: Int, _ height: Int) -> [UInt8] {
        [0xFF, 0xD8] + [0xFF, 0xC2] + be16(17) + [8] + be16(height) + be16(width)
            + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1] + [0xFF, 0xD9]
    }

    static var jpeg: [HostileFile] {
        [HostileFile(name: "jpeg-progressive-16000.jpg", bytes: progressiveJPEG(16000, 16000),
                     verdict: "rejected:too-large", reason: "progressive jpeg of 16000x16000")]
    }
}

extension Array where Element == UInt8 {
    /// A box's bytes (its 4-byte size removed) with another declared size.
    func withSize(_ size: Int) -> [UInt8] { be32(size) + self }
}
