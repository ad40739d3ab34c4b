import Synchronization

/// A value behind a `Mutex`, in a class so that escaping closures can share it.
final class Locked<Value>: @unchecked Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try mutex.withLock { try body(&$0) }
    }
}
