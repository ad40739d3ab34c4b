// Why every lock of the sources is Sources/Locking/Locked.swift's pthread
// mutex: a correct program, four threads appending under one
// Synchronization.Mutex, on which ThreadSanitizer reports a race as soon as
// the lock is contended (a waiter gets it from the kernel: a PI futex that
// TSan does not see). scripts/sanitize builds and runs it under TSan and
// says whether that is still so.
import Synchronization
import Dispatch
import Glibc
final class Box: Sendable { let m = Mutex([Int]()) }
let box = Box()
DispatchQueue.concurrentPerform(iterations: 4) { i in
    for k in 0..<200 { box.m.withLock { $0.append(k); if k % 10 == 0 { usleep(200) } } }
}
print(box.m.withLock { $0.count })
