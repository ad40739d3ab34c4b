internal import CVipsShim
import Synchronization

/// Start-up and process-wide settings of libvips, for a batch tool.
///
/// - The operation cache is off: a batch run never repeats an operation, and
///   the cache would keep up to 100 MB of pixels alive for nothing.
/// - libvips' own threading is 1 per pipeline: we run several independent
///   decodes at once instead, which is twice as fast on this kind of machine.
/// - libvips' warnings are not printed: a failed image is reported once,
///   with libvips' message, by the caller.
/// - Only the loaders for the formats we support may run. libvips picks a
///   loader by content, so a `.jpg` that is really SVG, PDF or PostScript
///   would otherwise reach an untrusted decoder.
public enum Vips {
    /// The loader classes allowed to run (each with its file, buffer and
    /// source subclasses).
    public static let allowedLoaders = [
        "VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadWebp",
        "VipsForeignLoadNsgif", "VipsForeignLoadTiff", "VipsForeignLoadHeif",
    ]

    private static let state = Mutex<Result<Void, VipsError>?>(nil)

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
        if cvips_init("collage") != 0 {
            return .failure(.fromLibvips(.startup, "cannot start libvips"))
        }
        // libvips' own warnings ("VIPS-WARNING **: error in tile 0 x 248",
        // "read gave 2 warnings") would go to stderr unasked, beside our one
        // line per failed file, which already carries libvips' message.
        g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, { _, _, _, _ in }, nil)
        vips_cache_set_max(0)
        vips_cache_set_max_mem(0)
        vips_cache_set_max_files(0)
        vips_concurrency_set(1)
        vips_block_untrusted_set(1)
        vips_operation_block_set("VipsForeignLoad", 1)
        for loader in allowedLoaders {
            vips_operation_block_set(loader, 0)
        }
        return .success(())
    }

    /// Whether libvips can encode to the format named by `suffix` (".jpg").
    public static func canSave(suffix: String) -> Bool {
        guard (try? start()) != nil else { return false }
        guard let name = vips_foreign_find_save_buffer(suffix) else {
            vips_error_clear()
            return false
        }
        // A match on "magicksave" would mean ImageMagick, which we keep out.
        return !String(cString: name).lowercased().contains("magick")
    }

    /// libvips' version, "8.14.1".
    public static var version: String {
        String(cString: vips_version_string())
    }
}
