extension Decode {
    /// A still that passed its header checks and then failed to decode (a
    /// corrupt JPEG beside its RAW): its first partner that passes the same
    /// checks and decodes is shown in its place, in the same frame, so the
    /// shot is not lost and the sheet keeps its cut. The partner decodes
    /// within the memory the still's decode reserved (the window reserved
    /// it from the still's header). nil when no partner could stand in.
    func decodePartner(of image: AcceptedImage, to frame: Frame,
                       after failure: DecodeFailure) -> Result<DecodedTile, DecodeFailure>? {
        guard let partnerProbe, !image.partners.isEmpty else { return nil }
        var plain = self
        plain.partnerProbe = nil  // one stand-in, never a chain
        for partner in image.partners {
            guard case .success(var other) = partnerProbe.check(partner) else { continue }
            other.ordinal = image.ordinal
            guard case .success(var tile) = plain.decode(other, to: frame) else { continue }
            tile.standIn = "\(image.path): \(failure.message); its pair \(partner) is shown instead"
            return .success(tile)
        }
        return nil
    }
}
