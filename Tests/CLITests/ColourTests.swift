import Foundation
import Vips
import XCTest

/// Colour management: each photo is converted from its embedded ICC
/// profile to sRGB, as lcms converts it (`vips icc_transform`, the same
/// library's own conversion of the same file), and every written format
/// that can carry a profile carries sRGB's.
final class ColourTests: CLITestCase {
    static let adobeRGB = "/usr/share/color/icc/colord/AdobeRGB1998.icc"
    static let proPhoto = "/usr/share/color/icc/colord/ProPhotoRGB.icc"
    static let grey = "/usr/share/color/icc/Gray.icc"

    /// `name`, made from the sRGB patches converted to `profile` (a file,
    /// or libvips' built-in "p3" or "cmyk") with the profile embedded.
    func tagged(_ name: String, profile: String, depth: Int = 8) throws {
        try writePatches(to: "patches.png")
        try tool(["vips", "icc_transform", "patches.png", name, profile, "--input-profile", "srgb", "--depth", "\(depth)"])
    }

    /// Makes a one-image sheet of `name` at half size, and checks each
    /// patch's centre against lcms' conversion of the same file (with its
    /// embedded profile, or `input` when it has none) within ΔE2000 2.
    /// `grey`: every patch is compared (a grey profile's gamut is the greys the patches become).
    func assertMatchesLcms(_ name: String, input: String? = nil, grey: Bool = false,
                           file: StaticString = #filePath, line: UInt = #line) throws {
        var reference = ["vips", "icc_transform", name, "reference.png[strip]", "srgb", "--embedded"]
        if let input { reference += ["--input-profile", input] }
        try tool(reference, file: file, line: line)
        let result = try collage([name, "--size", "300x200", "-o", "sheet.png"])
        XCTAssertEqual(result.status, 0, result.stderrText, file: file, line: line)
        guard let sheet = decoded("sheet.png", file: file, line: line),
              let lcms = decoded("reference.png", file: file, line: line) else { return }
        var checked = 0
        for (index, original) in Self.patches.enumerated() {
            let ours = sheet.pixel(x: 25 + index * 50, y: 100), theirs = lcms.pixel(x: 50 + index * 100, y: 200)
            // In gamut: the profile holds the colour (a CMYK press's does not hold every sRGB blue).
            guard grey || ColourDifference.deltaE2000(original, theirs) <= 3 else { continue }
            checked += 1
            let difference = ColourDifference.deltaE2000(ours, theirs)
            XCTAssertLessThanOrEqual(difference, 2, "\(name) patch \(index): \(ours) on the sheet, \(theirs) by lcms",
                                     file: file, line: line)
        }
        XCTAssertGreaterThanOrEqual(checked, 4, "\(name): too few colours in gamut", file: file, line: line)
    }

    func testAdobeRGBPhotoIsConvertedAsLcmsDoes() throws {
        try tagged("adobe.jpg[Q=98]", profile: Self.adobeRGB)
        try assertMatchesLcms("adobe.jpg")
        // Read as if it were sRGB, the red would land at about 171,35,35.
        let sheet = try XCTUnwrap(decoded("sheet.png"))
        XCTAssertGreaterThan(sheet.pixel(x: 25, y: 100).red, 190)
    }

    func testProPhotoPhotoIsConvertedAsLcmsDoes() throws {
        try tagged("prophoto.jpg[Q=98]", profile: Self.proPhoto)
        try assertMatchesLcms("prophoto.jpg")
    }

    func testDisplayP3PhotoIsConvertedAsLcmsDoes() throws {
        try tagged("p3.webp[Q=98]", profile: "p3")
        try assertMatchesLcms("p3.webp")
        try tagged("p3.jpg[Q=98]", profile: "p3")
        try assertMatchesLcms("p3.jpg")
        // As an iPhone stores it: HEIC with a Display P3 profile.
        try tagged("p3.heic[Q=95]", profile: "p3")
        try assertMatchesLcms("p3.heic")
    }

    func testCMYKWithAndWithoutAProfile() throws {
        try tagged("cmyk.jpg[Q=98]", profile: "cmyk")
        try assertMatchesLcms("cmyk.jpg")
        // The same pixels without their profile: a standard CMYK profile.
        try tool(["vips", "copy", "cmyk.jpg", "bare.jpg[strip,Q=98]"])
        XCTAssertNil(try embeddedProfile("bare.jpg"))
        try assertMatchesLcms("bare.jpg", input: "cmyk")
    }

    func testSixteenBitPNGAndTIFFKeepTheirPrecision() throws {
        try tagged("deep.png", profile: Self.proPhoto, depth: 16)
        try assertMatchesLcms("deep.png")
        try tagged("deep.tif", profile: Self.proPhoto, depth: 16)
        try assertMatchesLcms("deep.tif")
    }

    func testGreyWithAProfile() throws {
        try tagged("grey.png", profile: Self.grey)
        try assertMatchesLcms("grey.png", grey: true)
        try tagged("grey16.png", profile: Self.grey, depth: 16)
        try assertMatchesLcms("grey16.png", grey: true)
    }

    /// Untagged photos are sRGB already: their pixels do not change.
    func testUntaggedPixelsAreKept() throws {
        try writePatches(to: "plain.png")
        let result = try collage(["plain.png", "--size", "600x400", "-o", "sheet.png"])
        XCTAssertEqual(result.status, 0, result.stderrText)
        let sheet = try XCTUnwrap(decoded("sheet.png"))
        for (index, colour) in Self.patches.enumerated() {
            XCTAssertEqual(sheet.pixel(x: 50 + index * 100, y: 200), colour)
        }
    }

    /// Every format that can carry a profile carries sRGB's: libvips' own,
    /// byte for byte, or (JPEG XL, which stores colour as an encoding) one
    /// that converts the sheet's colours to themselves.
    func testEveryOutputCarriesTheSRGBProfile() throws {
        try tagged("adobe.jpg[Q=98]", profile: Self.adobeRGB)
        var profiles: [String: [UInt8]] = [:]
        for format in ["jpg", "png", "webp", "tif", "heic", "jxl"] {
            let result = try collage(["adobe.jpg", "--size", "300x200", "-o", "sheet.\(format)"])
            XCTAssertEqual(result.status, 0, "\(format): \(result.stderrText)")
            let profile = try XCTUnwrap(try embeddedProfile("sheet.\(format)"), "\(format) carries no profile")
            XCTAssertEqual(Array(profile[36..<40]), b("acsp"), format)
            XCTAssertEqual(Array(profile[16..<20]), b("RGB "), format)
            profiles[format] = profile
            try tool(["vips", "icc_transform", "sheet.\(format)", "as-srgb.png[strip]", "srgb", "--embedded"])
            try tool(["vips", "copy", "sheet.\(format)", "as-is.png[strip]"])
            let converted = try XCTUnwrap(decoded("as-srgb.png")), kept = try XCTUnwrap(decoded("as-is.png"))
            for index in Self.patches.indices {
                let (x, y) = (25 + index * 50, 100)
                XCTAssertLessThanOrEqual(ColourDifference.deltaE2000(converted.pixel(x: x, y: y), kept.pixel(x: x, y: y)), 1,
                                         "\(format)'s profile is not sRGB's")
            }
        }
        for format in ["png", "webp", "tif", "heic"] {
            XCTAssertEqual(profiles[format], profiles["jpg"], "\(format) carries another profile than the JPEG")
        }
        XCTAssertTrue(String(decoding: profiles["jpg"]!, as: UTF8.self).contains("sRGB"))
        // GIF has no place for one, and still writes.
        let gif = try collage(["adobe.jpg", "--size", "300x200", "-o", "sheet.gif"])
        XCTAssertEqual(gif.status, 0, gif.stderrText)
    }

    /// --diff compares colour-managed pictures and writes sRGB's profile.
    func testDiffComparesManagedColourAndTagsItsSheet() throws {
        makeFolder("before")
        makeFolder("after")
        try writePatches(to: "before/shot.png")
        // The same colours, stored as Adobe RGB: no pixel differs once managed.
        try tagged("after/shot.png", profile: Self.adobeRGB, depth: 16)
        let same = try collage(["--diff", "before", "after", "-o", "diff.png", "--json"])
        XCTAssertEqual(same.status, 0, same.stdoutText + same.stderrText)
        XCTAssertFalse(exists("diff.png"))
        try writePatches(to: "after/other.png")
        try writePatches(to: "before/other.png")
        try tool(["vips", "icc_transform", "patches.png", "after/other.png", Self.adobeRGB, "--input-profile", "srgb"])
        try tool(["vips", "copy", "after/other.png", "after/wrong.png[strip]"])
        try tool(["mv", "after/wrong.png", "after/other.png"])
        let changed = try collage(["--diff", "before", "after", "-o", "diff.png"])
        XCTAssertEqual(changed.status, 1, changed.stderrText)
        XCTAssertNotNil(try embeddedProfile("diff.png"))
    }
}
