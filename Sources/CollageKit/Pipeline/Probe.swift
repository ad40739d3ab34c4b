import Glibc
import Vips

/// An open regular file, closed when its owner lets go.
public final class OpenFile: @unchecked Sendable {
    public let descriptor: Int32
    init(descriptor: Int32) { self.descriptor = descriptor }
    deinit { close(descriptor) }

    /// Opens for reading without ever blocking: a FIFO, socket or device
    /// named like an image is refused, never waited on.
    static func open(_ path: PathName) -> Result<OpenFile, ProbeFailure> {
        let descriptor = path.withCString { name -> Int32 in
            guard let name else { errno = EINVAL; return -1 }
            return Glibc.open(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        }
        guard descriptor >= 0 else {
            let code = errno
            // A socket, or a device no driver answers, cannot be opened at
            // all (ENXIO, ENODEV): like any other special file it is not an
            // image, and nothing failed.
            var info = stat()
            if code != ENOENT, path.withCString({ $0.map { stat($0, &info) } ?? -1 }) == 0,
               (info.st_mode & S_IFMT) != S_IFREG, (info.st_mode & S_IFMT) != S_IFDIR {
                return .failure(.rejected(.unsupported, "not a regular file"))
            }
            return .failure(.failed(code == ENOENT ? "vanished: " + systemError(code) : systemError(code)))
        }
        let file = OpenFile(descriptor: descriptor)
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failure(.failed(systemError(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            let kind = (info.st_mode & S_IFMT) == S_IFDIR ? "a folder" : "not a regular file"
            return .failure(.rejected(.unsupported, kind))
        }
        return .success(file)
    }
}

public enum ProbeFailure: Error {
    case rejected(RejectReason, String)
    case failed(String)
}

/// An image that passed the header checks, with its file still open: the
/// bytes decoded later are the bytes checked now.
public struct AcceptedImage: @unchecked Sendable {
    public let path: PathName
    public let header: ImageHeader
    let file: OpenFile
}

/// The header stage: opens each candidate, reads its header (no pixels),
/// and keeps it only if it is a supported image, not over the pixel limit,
/// and not portrait (unless allowed). Every verdict is reported.
struct Probe {
    let maxPixels: Int
    let allowPortrait: Bool
    let report: (PipelineEvent) -> Void
    /// Hears of every file checked, with its stamp (for `--skip-unchanged`).
    var observe: ((PathName, FileStamp?) -> Void)? = nil

    func callAsFunction(_ input: InputFile) -> AcceptedImage? {
        let result = check(input.path)
        if let observe {
            if case .success(let image) = result { observe(input.path, FileStamp(info(image.file))) }
            else { observe(input.path, FileStamp.of(input.path)) }
        }
        switch result {
        case .success(let image):
            report(.accepted(path: image.path, header: image.header))
            return image
        case .failure(.rejected(let reason, let detail)):
            report(.rejected(path: input.path, reason: reason, detail: detail))
        case .failure(.failed(let error)):
            report(.failed(path: input.path, error: error))
        }
        return nil
    }

    func check(_ path: PathName) -> Result<AcceptedImage, ProbeFailure> {
        let file: OpenFile
        switch OpenFile.open(path) {
        case .success(let opened): file = opened
        case .failure(let failure): return .failure(failure)
        }
        if info(file).st_size == 0 {
            return .failure(.rejected(.unsupported, "empty file"))
        }
        let header: ImageHeader
        do {
            header = try ImageFile.header(descriptor: file.descriptor, maxPixels: maxPixels)
        } catch let error as VipsError where error.code == .unsupported {
            return .failure(.rejected(.unsupported, error.message))
        } catch let error as VipsError where error.code == .tooLarge {
            return .failure(.rejected(.tooLarge, error.message))
        } catch {
            return .failure(.failed(String(describing: error)))
        }
        if header.pixelCount > maxPixels {
            return .failure(.rejected(.tooLarge, "\(header.width)x\(header.height) is over --max-pixels \(maxPixels)"))
        }
        if header.isPortrait && !allowPortrait {
            return .failure(.rejected(.portrait, "\(header.displayedWidth)x\(header.displayedHeight)"))
        }
        return .success(AcceptedImage(path: path, header: header, file: file))
    }

    private func info(_ file: OpenFile) -> stat {
        var info = stat()
        _ = fstat(file.descriptor, &info)
        return info
    }
}
