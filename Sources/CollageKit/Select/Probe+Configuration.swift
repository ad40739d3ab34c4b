import FileFacts
import Media
import Vips

extension CollageConfiguration {
    /// The header check of this run's inputs.
    var probe: Probe {
        var probe = Probe(maxPixels: maxPixels, allowPortrait: allowPortrait)
        probe.maxBuffer = max(StructureCheck.bufferLimit, decodeMemoryBudget)
        probe.media = MediaOptions(raw: raw, video: video)
        probe.minRating = minRating
        return probe
    }
}
