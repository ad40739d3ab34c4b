import Foundation
import Vips

/// Colour-tagged videos made with ffmpeg: a pattern of four patches, the
/// same code values encoded as HLG, PQ or SDR, with one matrix or another,
/// and FFmpeg's own rendering of a frame to compare with.
public enum TestFilms {
    /// The four patches, as code values (R'G'B' of the stream's own
    /// transfer and primaries), top-left, top-right, bottom-left,
    /// bottom-right of a 320x240 picture: mid grey, a warm, a green and a
    /// cool tone, mid-tones that BT.2020's primaries keep within sRGB's
    /// gamut (where tone mappers differ by design, clipping or desaturating).
    public static let patches = [RGB(red: 0x80, green: 0x80, blue: 0x80), RGB(red: 0x9A, green: 0x70, blue: 0x60),
                                 RGB(red: 0x70, green: 0x88, blue: 0x58), RGB(red: 0x60, green: 0x78, blue: 0x90)]
    /// The same scene's code values in PQ, lower (PQ puts diffuse white at
    /// 58% where HLG puts it at 75%).
    public static let pqPatches = [RGB(red: 0x70, green: 0x70, blue: 0x70), RGB(red: 0x86, green: 0x60, blue: 0x50),
                                   RGB(red: 0x60, green: 0x78, blue: 0x4A), RGB(red: 0x50, green: 0x68, blue: 0x7E)]
    /// Each patch's centre in the 320x240 picture.
    public static let centres = [(80, 60), (240, 60), (80, 180), (240, 180)]

    private static func hex(_ rgb: RGB) -> String { "0x" + String(format: "%02X%02X%02X", rgb.red, rgb.green, rgb.blue) }

    private static func pattern(_ colours: [RGB] = patches) -> String {
        let p = colours.map(hex)
        return "color=c=\(p[0]):s=160x120:r=25:d=2[a];color=c=\(p[1]):s=160x120:r=25:d=2[b];"
            + "color=c=\(p[2]):s=160x120:r=25:d=2[c];color=c=\(p[3]):s=160x120:r=25:d=2[d];"
            + "[a][b]hstack[t];[c][d]hstack[u];[t][u]vstack,format=rgb24"
    }

    /// A 2-second 10-bit HEVC (libx265) of the pattern whose code values
    /// are `transfer`'s (`arib-std-b67` HLG, `smpte2084` PQ) in BT.2020,
    /// limited range, tagged as such in the bitstream and the container.
    /// `lightLevels`: x265's `master-display` and `max-cll` (1000 cd/m²).
    public static func hdr(_ path: String, transfer: String, lightLevels: Bool = false, size: String? = nil,
                           seconds: Double = 2) throws {
        var x265 = "log-level=error:colorprim=bt2020:transfer=\(transfer):colormatrix=bt2020nc:range=limited"
        if lightLevels {
            x265 += ":hdr10=1:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1)"
                + ":max-cll=1000,400"
        }
        let scale = size.map { "scale=\($0):flags=neighbor," } ?? ""
        let colours = transfer == "smpte2084" ? pqPatches : patches
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", pattern(colours),
                                     "-filter_complex", "[0]\(scale)scale=out_color_matrix=bt2020:out_range=tv,format=yuv420p10le",
                                     "-c:v", "libx265", "-x265-params", x265, "-t", String(seconds),
                                     "-color_primaries", "bt2020", "-color_trc", transfer, "-colorspace", "bt2020nc",
                                     "-color_range", "tv", path])
    }

    /// 3 s of FFmpeg's moving pattern at 3840x2160, 10 frames a second, as
    /// a phone records it: HEVC Main 10 (x265's fastest preset, 3 B-frames),
    /// HLG in BT.2020, a keyframe every second (x265's open GOPs: CRA
    /// keyframes naming the group before's pictures). Encoded once a run
    /// (`SharedFixture`): 4K 10-bit costs seconds of CPU.
    public static func phone4KHLG(_ path: String) throws {
        let arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=3840x2160:r=10:d=3",
                         "-vf", "scale=out_color_matrix=bt2020:out_range=tv,format=yuv420p10le",
                         "-c:v", "libx265", "-preset", "ultrafast", "-x265-params",
                         "log-level=error:keyint=10:min-keyint=10:bframes=3:colorprim=bt2020:"
                            + "transfer=arib-std-b67:colormatrix=bt2020nc", "-f", "mp4"]
        try SharedFixture.copy("ffmpeg " + arguments.joined(separator: " "), to: path) { made in
            try TestMedia.run("ffmpeg", arguments + [made])
        }
    }

    /// An 8-bit H.264 of the pattern (sRGB code values) encoded with
    /// `matrix` (`bt601`, `bt709`) and `range` (`tv`, `pc`) and tagged so;
    /// `size` its frame size (the pattern scaled by nearest neighbour).
    public static func sdr(_ path: String, matrix: String, range: String = "tv", size: String = "320x240") throws {
        let tag = matrix == "bt601" ? "smpte170m" : matrix
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", pattern(), "-filter_complex",
                                     "[0]scale=\(size):flags=neighbor,scale=out_color_matrix=\(matrix):out_range=\(range),"
                                         + "format=yuv420p",
                                     "-c:v", "libx264", "-t", "2", "-colorspace", tag, "-color_range", range,
                                     "-color_primaries", matrix == "bt601" ? "smpte170m" : "bt709",
                                     "-color_trc", matrix == "bt601" ? "smpte170m" : "bt709", path])
    }

    /// FFmpeg's own rendering of the frame at 1 s of an HDR `path` as 8-bit
    /// sRGB (width x height x 3 bytes): zscale to linear light with SDR
    /// white at 203 cd/m² (BT.2408, as ToneMap takes it), BT.709
    /// primaries, the `tonemap` filter's `mobius` (linear below its knee,
    /// as BT.2390's EETF is) from a 1000 cd/m² peak (ToneMap's, when the
    /// stream says none), then sRGB's transfer.
    public static func ffmpegToneMapped(_ path: String, width: Int = 320, height: Int = 240) throws -> [UInt8] {
        let out = path + ".reference.rgb"
        defer { try? FileManager.default.removeItem(atPath: out) }
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-ss", "1", "-i", path, "-frames:v", "1", "-vf",
                                     "zscale=t=linear:npl=203,format=gbrpf32le,zscale=p=bt709,"
                                         + "tonemap=tonemap=mobius:peak=4.926:desat=0,zscale=t=iec61966-2-1:m=gbr:r=pc,format=rgb24",
                                     "-f", "rawvideo", out])
        guard let data = FileManager.default.contents(atPath: out), data.count == width * height * 3 else {
            throw TestFailure("ffmpeg gave no \(width)x\(height) frame for \(path)")
        }
        return [UInt8](data)
    }

    /// CIE L*, C*ab and hue (degrees) of an sRGB colour (D65).
    public static func lch(_ rgb: RGB) -> (l: Double, c: Double, h: Double) {
        func linear(_ v: UInt8) -> Double {
            let c = Double(v) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        let r = linear(rgb.red), g = linear(rgb.green), b = linear(rgb.blue)
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
        func f(_ t: Double) -> Double { t > 0.008856 ? cbrt(t) : 7.787 * t + 16.0 / 116 }
        let l = 116 * f(y) - 16, a = 500 * (f(x) - f(y)), bb = 200 * (f(y) - f(z))
        var h = atan2(bb, a) * 180 / .pi
        if h < 0 { h += 360 }
        return (l, (a * a + bb * bb).squareRoot(), h)
    }
}
