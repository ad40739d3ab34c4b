import Foundation
import Glibc
import XCTest

/// Pages rendered by headless Chromium for the `--diff` tests
/// (DiffRenderedPageTests, DiffDebianPageTests): tall pages of sections of
/// one size, one under the other, each taken three ways and cut into one
/// PNG a section with `vips crop`.
extension CLITestCase {
    /// Takes each of `pages` (an HTML file in `folder` holding sections of
    /// `width` x `height`, one under the other, named in order) with
    /// chromium three ways: its default rendering ("default"), fontconfig's
    /// hinting off ("hintnone": the same glyphs re-hinted) and sub-pixel
    /// glyph positioning off ("nosub"); and cuts each section into
    /// folder/KIND/NAME.png: every one for "default", for the other two
    /// those `everyWay` keeps (a page none of whose sections it keeps is
    /// taken once). `flags` go to every chromium run.
    func renderSections(_ pages: [(file: String, names: [String])], in folder: String, width: Int, height: Int,
                        everyWay: (String) -> Bool, flags: [String] = []) throws {
        guard haveProgram("chromium") else { throw XCTSkip("chromium is not installed (scripts/test installs it)") }
        guard haveProgram("vips") else { throw XCTSkip("vips is not installed (scripts/test installs it)") }
        let fonts = """
            <?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">
            <fontconfig><include ignore_missing="yes">/etc/fonts/fonts.conf</include>
            <match target="font"><edit name="hinting" mode="assign"><bool>false</bool></edit>
            <edit name="hintstyle" mode="assign"><const>hintnone</const></edit></match></fontconfig>
            """
        try fonts.write(toFile: folder + "/hintnone.conf", atomically: true, encoding: .utf8)
        for (kind, extra, environment) in [("default", [String](), [String: String]()),
                                           ("hintnone", [], ["FONTCONFIG_FILE": folder + "/hintnone.conf"]),
                                           ("nosub", ["--disable-font-subpixel-positioning"], [:])] {
            try FileManager.default.createDirectory(atPath: folder + "/" + kind, withIntermediateDirectories: true)
            for (number, page) in pages.enumerated() where kind == "default" || page.names.contains(where: everyWay) {
                let shot = folder + "/\(kind)-\(number).png"
                let result = try runProcess((["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                                              "--hide-scrollbars", "--user-data-dir=" + folder + "/.chromium-" + kind,
                                              "--window-size=\(width),\(page.names.count * height)",
                                              "--screenshot=" + shot] + extra + flags
                                             + ["file://" + folder + "/" + page.file]).map(b),
                                            environment: environment, timeout: 300)
                XCTAssertEqual(result.status, 0, result.summary)
                for (index, name) in page.names.enumerated() where kind == "default" || everyWay(name) {
                    let cut = try runProcess(["vips", "crop", shot, folder + "/\(kind)/\(name).png", "0",
                                              "\(index * height)", "\(width)", "\(height)"].map(b))
                    XCTAssertEqual(cut.status, 0, cut.summary)
                }
            }
        }
    }

    /// Copies rendered pictures, (name, baseline, current) with the last
    /// two below `folder`, to BASE/NAME.png and SHOTS/NAME.png.
    func copyPairs(_ list: [(String, String, String)], from folder: String, base: String = "base",
                   shots: String = "shots") throws {
        makeFolder(base); makeFolder(shots)
        for (name, before, after) in list {
            write([UInt8](try XCTUnwrap(FileManager.default.contents(atPath: folder + "/" + before))), to: "\(base)/\(name).png")
            write([UInt8](try XCTUnwrap(FileManager.default.contents(atPath: folder + "/" + after))), to: "\(shots)/\(name).png")
        }
    }

    /// The `compared` events of a run, by their file's name less ".png".
    /// The `compared` event of each pair of `list`, with its status, in
    /// the list's order: each found, none with a pixel counted (what the
    /// noise and shift tests ask first).
    func uncounted(_ result: ProcessResult, _ list: [(String, String, String)]) throws
        -> [(name: String, pair: [String: Any], status: String)] {
        let found = comparedByName(result)
        XCTAssertEqual(found.count, list.count)
        return try list.map { name, _, _ in
            let pair = try XCTUnwrap(found[name], name)
            XCTAssertEqual(pair["pixels"] as? Int, 0, "\(name): \(pair)")
            return (name, pair, pair["status"] as? String ?? "")
        }
    }

    func comparedByName(_ result: ProcessResult) -> [String: [String: Any]] {
        var byName: [String: [String: Any]] = [:]
        for event in events(jsonEvents(result), "compared") {
            let path = event["path"] as? String ?? ""
            byName[String((path as NSString).lastPathComponent.dropLast(4))] = event
        }
        return byName
    }
}

/// A test class whose pages are rendered once for all its tests
/// (`renderPages`), in a folder removed when its tests end.
class RenderedPagesTestCase: CLITestCase {
    nonisolated(unsafe) private static var folders: [String: String] = [:]

    /// Renders the class's pages into a new folder: folder/{default,hintnone,nosub}/NAME.png.
    func renderPages() throws -> String { fatalError("\(type(of: self)) renders no pages") }

    /// The class's rendered pages, rendered by the first test that asks.
    func rendered() throws -> String {
        let key = String(describing: type(of: self))
        if let folder = Self.folders[key] { return folder }
        let folder = try renderPages()
        Self.folders[key] = folder
        return folder
    }

    override class func tearDown() {
        if let folder = folders.removeValue(forKey: String(describing: self)) {
            _ = try? FileManager.default.removeItem(atPath: folder)
        }
        super.tearDown()
    }
}
