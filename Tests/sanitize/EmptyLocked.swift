// Why Sources/Locking has a `Lock` beside `Locked`: a correct program,
// four threads calling under one pthread mutex whose value has no size,
// on which ThreadSanitizer reports a race at once. It takes the address of
// the empty value for the object's first word, which each call reads
// before it locks. With an Int behind the lock it reports nothing.
// scripts/sanitize builds and runs it under TSan and says whether that is still so.
import Dispatch
import Glibc
final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value
    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&value)
    }
}
enum Shared { static let lock = Locked(()) }
DispatchQueue.concurrentPerform(iterations: 4) { _ in
    for k in 0..<2000 { Shared.lock.withLock { _ in if k % 100 == 0 { usleep(100) } } }
}
print("done")
