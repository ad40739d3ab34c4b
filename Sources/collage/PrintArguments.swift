import ArgumentParser
import CollageKit

/// Sheets for print: `--page`, `--dpi`, `--margin`. Pages, lengths and the
/// canvas they make live in CollageKit (`PageSize`, `PrintLength`,
/// `PrintSettings`), as are the combinations that cannot work.
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
}
