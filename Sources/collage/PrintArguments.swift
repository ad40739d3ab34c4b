import ArgumentParser
import CollageKit

/// Sheets for print: `--page`, `--dpi`, `--margin`. Pages, lengths and the
/// canvas they make live in CollageKit (`PageSize`, `PrintLength`,
/// `PrintSettings`); this reads the options and says which combinations
/// cannot work.
struct PrintArguments: ParsableArguments {
    @Option(help: ArgumentHelp("Make each sheet a page: A5, A4, A3, Letter, Legal or Tabloid, :landscape to turn it "
                               + "(A4:landscape), or WxH with a unit (210x297mm, 8.5x11in); the canvas is the page "
                               + "at --dpi, captions and titles are sized for print. Not with --size.",
                               valueName: "NAME[:landscape]|WxH(mm|in)"),
            completion: .list(PageSize.named.flatMap { [$0.name, $0.name + ":landscape"] }),
            transform: { try parsed(PageSize($0), "a page: A5, A4, A3, Letter, Legal, Tabloid (with :landscape), "
                                    + "or WIDTHxHEIGHT with mm, cm or in, such as 210x297mm or 8.5x11in") })
    var page: PageSize?

    @Option(help: ArgumentHelp("The resolution of the page, recorded in every image written and a PDF's page size "
                               + "(default: 300 with --page, else 72).", valueName: "N"))
    var dpi: Int?

    @Option(help: ArgumentHelp("Kept clear around a sheet's contents, on top of --gap: 10mm, 0.5in, 24pt or 12px "
                               + "(default: 10mm with --page, else 0).", valueName: "LENGTH"),
            transform: { try parsed(PrintLength($0), "a length with a unit: mm, cm, in, pt or px, such as 10mm or 0.5in") })
    var margin: PrintLength?

    /// `--size` was given too (exclusive with `--page`).
    func validate(sizeGiven: Bool) throws {
        if let dpi, !(10...2400).contains(dpi) { throw ValidationError("--dpi must be 10 to 2400, not \(dpi)") }
        if page != nil, sizeGiven {
            throw ValidationError("--page and --size cannot be used together: the page makes the canvas")
        }
        if let page {
            let (width, height) = page.pixels(at: dpi ?? 300)
            guard width <= 65_500, height <= 65_500 else {
                throw ValidationError("--page \(page) at \(dpi ?? 300) dpi is \(width)x\(height) pixels, more than 65500 a side; lower --dpi")
            }
        }
    }

    /// The print part of the configuration: with a page, the canvas is the
    /// page at the resolution, and text sizes are in points.
    func apply(to configuration: inout CollageConfiguration) {
        configuration.print.page = page
        configuration.print.dpi = dpi
        configuration.print.margin = margin
        if let page {
            let resolution = configuration.print.resolution
            (configuration.canvasWidth, configuration.canvasHeight) = page.pixels(at: resolution)
            configuration.naturalHeight = false
            configuration.captions.pixelsPerPoint = Double(resolution) / 72
        }
    }

    /// What a PDF cannot be written with, as a usage error's line.
    static func validatePDF(output: String, sheets: Bool, shard: Shard?, diff: Bool) throws {
        guard OutputNaming(path: PathName(output), sheets: sheets).isDocument else { return }
        if output.contains("{n}") {
            throw ValidationError("a PDF holds every sheet of the run, a page each: drop {n} from --output '\(output)'")
        }
        if let shard, shard.count > 1 {
            throw ValidationError("--shard \(shard) cannot write one PDF from \(shard.count) runs: write the shards' sheets as "
                                  + "images (-o 'sheets/{n}.jpg') and make the PDF in one run, or run without --shard")
        }
        if diff {
            throw ValidationError("--diff writes its report as images, not a PDF: use -o 'diff-{n}.png' (with --sheets)")
        }
    }
}
