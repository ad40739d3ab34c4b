/// Everything LibRaw makes of some bytes, as a pure function: the entry
/// point for fuzzing the RAW parsers (identify, the preview's extraction,
/// and, when asked, unpacking and the demosaic), with no file, no
/// descriptor and no libvips. A fuzz target calls
/// `RawFile.inspect(bytes: data, maxMemory: 64 << 20, develop: true)` and
/// asks only that it returns.
public struct RawInspection: Sendable {
    /// What identify found; nil when LibRaw could not open the bytes.
    public var info: RawInfo?
    /// The preview's bytes as LibRaw extracted them.
    public var preview: [UInt8]?
    /// The size of the half-size demosaic, when `develop` was asked and succeeded.
    public var developed: (width: Int, height: Int)?
    /// The first thing that failed, in LibRaw's words.
    public var error: String?
    /// Bytes LibRaw read through its bounded stream.
    public var bytesRead: UInt64 = 0
}

extension RawFile {
    /// Opens `bytes` as a RAW file and takes from it what a run would.
    public static func inspect(bytes: [UInt8], maxMemory: Int, develop: Bool = false) -> RawInspection {
        var result = RawInspection()
        bytes.withUnsafeBytes { pointer in
            let file: RawFile
            do throws(RawError) {
                file = try RawFile(pointer: pointer, maxMemory: maxMemory)
            } catch {
                result.error = error.message
                return
            }
            result.info = file.info
            do throws(RawError) {
                result.preview = try file.preview()
                if develop {
                    let pixels = try file.develop(half: true)
                    result.developed = (pixels.width, pixels.height)
                }
            } catch {
                result.error = error.message
            }
            result.bytesRead = file.bytesRead
        }
        return result
    }
}
