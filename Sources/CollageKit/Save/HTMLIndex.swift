/// `--html`: the page that shows a run's sheets, each an `<img>` with an
/// image map whose areas link each tile to its photo. A pure function of
/// the run's records (`placed`, `written`, `unchanged`) and of how a path
/// becomes a link (`PageLinks`), so it is tested without a run.
///
/// Plain HTML and a little inline CSS: it works from a file, with no
/// script. Each sheet is shown at its natural size (the `<img>`'s `width`
/// and `height` are the sheet's pixels), so the areas' coordinates, which
/// are the sheet's own pixels, stay on their tiles; a sheet wider than the
/// window scrolls sideways in its own box instead of being scaled.
enum HTMLIndex {
    struct Tile: Sendable, Equatable {
        let path: PathName
        let rect: TileRect
        /// The caption drawn under it, when captions are drawn.
        let caption: String?

        init(path: PathName, rect: TileRect, caption: String?) {
            self.path = path
            self.rect = rect
            self.caption = caption
        }
    }

    struct Sheet: Sendable {
        let output: PathName
        /// The sheet's number in its run; nil for an output left unchanged.
        let number: Int?
        let width: Int?
        let height: Int?
        /// Where each image is on the sheet; empty for an unchanged output,
        /// whose rectangles only a decode would tell.
        let tiles: [Tile]
        /// An unchanged output's images (from the state the run compared).
        let images: [PathName]

        init(output: PathName, number: Int?, width: Int?, height: Int?, tiles: [Tile], images: [PathName]) {
            self.output = output
            self.number = number
            self.width = width
            self.height = height
            self.tiles = tiles
            self.images = images
        }
    }

    static let style = """
        body { font: 15px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; background: #f6f6f6; }
        h1 { font-size: 1.3em; margin: 0 0 1em; }
        section { margin: 0 0 2.5em; }
        h2 { font-size: 1em; font-weight: 600; margin: 0 0 .5em; }
        h2 a { color: inherit; }
        .sheet { overflow-x: auto; max-width: 100%; }
        .sheet img { display: block; max-width: none; box-shadow: 0 1px 4px rgba(0,0,0,.25); }
        .note { color: #666; font-size: .9em; }
        """

    /// The page, UTF-8. `link` turns a path into an `href` relative to the page.
    static func page(_ sheets: [Sheet], link: (PathName) -> String) -> [UInt8] {
        var html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        html += "<meta name=\"viewport\" content=\"width=device-width\">\n"
        html += "<title>collage: \(sheets.count) sheet\(sheets.count == 1 ? "" : "s")</title>\n"
        html += "<style>\n\(style)\n</style>\n</head>\n<body>\n"
        html += "<h1>\(sheets.count) sheet\(sheets.count == 1 ? "" : "s"); click a photo to open it</h1>\n"
        for (position, sheet) in sheets.enumerated() {
            html += section(sheet, id: position + 1, link: link)
        }
        html += "</body>\n</html>\n"
        return Array(html.utf8)
    }

    static func section(_ sheet: Sheet, id: Int, link: (PathName) -> String) -> String {
        if sheet.output.lowercasedExtension == "pdf" { return pageSection(sheet, id: id, link: link) }
        let name = escape(displayName(sheet.output))
        let heading = sheet.number.map { "Sheet \($0)" } ?? "Unchanged"
        var html = "<section id=\"sheet-\(id)\">\n"
        html += "<h2>\(heading) · <a href=\"\(link(sheet.output))\">\(name)</a></h2>\n"
        var size = ""
        if let width = sheet.width, let height = sheet.height { size = " width=\"\(width)\" height=\"\(height)\"" }
        let map = sheet.tiles.isEmpty ? "" : " usemap=\"#map-\(id)\""
        html += "<div class=\"sheet\"><img src=\"\(link(sheet.output))\"\(size) alt=\"\(escape(heading)): \(name)\"\(map)></div>\n"
        if !sheet.tiles.isEmpty {
            html += "<map name=\"map-\(id)\">\n"
            for tile in sheet.tiles {
                let r = tile.rect
                let text = escape(tile.caption.flatMap { $0.isEmpty ? nil : $0 } ?? displayName(tile.path))
                html += "<area shape=\"rect\" coords=\"\(r.x),\(r.y),\(r.x + r.width),\(r.y + r.height)\" "
                    + "href=\"\(link(tile.path))\" title=\"\(text)\" alt=\"\(text)\">\n"
            }
            html += "</map>\n"
        } else if !sheet.images.isEmpty {
            // Left as an earlier run made it: its images are known, not where they are.
            html += "<p class=\"note\">Made by an earlier run from the same inputs; its images:</p>\n<ol>\n"
            for image in sheet.images {
                html += "<li><a href=\"\(link(image))\">\(escape(displayName(image)))</a></li>\n"
            }
            html += "</ol>\n"
        }
        return html + "</section>\n"
    }

    /// A page of a PDF, which no `<img>` shows: a link that opens the PDF
    /// at the page, and each of its photos linked, in tile order.
    static func pageSection(_ sheet: Sheet, id: Int, link: (PathName) -> String) -> String {
        let name = escape(displayName(sheet.output))
        let target = link(sheet.output) + (sheet.number.map { "#page=\($0)" } ?? "")
        var html = "<section id=\"sheet-\(id)\">\n"
        html += "<h2>\(sheet.number.map { "Page \($0)" } ?? "Unchanged") · <a href=\"\(target)\">\(name)</a></h2>\n<ol>\n"
        let images = sheet.tiles.isEmpty ? sheet.images.map { (path: $0, caption: String?.none) }
                                         : sheet.tiles.map { (path: $0.path, caption: $0.caption) }
        for image in images {
            let text = escape(image.caption.flatMap { $0.isEmpty ? nil : $0 } ?? displayName(image.path))
            html += "<li><a href=\"\(link(image.path))\">\(text)</a></li>\n"
        }
        return html + "</ol>\n</section>\n"
    }

    /// A path's file name as text (bytes that are not UTF-8 read as U+FFFD).
    static func displayName(_ path: PathName) -> String {
        String(decoding: path.lastComponent, as: UTF8.self)
    }

    /// Text made safe inside an element or a quoted attribute.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}
