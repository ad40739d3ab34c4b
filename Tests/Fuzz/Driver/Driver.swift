import FuzzTargets
import Glibc

/// libFuzzer's entry points (libFuzzer brings `main`): the target named by
/// COLLAGE_FUZZ_TARGET (`list` lists them), fed each input; a broken invariant aborts, which
/// libFuzzer reports as a crash and keeps the input (scripts/fuzz).
nonisolated(unsafe) var target: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<Int32>,
                       _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> Int32 {
    let name = getenv("COLLAGE_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    if name == "list" {  // for scripts/fuzz: each target's name and limits
        for target in FuzzTargets.all { print(target.name, target.maxLength, target.mallocLimitMB) }
        exit(0)
    }
    guard let chosen = FuzzTargets.named(name) else {
        let names = FuzzTargets.all.map(\.name).joined(separator: " ")
        say("COLLAGE_FUZZ_TARGET='\(name)' names no target; the targets: \(names)")
        exit(2)
    }
    target = chosen
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    if let problem = target!.run(bytes) {
        say("\(target!.name): \(problem)")
        abort()
    }
    return 0
}

/// A line on standard error, whole.
func say(_ line: String) {
    let bytes = Array("collage-fuzz: \(line)\n".utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
