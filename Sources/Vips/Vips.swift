internal import CHEVC
internal import CVipsShim
import FileFacts
import Glibc
import Locking

/// Start-up and process-wide settings of libvips, for a batch tool.
///
/// - The operation cache is off: a batch run never repeats an operation, and
///   the cache would keep up to 100 MB of pixels alive for nothing.
/// - libvips' own threading is 1 per pipeline: we run several independent
///   decodes at once instead, which is twice as fast on this kind of machine.
/// - Only the loaders for the formats we support may run. libvips picks a
///   loader by content, so a `.jpg` that is really SVG, PDF or PostScript
///   would otherwise reach an untrusted decoder.
public enum Vips {
    /// The loader classes allowed to run (each with its file, buffer and
    /// source subclasses).
    public static let allowedLoaders: [String] = ImageFormat.all.map(\.loader).reduce(into: []) { loaders, loader in
        if !loaders.contains(loader) { loaders.append(loader) }
    }

    private static let state = Locked<Result<Void, VipsError>?>(nil)

    /// Starts libvips once per process; later calls return the first result.
    public static func start() throws {
        let result: Result<Void, VipsError> = state.withLock { state in
            if let state { return state }
            let result = startOnce()
            state = result
            return result
        }
        try result.get()
    }

    private static func startOnce() -> Result<Void, VipsError> {
        // Of libvips' modules only HEIF and JPEG XL are wanted: not loading
        // the others (ImageMagick, poppler, OpenSlide) saves 30-50 ms and 7 MB
        // a run, and keeps their code out of the process altogether.
        let modules = ["vips-heif", "vips-jxl"]
        let started = withArrayOfCStrings(modules) { cvips_init_with_modules("collage", $0, Int32(modules.count)) }
        if started != 0 {
            return .failure(.fromLibvips(.startup, "cannot start libvips"))
        }
        cvips_capture_warnings()
        vips_cache_set_max(0)
        vips_cache_set_max_mem(0)
        vips_cache_set_max_files(0)
        vips_concurrency_set(1)
        vips_block_untrusted_set(1)
        vips_operation_block_set("VipsForeignLoad", 1)
        for loader in allowedLoaders {
            vips_operation_block_set(loader, 0)
            // Savers libvips marks untrusted (JPEG XL's) encode only our own
            // pixels; the table's formats may be written. A name with no
            // saver class (Nsgif) is ignored by libvips.
            vips_operation_block_set("VipsForeignSave" + loader.dropFirst("VipsForeignLoad".count), 0)
        }
        registerThreadedHEVC()
        return .success(())
    }

    /// libheif's own HEVC decoder uses one core for a picture; this one
    /// (`Sources/CHEVC`) uses every core: four 12 MP HEICs decoded by
    /// libheif alone (a small C harness, YCbCr out) took 2.0 s instead of
    /// 3.1 here, peak RSS the same (79 MiB). If libheif refuses it, its own
    /// decoder is used, as before. The same plugin decodes HEIF photos
    /// small (`ImageFile.shrunkHEIF`): it box-shrinks the picture's planes
    /// before libheif makes them RGB, so a 12 MP HEIC into a sheet's cell
    /// holds 31-42 MB instead of libvips' loader's 68-71 (`HEIFStructure`'s
    /// `shrunkPerPixel` and `heldPerPixel`), and two decode at once within
    /// the decode budget. Each decoder then starts a worker a core: on two
    /// cores four workers for two pictures, which keep both cores busy
    /// while the other decode does what runs on one thread (libheif's
    /// conversion to RGB, libvips' resize).
    private static func registerThreadedHEVC() {
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        _ = chevc_register(Int32(min(max(cores, 1), 8)))
    }

    /// How many HEVC pictures (HEIF photos, or the tiles of a grid) the
    /// threaded decoder has decoded in this process.
    public static var hevcPicturesDecoded: UInt { chevc_pictures_decoded() }

    /// How many liborc compiles and frees of libvips' have gone through one
    /// lock (`Sources/CVipsShim/OrcLock.c`): decoding on several threads at
    /// once is safe only when all of them do, with Debian 12's liborc.
    static var orcLockedCalls: UInt { cvips_orc_locked_calls() }

    /// Sets glibc's allocator for a process that decodes on a few threads.
    ///
    /// Measured on 300 photos into 50 sheets (BENCHMARKS.md): by default each
    /// decoding thread gets its own arena, and glibc raises its mmap threshold
    /// after the first large free, so the decoders' big buffers (a progressive
    /// JPEG's coefficients) stay in the arenas after use, and peak RSS grew
    /// with the number of images, to 430 MB. Two arenas and a fixed 256 KiB
    /// mmap threshold (large buffers always mmapped, so returned when freed)
    /// keep it flat. Settings made in the environment (MALLOC_ARENA_MAX,
    /// MALLOC_MMAP_THRESHOLD_) are left alone. Call it first thing in main.
    public static func tuneAllocatorForBatch() {
        batchAllocator.withLock { $0 = true }
        cvips_tune_malloc(getenv("MALLOC_ARENA_MAX") == nil ? 2 : 0,
                          tunesMmapThreshold ? relaxedMmapThreshold : 0)
    }

    /// Whether this process asked for the batch allocator
    /// (`tuneAllocatorForBatch`). Only then do runs move glibc's mmap
    /// threshold and trim its arenas as memory tightens and loosens
    /// (`memoryPressure`, `reuseLargeBuffers`): a
    /// program that embeds the library and did not ask keeps its allocator
    /// as it set it.
    private static let batchAllocator = Locked(false)

    /// The allocator may be tuned: asked for, and not set in the environment.
    private static var tunesAllocator: Bool { tunesMmapThreshold && batchAllocator.withLock { $0 } }

    /// While a giant decode holds most of the memory budget, the buffers of
    /// the decodes beside it should go back to the system when freed, not
    /// stay in the arenas: `tight` lowers the mmap threshold to 48 KiB and
    /// returns the arenas' free pages now; `!tight` restores 256 KiB, which
    /// costs fewer page faults. Measured on 300 photos: libvips' region
    /// buffers (mostly 16-256 KiB) left 20-30 MiB free in the arenas beside
    /// each giant; always at 16 KiB, 2 s more system time (and 3x the
    /// system time of 240 PNG screenshots, where no giant ever runs). 48 KiB
    /// rather than 16 while heavy: about 1 s less CPU on the 300 photos for
    /// a few MiB more at the peak (BENCHMARKS.md). The arenas are trimmed
    /// once, as memory tightens, not again after each decode that ends
    /// beside the giant: those trims (26k `madvise` calls over 300 photos)
    /// cost about 1 s of system time for 6-8 MiB less at the peak
    /// (BENCHMARKS.md, case 7). A threshold set in the environment
    /// (MALLOC_MMAP_THRESHOLD_) is left alone.
    public static func memoryPressure(tight: Bool) {
        guard tunesAllocator else { return }
        cvips_malloc_pressure(tight ? tightMmapThreshold : relaxedMmapThreshold)
    }

    /// For a run whose every decode is a whole picture (`--diff`): each
    /// pair's pictures are large buffers of a few sizes, made and freed one
    /// pair after another. Mapped afresh each time (the batch setting), each
    /// costs its page faults and zeroing again; kept in the arenas, they are
    /// reused. Measured on 270 pairs of 1920x1080 PNG screenshots (the same
    /// pixels in other bytes): 3.9 s of system time with the batch setting,
    /// 0.7 s with a 16 MiB threshold (the decode floor's 0.65 s), for 8 MiB
    /// more at the peak. Raises the mmap threshold to 32 MiB, the most
    /// glibc takes, unless the environment set it (MALLOC_MMAP_THRESHOLD_).
    public static func reuseLargeBuffers() {
        guard tunesAllocator else { return }
        cvips_tune_malloc(0, 32 << 20)
    }

    private static let tightMmapThreshold: Int32 = 48 * 1024

    private static let relaxedMmapThreshold: Int32 = 256 * 1024
    private static let tunesMmapThreshold = getenv("MALLOC_MMAP_THRESHOLD_") == nil

    /// Whether libvips can encode to the format named by `suffix` (".jpg").
    public static func canSave(suffix: String) -> Bool {
        guard (try? start()) != nil else { return false }
        guard let name = vips_foreign_find_save_buffer(suffix) else {
            LibvipsErrors.drop(linesContaining: "is not a known")
            return false
        }
        // A match on "magicksave" would mean ImageMagick, which we keep out.
        return !String(cString: name).lowercased().contains("magick")
    }

    private static func withArrayOfCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// libvips' version, "8.14.1".
    public static var version: String {
        String(cString: vips_version_string())
    }
}
