import Glibc

/// Decides which decodes run: at most `slots` at once (`--jobs`), and
/// within a memory budget by their header's estimate
/// (`ImageHeader.decodeBytes`). Two 5120x2880 progressive JPEGs hold about
/// 90 MB each while decoding; with two jobs they would otherwise overlap and
/// double the peak. A decode larger than the whole budget runs alone.
///
/// The decode stage dispatches one more decode than there are slots, so
/// while a giant waits for memory, a small image behind it takes the free
/// slot instead of leaving a core idle.
final class DecodeBudget: @unchecked Sendable {
    let limit: Int
    let slots: Int
    private var used = 0
    private var running = 0
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()

    init(limit: Int, slots: Int = .max) {
        self.limit = limit
        self.slots = slots
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    deinit {
        pthread_cond_destroy(&condition)
        pthread_mutex_destroy(&mutex)
    }

    /// Blocks the calling worker until `bytes` fit (or nothing else runs).
    func acquire(_ bytes: Int) {
        pthread_mutex_lock(&mutex)
        while running >= slots || (running > 0 && used + bytes > limit) {
            pthread_cond_wait(&condition, &mutex)
        }
        used += bytes
        running += 1
        pthread_mutex_unlock(&mutex)
    }

    func release(_ bytes: Int) {
        pthread_mutex_lock(&mutex)
        used -= bytes
        running -= 1
        pthread_cond_broadcast(&condition)
        pthread_mutex_unlock(&mutex)
    }

    func withBudget<R>(_ bytes: Int, _ body: () throws -> R) rethrows -> R {
        acquire(bytes)
        defer { release(bytes) }
        return try body()
    }
}
