import Glibc

/// Reads a list of paths from a descriptor (standard input), one per line or
/// NUL-separated, lazily: a block is read only when a path is asked for and
/// none is buffered. Paths are bytes; empty records are skipped.
public struct PathListReader: PullSource {
    private let descriptor: Int32
    private let separator: UInt8
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    private let report: (PipelineEvent) -> Void
    private let shouldStop: () -> Bool

    /// `shouldStop` is polled while no input has arrived: once it holds,
    /// the list ends (a signal must not wait for a pipe with nothing in it).
    public init(descriptor: Int32, nulSeparated: Bool, shouldStop: @escaping () -> Bool = { false },
                report: @escaping (PipelineEvent) -> Void) {
        self.descriptor = descriptor
        self.separator = nulSeparated ? 0 : UInt8(ascii: "\n")
        self.shouldStop = shouldStop
        self.report = report
    }

    public mutating func next() -> PathName? {
        while true {
            if let end = buffer[start...].firstIndex(of: separator) {
                let record = Array(buffer[start..<end])
                start = end + 1
                if record.isEmpty { continue }
                return PathName(bytes: record)
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let record = Array(buffer[start...])
                start = buffer.count
                return PathName(bytes: record)
            }
            fill()
        }
    }

    private mutating func fill() {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            if !awaitInput() {
                atEnd = true
                return
            }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
                return
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 {
                report(.failed(path: PathName("-"), error: "cannot read standard input: " + systemError(errno)))
            }
            atEnd = true
            return
        }
    }

    /// Waits until the descriptor is readable (data, end of file or an
    /// error), in slices of 100 ms; false if asked to stop meanwhile.
    private func awaitInput() -> Bool {
        guard descriptor >= 0 else { return true }  // read() reports the error
        while true {
            if shouldStop() { return false }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 100)
            if ready > 0 || (ready < 0 && errno != EINTR) { return true }
        }
    }
}
