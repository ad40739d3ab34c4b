import Glibc

/// A value behind a lock, shared by reference: the one lock of this
/// package's sources and of the tests ThreadSanitizer runs (scripts/sanitize).
///
/// Not `Synchronization.Mutex`: contended, `Mutex` on Linux hands the lock
/// to a waiter inside the kernel (a priority-inheritance futex), where
/// ThreadSanitizer cannot see it, and then reports the state behind it as
/// raced (`Tests/sanitize/MutexHandoff.swift` shows it on ten lines, and
/// scripts/sanitize says whether that is still so). A pthread mutex it sees.
///
/// `Mutex` also asks for `sending` values, which some states cannot be:
/// OpenCombine's subscribers and subscriptions predate `Sendable`. This box
/// takes any value; the mutex lives on the heap (a pthread mutex must not
/// move), owned here. What is taken out of it is its user's to keep to one
/// thread at a time (as `Publishers.Pull`'s subscription does with its
/// source, the emitting loop's alone while the state says `emitting`).
package final class Locked<Value>: @unchecked Sendable {  // owns a heap pthread mutex; its value, maybe not Sendable, is touched only under it
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: Value) {
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

    package func withLock<R, Failure: Error>(_ body: (inout Value) throws(Failure) -> R) throws(Failure) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

/// A lock around calls, with no value behind it (Pango's, whose state is
/// Pango's own). Not `Locked(())`: ThreadSanitizer takes the address of a
/// value of no size for the object's own first word, which every call reads
/// before it locks, and reports the two as a race (`Tests/sanitize/EmptyLocked.swift`).
package final class Lock: Sendable {
    private let locked = Locked(0)

    package init() {}

    package func withLock<R, Failure: Error>(_ body: () throws(Failure) -> R) throws(Failure) -> R {
        try locked.withLock { (_: inout Int) throws(Failure) -> R in try body() }
    }
}
