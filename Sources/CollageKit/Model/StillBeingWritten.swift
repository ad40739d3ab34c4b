/// A file still being copied (a NAS sync under way when cron fires): its
/// decoder finds it cut short, and it was modified within the last minute.
/// It is passed over, not failed: the run ends as if it was not there, and
/// `--skip-unchanged` does not record it, so the next run places it. The
/// same file cut short and left alone for longer is `failed`.
enum StillBeingWritten {
    /// How recently a file cut short must have been modified, in seconds.
    static let window: Int64 = 60

    /// Words decoders use for data that ends before it should.
    static let cutShortWords = [
        "truncated", "premature end", "unexpected end", "cut short", "end of file", "end of input", "moov atom not found",
    ]

    /// Whether a failure's message says the file ends before its data does.
    static func cutShort(_ message: String) -> Bool {
        let lowered = message.lowercased()
        return cutShortWords.contains { lowered.contains($0) }
    }

    /// Whether a file that failed with `message`, last modified at
    /// `modified` (nanoseconds since the epoch), is still being written at
    /// `now` (seconds since the epoch): cut short, and modified within the
    /// window (a time ahead of `now`, a clock set wrong, counts as recent).
    static func applies(message: String, modified: Int64, now: Int64) -> Bool {
        cutShort(message) && now - modified / 1_000_000_000 < window
    }

    /// The `notice` that names it.
    static func notice(_ path: PathName, _ message: String) -> String {
        "\(path): still being written (\(message); modified within the last minute): passed over, a later run takes it"
    }
}
