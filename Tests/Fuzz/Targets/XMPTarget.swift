import XMP

/// The XMP face-region reader (`--crop faces`): whatever the packet, it
/// returns, every region it gives is inside the image and not empty, as it
/// stays under every EXIF orientation, and the window placed for them is
/// inside the scaled image.
enum XMPTarget {
    static let faces = FuzzTarget("xmp", maxLength: 16384, mallocLimitMB: 128) { bytes in
        let found = FaceRegions.parse(bytes)
        func inside(_ region: FaceRegion) -> Bool {
            region.left.isFinite && region.top.isFinite && region.right.isFinite && region.bottom.isFinite
                && 0 <= region.left && region.left < region.right && region.right <= 1
                && 0 <= region.top && region.top < region.bottom && region.bottom <= 1
        }
        guard found.regions.count <= FaceRegions.maxRegions else { return "\(found.regions.count) regions, over the bound" }
        if let bad = found.regions.first(where: { !inside($0) }) { return "region \(bad) outside [0, 1] or empty" }
        guard !found.regions.isEmpty else { return nil }
        for orientation in 1...8 {
            let upright = found.regions.map { FaceWindow.upright($0, orientation: orientation) }
            if let bad = upright.first(where: { !inside($0) }) { return "orientation \(orientation) turns a region to \(bad)" }
            let wide = FaceWindow.origin(of: upright, coverWidth: 1200, coverHeight: 400, tileWidth: 400, tileHeight: 400)
            let tall = FaceWindow.origin(of: upright, coverWidth: 300, coverHeight: 901, tileWidth: 300, tileHeight: 200)
            guard (0...800).contains(wide.x), wide.y == 0, tall.x == 0, (0...701).contains(tall.y) else {
                return "orientation \(orientation): a window outside the image (\(wide), \(tall))"
            }
        }
        return nil
    }
}

/// The XMP packet reader itself (libxml2 through CXML), and the rating and
/// label read from it: whatever the packet, the walk returns; elements
/// close in the order they opened, never more than `maxDepth` deep, and a
/// packet read to its end leaves none open; each property's path is the
/// open elements (an attribute's) or all but its own (an element's); a rating is -1 to 5 and a label is trimmed and
/// not empty; reading again reads the same.
extension XMPTarget {
    static let packet = FuzzTarget("xmp-packet", maxLength: 16384, mallocLimitMB: 128) { bytes in
        var open: [XMLName] = []
        var broken: String?
        let outcome = XMPPacket.walk(bytes) { event, path in
            switch event {
            case .open(let name):
                open.append(name)
                if Array(path) != open { broken = "open \(name): path \(Array(path)), open \(open)" }
            case .property(let name, _):
                // An attribute's: the open elements; an element's (a root element's too): all but itself.
                if Array(path) != open && (open.last != name || Array(path) != open.dropLast()) {
                    broken = "property \(name): path \(Array(path)), open \(open)"
                }
            case .close(let name):
                if Array(path) != open || open.last != name { broken = "close \(name): path \(Array(path)), open \(open)" }
                open.removeLast()
            }
            if open.count > XMPPacket.maxDepth { broken = "\(open.count) deep" }
            return broken == nil ? .next : .stop("broken")
        }
        if let broken { return broken }
        if outcome == .read, !open.isEmpty { return "read to the end with \(open.count) elements open" }
        let properties = XMPProperties.parse(bytes)
        if let rating = properties.rating, !(-1...5).contains(rating) { return "rating \(rating)" }
        if let label = properties.label, label.isEmpty || label.first!.isWhitespace || label.last!.isWhitespace {
            return "label '\(label)' empty or not trimmed"
        }
        return properties == XMPProperties.parse(bytes) ? nil : "read twice, read otherwise"
    }
}
