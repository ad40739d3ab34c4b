import Glibc

/// A value behind a lock, shared by reference: for values that hold
/// OpenCombine's subscribers, subscriptions or cancellables, for the state
/// the decodes contend for (the decode window, the decode budget), and for
/// what a stop or an awaiting task touches beside the run's own thread (a
/// job's machine, a run's stop, a session's outcome). Every other shared
/// value is in a `Synchronization.Mutex`.
///
/// Contended, `Mutex` on Linux hands the lock to a waiter inside the
/// kernel (a priority-inheritance futex), where ThreadSanitizer cannot see
/// it: scripts/sanitize then reports the state behind it as raced
/// (`Tests/sanitize/MutexHandoff.swift` shows it on ten lines). A pthread
/// mutex it sees.
///
/// `Mutex` asks for `sending` values, which such a state cannot be:
/// OpenCombine's subscribers and subscriptions predate `Sendable`. This box
/// takes any value; the mutex lives on the heap (a pthread mutex must not
/// move), owned here. What is taken out of it is its user's to keep to one
/// thread at a time (as `Publishers.Pull`'s subscription does with its
/// source, the emitting loop's alone while the state says `emitting`).
final class Locked<Value>: @unchecked Sendable {  // owns a heap pthread mutex; its value, maybe not Sendable, is touched only under it
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
