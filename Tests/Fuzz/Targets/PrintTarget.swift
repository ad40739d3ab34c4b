import CollageKit

/// `--page` and `--margin`: the first byte picks the parser, the rest is
/// its text. A page that parses is a real piece of paper (each side above
/// 0 and at most 2 m, whole pixels at any resolution, turned by
/// `:landscape`); a margin is at least 0 and at most a metre.
enum PrintTarget {
    static let print = FuzzTarget("print") { bytes in
        guard let selector = bytes.first else { return nil }
        let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
        if selector % 2 == 0 {
            guard let page = PageSize(text) else { return nil }
            let (width, height) = page.pixels(at: 300)
            var problems: [String?] = [
                page.width > 0 && page.height > 0 && page.width <= 2000 && page.height <= 2000 ? nil : "--page \(text) is \(page.width)x\(page.height) mm",
                width >= 0 && height >= 0 && width <= 23_623 && height <= 23_623 ? nil : "--page \(text) is \(width)x\(height) pixels",
                PageSize(text) == page ? nil : "--page \(text) parses twice to two pages",
            ]
            if !text.contains(":"), let turned = PageSize(text + ":landscape") {
                problems.append(turned.width >= turned.height && Set([turned.width, turned.height]) == Set([page.width, page.height])
                                ? nil : "--page \(text):landscape is \(turned.width)x\(turned.height), not \(page) turned")
            } else if text.lowercased().hasSuffix(":landscape") {
                problems.append(page.width >= page.height ? nil : "--page \(text) is not landscape")
            }
            return first(problems)
        }
        guard let margin = PrintLength(text) else { return nil }
        let pixels = margin.pixels(at: 300)
        return first(pixels >= 0 && pixels <= 65_500 ? nil : "--margin \(text) is \(pixels) pixels",
                     PrintLength(text) == margin ? nil : "--margin \(text) parses twice to two lengths")
    }
}

/// The first problem of a list, as one line.
func first(_ problems: [String?]) -> String? { problems.lazy.compactMap { $0 }.first }
