import FileFacts
import Glibc
import Media
import Vips

/// The checks made before any image is read, each a clear line and an exit
/// status: libvips starts, the output's format can be written, every INPUT
/// can be read, and the output's folder and name can be created.
struct Preflight {
    let configuration: CollageConfiguration

    /// nil when the run may go on.
    func check() -> RunOutcome? {
        do { try Vips.start() } catch {
            return .early(.ioError, "cannot start libvips: \(error)")
        }
        if configuration.video, let missing = MediaFile.videoUnavailable { return .early(.usage, missing) }
        if configuration.dryRun { return nil }  // writes nothing: no lock, no clean-up
        guard configuration.saverSuffix != nil else {
            // Known extensions whose saver this libvips lacks (AVIF without
            // an AV1 encoder) are not offered.
            let writable = ImageFormat.all.filter { $0.saverSuffix != nil }.flatMap(\.extensions)
                .filter { ImageFormat.saverSuffix(extension: $0).map { Vips.canSave(suffix: $0) } ?? false }
            return .early(.usage, "cannot write '\(configuration.output)': the extension must be one of "
                          + (writable + ["pdf"]).joined(separator: ", "))
        }
        for input in configuration.inputs {
            guard case .path(let path) = input else { continue }
            let readable = path.withCString { name -> Int32 in
                guard let name else { errno = EINVAL; return -1 }
                var info = stat()
                guard stat(name, &info) == 0 else { return -1 }
                let mode: Int32 = (info.st_mode & S_IFMT) == S_IFDIR ? R_OK | X_OK : R_OK
                return access(name, mode)
            }
            if readable != 0 {
                return .early(.noInput, "cannot read input '\(path)': \(systemError(errno))")
            }
        }
        let folder = configuration.output.directory
        let writable = folder.withCString { name -> Int32 in
            guard let name else { errno = EINVAL; return -1 }
            return access(name, W_OK | X_OK)
        }
        if writable != 0 {
            let code = errno
            let hint = code == ENOENT ? " (create the folder first)" : ""
            return .early(.cannotCreateOutput, "cannot write to folder '\(folder)': \(systemError(code))\(hint)")
        }
        // The sidecar files have names that always fit (see `Sidecar`); the
        // output's own name must too.
        let first = configuration.naming.path(forSheet: 1)
        let nameMax = folder.withCString { $0.map { pathconf($0, Int32(_PC_NAME_MAX)) } ?? -1 }
        if nameMax > 0, first.lastComponent.count > nameMax {
            return .early(.cannotCreateOutput, "cannot write '\(first)': its name is \(first.lastComponent.count) bytes, "
                          + "more than the \(nameMax) this file system allows")
        }
        return nil
    }
}
