import Glibc

/// An advisory lock beside the output, `.NAME.collage-lock`: runs writing
/// the same output (a cron job that outlasts its interval) take turns, so
/// each ends well and the output is always whole. The kernel drops the lock
/// when the holder exits, however it exits.
///
/// The holder removes the lock file when it is done, so no litter is left.
/// A run that was waiting on the removed file finds, once it holds the
/// lock, that the path no longer names the file it locked, and starts over
/// on the path's new file: two runs never hold the lock at once.
final class OutputLock: Sendable {
    private let descriptor: Int32
    private let path: PathName

    private init(descriptor: Int32, path: PathName) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        _ = path.withCString { $0.map { unlink($0) } }
        close(descriptor)
    }

    static func path(for output: PathName) -> PathName {
        Sidecar.lock(for: output)
    }

    /// The notice of a run that waits; text reporters recognise it by this.
    static func waitingNotice(for output: PathName) -> String {
        waitingPrefix + " writing '\(output)' to finish"
    }
    static let waitingPrefix = "waiting for another collage run"

    enum Failure: Error {
        case cannotCreate(String)
        case stopped
    }

    /// Takes the lock, waiting for another run to finish if need be.
    /// `waiting` is called once if the lock is busy; `shouldStop` is polled
    /// while waiting, so that a signal still ends the run.
    static func acquire(for output: PathName, waiting: () -> Void,
                               shouldStop: () -> Bool) -> Result<OutputLock, Failure> {
        let lockPath = path(for: output)
        var announced = false
        while true {
            let descriptor = lockPath.withCString { name -> Int32 in
                guard let name else { errno = EINVAL; return -1 }
                return open(name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o666)
            }
            guard descriptor >= 0 else {
                return .failure(.cannotCreate("cannot create the lock file '\(lockPath)': \(systemError(errno))"))
            }
            while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                guard errno == EWOULDBLOCK || errno == EINTR else {
                    close(descriptor)
                    return .failure(.cannotCreate("cannot lock '\(lockPath)': \(systemError(errno))"))
                }
                if !announced { waiting(); announced = true }
                if shouldStop() { close(descriptor); return .failure(.stopped) }
                usleep(50_000)
            }
            if stillNamed(lockPath, descriptor) { return .success(OutputLock(descriptor: descriptor, path: lockPath)) }
            close(descriptor)  // the holder removed it meanwhile: lock the new one
        }
    }

    private static func stillNamed(_ path: PathName, _ descriptor: Int32) -> Bool {
        var held = stat(), named = stat()
        guard fstat(descriptor, &held) == 0,
              path.withCString({ $0.map { lstat($0, &named) } ?? -1 }) == 0 else { return false }
        return held.st_dev == named.st_dev && held.st_ino == named.st_ino
    }
}
