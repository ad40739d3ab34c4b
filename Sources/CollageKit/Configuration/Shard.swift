/// `--shard I/N`: this run is the I-th of N runs that together do the whole
/// job, as the tasks of a batch system's array job do. With `--sheets`, sheet
/// k (1-based) belongs to shard (k - 1) mod N; with `--per-folder`, a folder
/// belongs to shard h mod N, where h is the 64-bit FNV-1a hash of its path
/// below INPUT (the INPUT folder itself is the empty path). FNV-1a is fixed
/// by its definition, unlike Swift's `Hasher`, which is seeded per process:
/// every shard, on every machine, must compute the same owner.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// I: which of the runs this is, from 0.
    public let index: Int
    /// N: how many runs share the job.
    public let count: Int

    /// Far more tasks than any array job runs, and small enough that the
    /// shard's tag in sidecar names stays short (see `tag`).
    public static let maxCount = 1_000_000

    /// nil unless 0 <= `index` < `count` <= `maxCount`.
    public init?(index: Int, count: Int) {
        guard count >= 1, count <= Self.maxCount, index >= 0, index < count else { return nil }
        self.index = index
        self.count = count
    }

    /// "I/N", as `--shard` takes it and the summary event reports it.
    public var description: String { "\(index)/\(count)" }

    /// Names this shard in the files kept beside an output
    /// (`.NAME.shard-I-of-N.collage-lock`): at most 26 bytes.
    var tag: [UInt8] { Array(".shard-\(index)-of-\(count)".utf8) }

    /// Whether sheet `number` (1-based, numbered over the whole run) is this shard's.
    public func owns(sheet number: Int) -> Bool { (number - 1) % count == index }

    /// Whether the folder at `relative` (its path below INPUT, bytes; empty
    /// for INPUT itself) is this shard's.
    public func owns(folder relative: [UInt8]) -> Bool { Int(Self.fnv1a(relative) % UInt64(count)) == index }

    /// 64-bit FNV-1a of `bytes`.
    public static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash = RunningFNV()
        hash.add(bytes)
        return hash.value
    }

    /// "I/N", or "auto" for the batch system's environment. The error is the
    /// line a usage error prints.
    public static func parse(_ text: String, environment: [String: String]) -> Result<Shard, ShardError> {
        if text == "auto" { return fromEnvironment(environment) }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            return .failure(ShardError("--shard takes I/N (0 <= I < N), such as 0/4, or auto; not '\(text)'"))
        }
        guard let index = number(parts[0]), let count = number(parts[1]) else {
            return .failure(ShardError("--shard \(text): I and N must be whole numbers, 0 or more, such as 0/4"))
        }
        return make(index: index, count: count, source: "--shard \(text)")
    }

    private static func make(index: Int, count: Int, source: String) -> Result<Shard, ShardError> {
        guard count >= 1 else { return .failure(ShardError("\(source): N must be at least 1")) }
        guard count <= maxCount else { return .failure(ShardError("\(source): N must be at most \(maxCount)")) }
        guard index < count else {
            return .failure(ShardError("\(source): I must be less than N (shards are numbered 0 to N-1)"))
        }
        return .success(Shard(index: index, count: count)!)
    }

    /// ASCII digits only: no sign, no spaces; nil on overflow.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text)
    }

    /// Slurm job arrays, AWS Batch array jobs, Cloud Run jobs, in this order:
    /// the first system with any of its variables set decides, and must be
    /// consistent; a later system is not tried in its place.
    static func fromEnvironment(_ environment: [String: String]) -> Result<Shard, ShardError> {
        func value(_ name: String) -> Result<Int, ShardError> {
            guard let text = environment[name] else {
                return .failure(ShardError("--shard auto: \(name) is not set"))
            }
            guard let number = number(Substring(text)) else {
                return .failure(ShardError("--shard auto: \(name)='\(text)' is not a whole number"))
            }
            return .success(number)
        }
        if environment.keys.contains(where: { $0.hasPrefix("SLURM_ARRAY_TASK_") }) {
            return value("SLURM_ARRAY_TASK_ID").flatMap { id in
                value("SLURM_ARRAY_TASK_MIN").flatMap { min in
                    value("SLURM_ARRAY_TASK_COUNT").flatMap { count in
                        // `--array=0-30:10` has ids 0, 10, 20, 30 and a step of 10.
                        let step = environment["SLURM_ARRAY_TASK_STEP"].flatMap { number(Substring($0)) } ?? 1
                        guard id >= min, step >= 1, (id - min) % step == 0 else {
                            return .failure(ShardError("--shard auto: SLURM_ARRAY_TASK_ID=\(id) is not in the array "
                                                       + "starting at \(min) with step \(step); use --array=0-N"))
                        }
                        return make(index: (id - min) / step, count: count,
                                    source: "--shard auto (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN = \((id - min) / step), "
                                        + "SLURM_ARRAY_TASK_COUNT = \(count); use a range such as --array=0-N)")
                    }
                }
            }
        }
        for (indexName, countName) in [("AWS_BATCH_JOB_ARRAY_INDEX", "AWS_BATCH_JOB_ARRAY_SIZE"),
                                        ("CLOUD_RUN_TASK_INDEX", "CLOUD_RUN_TASK_COUNT")]
            where environment[indexName] != nil || environment[countName] != nil {
            return value(indexName).flatMap { index in
                value(countName).flatMap { count in
                    make(index: index, count: count, source: "--shard auto (\(indexName)=\(index), \(countName)=\(count))")
                }
            }
        }
        return .failure(ShardError("--shard auto: no batch array found (SLURM_ARRAY_TASK_ID, AWS_BATCH_JOB_ARRAY_INDEX "
                                   + "or CLOUD_RUN_TASK_INDEX); give --shard I/N"))
    }
}

/// Why `--shard`'s value cannot be used: one line.
public struct ShardError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
