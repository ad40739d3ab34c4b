import FileFacts
import XMP

extension ImageHeader {
    /// The largest XMP sidecar read (1 MiB): a larger one is not XMP this reader takes.
    public static let sidecarLimit = XMPPacket.maxBytes

    /// Puts the rating and label of an XMP sidecar (its bytes, as
    /// darktable, digiKam or Lightroom write `NAME.xmp` or `NAME.EXT.xmp`)
    /// in place of the file's own: the sidecar is where those programs keep
    /// the edited truth, so it wins, even where it has no rating or label.
    /// A sidecar that cannot (all) be used (not XML, a rating out of range)
    /// changes nothing: the returned line says why; nil when it was taken.
    public mutating func take(sidecar bytes: [UInt8]) -> String? {
        guard bytes.contains(where: { ![0, 9, 10, 13, 32].contains($0) }) else { return "an empty file" }
        let tags = XMPProperties.parse(bytes)
        if let problem = tags.problem { return problem }
        rating = tags.rating == 0 ? nil : tags.rating
        label = tags.label
        xmpProblem = nil
        return nil
    }
}
