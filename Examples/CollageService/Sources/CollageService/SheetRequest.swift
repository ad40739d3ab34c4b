import CollageKit

/// The body of `POST /sheets`:
///
///     {"paths": ["/photos/a.jpg", "/photos/b.jpg"], "size": "1200x800",
///      "background": "#202020", "quality": 85}
///
/// Only `paths` is required. Every image is placed (portrait ones too), in
/// the order given, on one JPEG of `size`.
public struct SheetRequest: Codable, Sendable {
    /// Absolute paths of images on this machine.
    public var paths: [String]
    /// "WIDTHxHEIGHT", or "WIDTHx" for a sheet as tall as its content; 1200x800 if absent.
    public var size: String?
    /// A colour name, `#rgb`, `#rrggbb` or `r,g,b`; white if absent.
    public var background: String?
    /// JPEG quality, 1 to 100; libvips' default if absent.
    public var quality: Int?

    /// A request for one sheet of `paths`; what is not given takes its default.
    public init(paths: [String], size: String? = nil, background: String? = nil, quality: Int? = nil) {
        self.paths = paths
        self.size = size
        self.background = background
        self.quality = quality
    }

    /// The configuration of one collage of `paths`, written to `output`, or
    /// the bad request that says why there is none. The run itself finds
    /// the rest (a missing or unreadable file, nothing eligible).
    func configuration(output: String, settings: ServiceSettings) throws(ServiceError) -> Configuration {
        guard !paths.isEmpty else {
            throw ServiceError(status: .badRequest, message: "no paths: give the absolute paths of one or more images")
        }
        guard paths.count <= settings.maxPaths else {
            throw ServiceError(status: .badRequest, message: "\(paths.count) paths: at most \(settings.maxPaths) a sheet")
        }
        if let relative = paths.first(where: { !$0.hasPrefix("/") }) {
            throw ServiceError(status: .badRequest, message: "'\(relative)' is not an absolute path")
        }
        var configuration = Configuration(inputs: paths.map { .path(PathName($0)) })
        if let size {
            guard let canvas = CanvasSize(size) else {
                throw ServiceError(status: .badRequest, message: "size '\(size)': WIDTHxHEIGHT (1200x800) or WIDTHx")
            }
            guard canvas.width <= settings.maxSide, (canvas.height ?? 0) <= settings.maxSide else {
                throw ServiceError(status: .badRequest, message: "size '\(size)': at most \(settings.maxSide) pixels a side")
            }
            configuration.size = canvas
        }
        if let background {
            guard let colour = Colour(background) else {
                throw ServiceError(status: .badRequest, message: "background '\(background)': a name, #rgb, #rrggbb or r,g,b")
            }
            configuration.background = colour
        }
        configuration.quality = quality
        // Every image asked for is placed, upright as it is displayed.
        configuration.max = paths.count
        configuration.allowPortrait = true
        configuration.output = PathName(output)
        // The machine's cores and the decode memory are shared by the runs
        // the service allows at once.
        configuration.jobs = max(1, CollageConfiguration.defaultJobs / settings.concurrentRuns)
        configuration.decodeMemory = max(16, settings.decodeMemoryMiB / settings.concurrentRuns)
        // What is left (a quality out of range, ...) the configuration finds itself.
        do throws(ConfigurationError) { try configuration.validate() } catch {
            throw ServiceError(status: .badRequest, message: error.message)
        }
        return configuration
    }
}
