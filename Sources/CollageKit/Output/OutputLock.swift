import Glibc

/// An advisory lock beside the output, `.NAME.collage-lock`: runs writing
/// the same output (a cron job that outlasts its interval) take turns, so
/// each ends well and the output is always whole. The lock file is left in
/// place (removing it would race with a waiting run); the kernel drops the
/// lock when the holder exits, however it exits.
public final class OutputLock {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }
    deinit { close(descriptor) }

    public static func path(for output: PathName) -> PathName {
        output.directory.appending(Array(".".utf8) + output.lastComponent + Array(".collage-lock".utf8))
    }

    public enum Failure: Error {
        case cannotCreate(String)
        case stopped
    }

    /// Takes the lock, waiting for another run to finish if need be.
    /// `waiting` is called once if the lock is busy; `shouldStop` is polled
    /// while waiting, so that a signal still ends the run.
    public static func acquire(for output: PathName, waiting: () -> Void,
                               shouldStop: () -> Bool) -> Result<OutputLock, Failure> {
        let lockPath = path(for: output)
        let descriptor = lockPath.withCString { name -> Int32 in
            guard let name else { errno = EINVAL; return -1 }
            return open(name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o666)
        }
        guard descriptor >= 0 else {
            return .failure(.cannotCreate("cannot create the lock file '\(lockPath)': \(systemError(errno))"))
        }
        let lock = OutputLock(descriptor: descriptor)
        var announced = false
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                return .failure(.cannotCreate("cannot lock '\(lockPath)': \(systemError(errno))"))
            }
            if !announced { waiting(); announced = true }
            if shouldStop() { return .failure(.stopped) }
            usleep(50_000)
        }
        return .success(lock)
    }
}
