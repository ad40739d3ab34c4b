import Glibc

extension ProcessPages {
    /// Restarts the process, once, with glibc told to ask for transparent
    /// huge pages for its large blocks, where the kernel gives them only to
    /// memory that asks (`madvise` mode, Debian's default).
    ///
    /// A progressive JPEG decodes into one buffer of all its coefficients
    /// (84 MiB for a 5120x2880 wallpaper), which glibc maps fresh for each
    /// image and the kernel zeroes 4 KiB at a time: on 300 photos, 1.2
    /// million page faults and 4.3 s of system time. In 2 MiB pages the same
    /// run took 0.5 million faults, 3.1 s of system time and 11% less wall
    /// time, at the same peak memory (BENCHMARKS.md). glibc reads its
    /// tunables only when a program starts, so the setting is added to
    /// `GLIBC_TUNABLES` and the same executable started again in this
    /// process (`execv`: same PID, arguments, descriptors and signal mask).
    /// A `GLIBC_TUNABLES` that already names `glibc.malloc.hugetlb` (`=0`
    /// opts out) is left alone, as is a kernel whose huge pages are `never`
    /// (or `always`: nothing to ask). If the restart fails the run goes on as
    /// it is. Call it before any thread or file is started (parsing the
    /// arguments first is fine). The restart costs a second start of the
    /// process, about 30 ms here.
    public static func restartWithHugePagesIfUseful() {
        let mode = readWholeFile("/sys/kernel/mm/transparent_hugepage/enabled") ?? ""
        let current = getenv(tunablesVariable).map { String(cString: $0) }
        guard let tunables = hugePageTunables(current: current, transparentHugePages: mode) else { return }
        guard setenv(tunablesVariable, tunables, 1) == 0 else { return }
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        // Still here: the restart failed; run without.
        if let current { setenv(tunablesVariable, current, 1) } else { unsetenv(tunablesVariable) }
    }

    static let tunablesVariable = "GLIBC_TUNABLES"
    static let hugePageTunable = "glibc.malloc.hugetlb"

    /// The `GLIBC_TUNABLES` to restart with, or nil when there is no need:
    /// `transparentHugePages` is the kernel's setting as its file reads
    /// ("always [madvise] never").
    static func hugePageTunables(current: String?, transparentHugePages: String) -> String? {
        guard transparentHugePages.contains("[madvise]") else { return nil }
        let settings = (current ?? "").split(separator: ":", omittingEmptySubsequences: true)
        guard !settings.contains(where: { $0.split(separator: "=").first.map(String.init) == hugePageTunable }) else {
            return nil
        }
        return (settings.map(String.init) + ["\(hugePageTunable)=1"]).joined(separator: ":")
    }
}
