import Foundation
import Vips
import XCTest

/// Colour checks: CIEDE2000 between two 8-bit sRGB colours, and photos
/// tagged with real ICC profiles made by libvips' own tools.
enum ColourDifference {
    /// CIE L*a*b* (D65) of an 8-bit sRGB colour.
    static func lab(_ colour: RGB) -> (Double, Double, Double) {
        func linear(_ value: UInt8) -> Double {
            let v = Double(value) / 255
            return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        }
        let (r, g, b) = (linear(colour.red), linear(colour.green), linear(colour.blue))
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
    }

    /// CIEDE2000 (Sharma, Wu and Dalal's formulation).
    static func deltaE2000(_ first: RGB, _ second: RGB) -> Double {
        let (l1, a1, b1) = lab(first), (l2, a2, b2) = lab(second)
        let degrees = 180 / Double.pi
        let cBar = (hypot(a1, b1) + hypot(a2, b2)) / 2
        let g = 0.5 * (1 - sqrt(pow(cBar, 7) / (pow(cBar, 7) + pow(25, 7))))
        let (a1p, a2p) = ((1 + g) * a1, (1 + g) * a2)
        let (c1p, c2p) = (hypot(a1p, b1), hypot(a2p, b2))
        func hue(_ b: Double, _ a: Double) -> Double {
            if a == 0 && b == 0 { return 0 }
            let h = atan2(b, a) * degrees
            return h < 0 ? h + 360 : h
        }
        let (h1p, h2p) = (hue(b1, a1p), hue(b2, a2p))
        let dL = l2 - l1, dC = c2p - c1p
        var dh = 0.0
        if c1p * c2p != 0 {
            dh = h2p - h1p
            if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 }
        }
        let dH = 2 * sqrt(c1p * c2p) * sin(dh / 2 / degrees)
        let lBar = (l1 + l2) / 2, cBarP = (c1p + c2p) / 2
        var hBar = h1p + h2p
        if c1p * c2p != 0 {
            if abs(h1p - h2p) > 180 { hBar += h1p + h2p < 360 ? 360 : -360 }
            hBar /= 2
        }
        let t = 1 - 0.17 * cos((hBar - 30) / degrees) + 0.24 * cos(2 * hBar / degrees)
            + 0.32 * cos((3 * hBar + 6) / degrees) - 0.20 * cos((4 * hBar - 63) / degrees)
        let dTheta = 30 * exp(-pow((hBar - 275) / 25, 2))
        let rC = 2 * sqrt(pow(cBarP, 7) / (pow(cBarP, 7) + pow(25, 7)))
        let sL = 1 + 0.015 * pow(lBar - 50, 2) / sqrt(20 + pow(lBar - 50, 2))
        let sC = 1 + 0.045 * cBarP, sH = 1 + 0.015 * cBarP * t
        let rT = -sin(2 * dTheta / degrees) * rC
        return sqrt(pow(dL / sL, 2) + pow(dC / sC, 2) + pow(dH / sH, 2) + rT * (dC / sC) * (dH / sH))
    }
}

extension CLITestCase {
    /// In-gamut colours of everyday photos (a red, a green, a blue, skin,
    /// sky, a grey), as vertical stripes of 100 pixels on a 600x400 image.
    static let patches: [RGB] = [
        RGB(red: 200, green: 30, blue: 30), RGB(red: 40, green: 160, blue: 60), RGB(red: 40, green: 60, blue: 180),
        RGB(red: 225, green: 172, blue: 140), RGB(red: 110, green: 160, blue: 215), RGB(red: 128, green: 128, blue: 128),
    ]

    /// `patches` as an untagged sRGB PNG.
    func writePatches(to relative: String) throws {
        var picture = PixelBuffer(width: 600, height: 400, fill: .white)
        for (index, colour) in Self.patches.enumerated() {
            picture.place(PixelBuffer(width: 100, height: 400, fill: colour), x: index * 100, y: 0)
        }
        write(try Encoder.encode(picture, suffix: ".png[strip]").bytes, to: relative)
    }

    /// Runs a tool (vips, exiftool) in the test folder; fails the test if it fails.
    @discardableResult
    func tool(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> ProcessResult {
        let result = try runProcess(arguments.map(b), directory: dir)
        XCTAssertEqual(result.status, 0, "\(arguments.joined(separator: " ")): \(result.stderrText)", file: file, line: line)
        return result
    }

    /// The ICC profile a written file carries (libvips reads it back), or nil.
    func embeddedProfile(_ relative: String) throws -> [UInt8]? {
        let result = try runProcess([b("vipsheader"), b("-f"), b("icc-profile-data"), b(path(relative))], directory: dir)
        guard result.status == 0 else { return nil }
        let text = result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        return Data(base64Encoded: text).map { Array($0) }
    }
}
