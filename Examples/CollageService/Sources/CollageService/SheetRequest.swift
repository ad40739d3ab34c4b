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
    func configuration(output: String, settings: ServiceSettings) throws(ServiceError) -> CollageConfiguration {
        guard !paths.isEmpty else {
            throw ServiceError(status: .badRequest, message: "no paths: give the absolute paths of one or more images")
        }
        guard paths.count <= settings.maxPaths else {
            throw ServiceError(status: .badRequest, message: "\(paths.count) paths: at most \(settings.maxPaths) a sheet")
        }
        if let relative = paths.first(where: { !$0.hasPrefix("/") }) {
            throw ServiceError(status: .badRequest, message: "'\(relative)' is not an absolute path")
        }
        var configuration = CollageConfiguration(inputs: paths.map { .path(PathName($0)) })
        if let size {
            guard let canvas = CanvasSize(size) else {
                throw ServiceError(status: .badRequest, message: "size '\(size)': WIDTHxHEIGHT (1200x800) or WIDTHx")
            }
            configuration.canvasSize = canvas
        }
        guard configuration.canvasWidth <= settings.maxSide, configuration.canvasHeight <= settings.maxSide else {
            throw ServiceError(status: .badRequest, message: "size '\(size ?? "")': at most \(settings.maxSide) pixels a side")
        }
        if let background {
            guard let colour = Colour(background) else {
                throw ServiceError(status: .badRequest, message: "background '\(background)': a name, #rgb, #rrggbb or r,g,b")
            }
            configuration.backgroundColour = colour
        }
        if let quality {
            guard (1...100).contains(quality) else {
                throw ServiceError(status: .badRequest, message: "quality \(quality): 1 to 100")
            }
            configuration.quality = quality
        }
        // Every image asked for is placed, upright as it is displayed.
        configuration.maxImages = paths.count
        configuration.allowPortrait = true
        configuration.output = PathName(output)
        // The machine's cores and the decode memory are shared by the runs
        // the service allows at once.
        configuration.jobs = max(1, CollageConfiguration.defaultJobs / settings.concurrentRuns)
        configuration.decodeMemoryBudget = (settings.decodeMemoryMiB << 20) / settings.concurrentRuns
        return configuration
    }
}
