import FileFacts
import ProcessPages
import Vips

/// What a process that runs collages sets up once, before and around its
/// jobs: the entry point a program embedding CollageKit calls, as the
/// command line does. Make a `CollageConfiguration`, then a job
/// (`Jobs.make`), subscribe to its `events`, `run()` it; `interrupt` it
/// from a signal handler.
public enum CollageProcess {
    /// The allocator held for a batch (two arenas, a fixed mmap threshold),
    /// so memory stays flat over thousands of photos. First thing in `main`.
    public static func prepareForBatch() {
        Vips.tuneAllocatorForBatch()
    }

    /// For runs of many collages: starts this program again, once, asking
    /// glibc for transparent huge pages (see docs/how-it-works.md); returns when it does not.
    public static func restartWithHugePagesIfUseful() {
        ProcessPages.restartWithHugePagesIfUseful()
    }

    /// For runs of many collages, once libvips is loaded: the pages its
    /// libraries' loading touched leave the resident set. The bytes released, or nil.
    public static func releaseLibraryPages() -> Int? {
        guard (try? Vips.start()) != nil else { return nil }
        return ProcessPages.releaseReadOnlyFilePages()
    }

    /// The extensions `--output` can take, as a sentence's list.
    public static var outputExtensions: String { ImageFormat.outputExtensionList + ", pdf" }
}
