import Foundation
import Glibc
import Vips
import XCTest

/// Where things are: the package root is found from this file's path.
enum Package {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // CLITestCase.swift, CLITests, Tests
        return url.path
    }()
    /// The built binary (`swift build` makes it; scripts/test builds before testing).
    /// COLLAGE_TEST_BINARY: another build of it (scripts/sanitize runs its own).
    static let binary = ProcessInfo.processInfo.environment["COLLAGE_TEST_BINARY"] ?? root + "/.build/debug/collage"
    static let samples = root + "/samples"
    /// The six sample photos that are landscape once EXIF orientation is applied.
    static let landscapes = ["aqua.jpg", "dune.jpg", "greenmeadow.jpg", "raindrops.jpg",
                             "storm-rotated.jpg", "twowings.jpg"]
}

/// Bytes of a path or name given as text (for building byte paths).
func b(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Colours far apart (each channel 0, 128 or 255, never white, the
/// background), so a tile is recognisable even after JPEG compression.
let palette: [RGB] = {
    var colours: [RGB] = []
    for r: UInt8 in [0, 128, 255] { for g: UInt8 in [0, 128, 255] { for b: UInt8 in [0, 128, 255] {
        let colour = RGB(red: r, green: g, blue: b)
        if colour != .white { colours.append(colour) }
    } } }
    // Start with the most distinct ones.
    let first: [RGB] = [RGB(red: 255, green: 0, blue: 0), RGB(red: 0, green: 128, blue: 0),
                        RGB(red: 0, green: 0, blue: 255), RGB(red: 255, green: 255, blue: 0),
                        RGB(red: 0, green: 255, blue: 255), RGB(red: 255, green: 0, blue: 255),
                        RGB(red: 0, green: 0, blue: 0)]
    return first + colours.filter { !first.contains($0) }
}()

/// A user the tests can run the binary as, for permission tests.
struct TestUser {
    let uid: uid_t
    let gid: gid_t

    /// `collage-test`, created if missing (as root). nil when it cannot be had.
    static let collageTest: TestUser? = {
        func lookup() -> TestUser? {
            guard let entry = getpwnam("collage-test") else { return nil }
            return TestUser(uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
        }
        if let user = lookup() { return user }
        guard geteuid() == 0 else { return nil }
        _ = try? runProcess([b("useradd"), b("--system"), b("--no-create-home"), b("--shell"),
                             b("/usr/sbin/nologin"), b("collage-test")])
        return lookup()
    }()
}

/// Each test gets a fresh folder (mode 0755, so the non-root user can walk
/// into it), the working directory of every run, removed afterwards.
class CLITestCase: XCTestCase {
    private(set) var dir = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        guard access(Package.binary, X_OK) == 0 else {
            XCTFail("\(Package.binary) is missing: run `swift build` before `swift test` (scripts/test does)")
            throw XCTSkip("no binary")
        }
        var template = Array("/tmp/collage-cli-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw SpawnError.system("mkdtemp", errno)
        }
        dir = String(cString: made)
        chmod(dir, 0o755)
    }

    override func tearDownWithError() throws {
        if !dir.isEmpty {
            // Give back any permission a test took away, then remove all.
            _ = try? runProcess([b("chmod"), b("-R"), b("u+rwX"), b(dir)])
            _ = try? runProcess([b("rm"), b("-rf"), b("--"), b(dir)])
        }
        try super.tearDownWithError()
    }

    // MARK: - Paths and files

    /// An absolute path inside the test's folder.
    func path(_ relative: String) -> String { dir + "/" + relative }
    func path(_ relative: [UInt8]) -> [UInt8] { b(dir + "/") + relative }

    func makeFolder(_ relative: String, mode: mode_t = 0o755) {
        let full = path(relative)
        XCTAssertEqual(mkdir(full, mode), 0, "mkdir \(full)")
        chmod(full, mode)
    }

    /// Writes bytes to a path given as bytes (relative to the test folder unless absolute).
    func write(_ bytes: [UInt8], to relative: [UInt8]) {
        let full = relative.first == UInt8(ascii: "/") ? relative : path(relative)
        let descriptor = withCPath(full) { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        XCTAssertGreaterThanOrEqual(descriptor, 0, "create \(String(decoding: full, as: UTF8.self))")
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            XCTAssertGreaterThan(count, 0)
            guard count > 0 else { return }
            offset += count
        }
    }

    func write(_ bytes: [UInt8], to relative: String) { write(bytes, to: b(relative)) }

    /// The bytes of a file, or nil if it cannot be read.
    func contents(_ relative: [UInt8]) -> [UInt8]? {
        let full = relative.first == UInt8(ascii: "/") ? relative : path(relative)
        let descriptor = withCPath(full) { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            result += chunk[..<count]
        }
        return result
    }

    func contents(_ relative: String) -> [UInt8]? { contents(b(relative)) }

    func exists(_ relative: [UInt8]) -> Bool {
        var info = stat()
        return withCPath(relative.first == UInt8(ascii: "/") ? relative : path(relative)) { lstat($0, &info) } == 0
    }

    func exists(_ relative: String) -> Bool { exists(b(relative)) }

    /// The names in a folder, dot files included ("." and ".." not), sorted by bytes.
    func listing(_ relative: String = "") -> [[UInt8]] {
        let full = relative.isEmpty ? dir : path(relative)
        guard let handle = opendir(full) else {
            XCTFail("cannot list \(full)")
            return []
        }
        defer { closedir(handle) }
        var names: [[UInt8]] = []
        while let entry = readdir(handle) {
            let name: [UInt8] = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }
            if name != b(".") && name != b("..") { names.append(name) }
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }
    }

    func listingText(_ relative: String = "") -> [String] {
        listing(relative).map { String(decoding: $0, as: UTF8.self) }
    }

    func hardLink(_ existing: String, _ new: [UInt8]) {
        let made = withCPath(path(b(existing))) { from in withCPath(path(new)) { to in link(from, to) } }
        XCTAssertEqual(made, 0, "link \(String(decoding: new, as: UTF8.self))")
    }

    func symbolicLink(_ target: String, _ new: String) {
        XCTAssertEqual(symlink(target, path(new)), 0, "symlink \(new) -> \(target)")
    }

    func copySample(_ name: String, to relative: String) {
        guard let bytes = contents(b(Package.samples + "/" + name)) else {
            XCTFail("sample \(name) missing")
            return
        }
        write(bytes, to: relative)
    }

    // MARK: - Running the binary

    /// Runs `collage` with byte arguments in the test folder (or `directory`).
    /// `user` runs it as that user (through setpriv, so the pid is the binary's).
    func collage(_ arguments: [[UInt8]], stdin: [UInt8]? = nil, directory: String? = nil,
                 as user: TestUser? = nil, timeout: Double = 120) throws -> ProcessResult {
        try RunningProcess(arguments: command(arguments, as: user), stdin: stdin,
                           directory: directory ?? dir).wait(timeout: timeout)
    }

    func collage(_ arguments: [String], stdin: [UInt8]? = nil, directory: String? = nil,
                 as user: TestUser? = nil, timeout: Double = 120) throws -> ProcessResult {
        try collage(arguments.map(b), stdin: stdin, directory: directory, as: user, timeout: timeout)
    }

    /// The full argv for a run of the binary, through setpriv when `user` is given.
    func command(_ arguments: [[UInt8]], as user: TestUser? = nil) -> [[UInt8]] {
        var argv: [[UInt8]] = []
        if let user {
            argv = [b("setpriv"), b("--reuid=\(user.uid)"), b("--regid=\(user.gid)"), b("--clear-groups"), b("--")]
        }
        return argv + [b(Package.binary)] + arguments
    }

    /// The user for permission tests; skips unless running as root.
    func nonRootUser() throws -> TestUser {
        guard geteuid() == 0 else {
            throw XCTSkip("needs root: runs the binary as the non-root user collage-test to test permissions")
        }
        guard let user = TestUser.collageTest else {
            throw XCTSkip("the user collage-test does not exist and could not be created")
        }
        return user
    }

    /// Gives a path to the test user (chown).
    func giveTo(_ user: TestUser, _ relative: String) {
        XCTAssertEqual(chown(path(relative), user.uid, user.gid), 0)
    }
}

/// Calls `body` with a NUL-terminated copy of a byte path.
func withCPath<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
    (bytes + [0]).withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
    }
}

/// Whether a program can be found on PATH.
func haveProgram(_ name: String) -> Bool {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").contains { access("\($0)/\(name)", X_OK) == 0 }
}
