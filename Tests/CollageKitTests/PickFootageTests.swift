import CollageTestSupport
import Glibc
import XCTest
@testable import CollageKit
@testable import Vips

/// `--pick` on bursts cut from real footage, as a phone takes them: five
/// frames 0.2 s apart (EXIF times with their sub-seconds) of something
/// moving. The footage is Debian's opencv-doc examples (scripts/test
/// installs it): vtest.avi, a street seen from above with people walking
/// (768x576, 10 frames a second); Megamind.avi, an animated film with cuts
/// between its shots (720x528, 24 frames a second); tree.avi. The day
/// also has single shots of other scenes hours apart, a shot defocused by
/// a blur of sigma 14 and a near-black pocket shot.
final class PickFootageTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private static let footage = "/usr/share/doc/opencv-doc/examples/data/"

    override func setUpWithError() throws {
        try Vips.start()
        folder = try TemporaryDirectory()
    }

    override func tearDown() { folder = nil }

    private func path(_ name: String) -> String { folder("day/" + name).description }

    /// Five frames of `clip` from `start` seconds, five a second (`filter`
    /// after the rate: `n` is the frame's number), as NAME-1.jpg to NAME-5.jpg,
    /// taken 0.2 s apart from `time`.
    private func burst(_ name: String, _ clip: String, from start: Double, filter: String? = nil,
                       taken time: String) throws {
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-ss", String(start), "-i", Self.footage + clip,
                                     "-vf", "fps=5" + (filter.map { "," + $0 } ?? ""), "-frames:v", "5",
                                     "-q:v", "2", path(name + "-%d.jpg")])
        for frame in 1...5 {
            try taken(time, subSeconds: String(format: "%03d", (frame - 1) * 200), name + "-\(frame).jpg")
        }
    }

    /// One frame of `clip` at `second`.
    private func frame(_ name: String, _ clip: String, at second: Double) throws {
        try TestMedia.run("ffmpeg", ["-v", "error", "-y", "-ss", String(second), "-i", Self.footage + clip,
                                     "-frames:v", "1", "-q:v", "2", path(name)])
    }

    private func taken(_ time: String, subSeconds: String = "000", _ name: String) throws {
        try TestMedia.run("exiftool", ["-q", "-overwrite_original", "-DateTimeOriginal=2026:08:14 " + time,
                                       "-SubSecTimeOriginal=" + subSeconds, path(name)])
    }

    /// Three bursts of something moving, three single shots, a defocused and a pocket shot.
    private func makeDay() throws {
        guard access(Self.footage + "vtest.avi", R_OK) == 0 else {
            throw TestFailure("no \(Self.footage)vtest.avi: Debian's opencv-doc (scripts/test installs it)")
        }
        try makeDirectory(folder("day"))
        // People walking across the street, the camera still.
        try burst("street", "vtest.avi", from: 30, taken: "09:00:00")
        // The same street while the frame pans: 50 pixels across and 20 down a frame.
        try burst("pan", "vtest.avi", from: 60, filter: "crop=512:384:n*50:n*20", taken: "10:00:00")
        // A character turning in a shot of the film.
        try burst("turn", "Megamind.avi", from: 9.8, taken: "11:00:00")
        try frame("tree.jpg", "tree.avi", at: 10)
        try taken("12:00:00", "tree.jpg")
        try frame("dinner.jpg", "Megamind.avi", at: 2)
        try taken("13:00:00", "dinner.jpg")
        try frame("corner.jpg", "vtest.avi", at: 5)
        try taken("14:00:00", "corner.jpg")
        try frame("sharp.jpg", "vtest.avi", at: 45)
        try TestMedia.run("vips", ["gaussblur", path("sharp.jpg"), path("defocused.jpg"), "14"])
        try TestMedia.run("vips", ["linear", path("sharp.jpg"), path("pocket.jpg"), "0.02", "1", "--uchar"])
        XCTAssertEqual(unlink(path("sharp.jpg")), 0)
        try taken("15:00:00", "defocused.jpg")
        try taken("15:30:00", "pocket.jpg")
    }

    private func configuration(max: Int? = 6, sheets: Bool = false, jobs: Int = 2) throws -> CollageConfiguration {
        var request = Configuration(inputs: [.path(folder("day"))])
        (request.pick, request.max, request.sheets, request.jobs) = (true, max, sheets, jobs)
        request.size = CanvasSize("300x200")
        request.output = folder(sheets ? "out/s-{n}.png" : "out.png")
        if access(folder("out").description, F_OK) != 0 { try makeDirectory(folder("out")) }
        return try request.resolve().configuration
    }

    private func names(_ paths: [PathName]) -> [String] { paths.map { String(decoding: $0.lastComponent, as: UTF8.self) } }

    private func picked(_ result: RunResult) -> [PickedPhoto] {
        result.events.compactMap { if case .picked(let photo) = $0 { photo } else { nil } }
    }

    private func told(_ result: RunResult) -> [String] {
        result.events.compactMap { if case .pickTold(let text) = $0 { text } else { nil } }
    }

    /// Each burst one tile whatever moved in it, each single once, neither
    /// the defocused nor the pocket shot: with six, and on sheets of every moment.
    func testBurstsOfRealFootageAreOneMomentEachAndNoOneSeesTheBlurredOrBlankShot() throws {
        try makeDay()
        let six = runCollage(try configuration())
        XCTAssertEqual(six.outcome.status, .success, six.outcome.message ?? "")
        let shown = names(six.written.first?.images ?? [])
        XCTAssertEqual(shown.map { String($0.prefix(3)) }, ["str", "pan", "tur", "tre", "din", "cor"], "\(shown)")
        XCTAssertEqual(picked(six).map(\.members), [5, 5, 5, 1, 1, 1])
        XCTAssertEqual(told(six).first, ["pick: 6 moments of 20 photos: 12 stacked into their moment's best, "
                                   + "1 left out blurred, 1 left out blank"][0])
        for jobs in [1, 2] {
            let sheets = runCollage(try configuration(sheets: true, jobs: jobs))
            XCTAssertEqual(sheets.outcome.status, .success, sheets.outcome.message ?? "")
            XCTAssertEqual(names(sheets.written.flatMap(\.images)), shown, "every moment once, --jobs \(jobs)")
            XCTAssertEqual(picked(sheets), picked(six))
        }
    }

    /// A burst across a cut of the film (another subject in the same
    /// second) is two moments; the frames on each side of the cut one each.
    func testACutInABurstIsTwoMoments() throws {
        try makeDirectory(folder("day"))
        try burst("cut", "Megamind.avi", from: 6.0, taken: "09:00:00")
        let result = runCollage(try configuration(sheets: true))
        XCTAssertEqual(result.outcome.status, .success, result.outcome.message ?? "")
        let members = picked(result).map(\.members)
        XCTAssertEqual(members.count, 2, "\(members)")
        XCTAssertEqual(members.reduce(0, +), 5)
    }
}
