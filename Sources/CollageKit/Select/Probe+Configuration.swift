import Vips

extension CollageConfiguration {
    /// The header check of this run's inputs.
    var probe: Probe {
        var probe = Probe(maxPixels: maxPixels, allowPortrait: allowPortrait)
        probe.maxBuffer = max(StructureCheck.bufferLimit, decodeMemoryBudget)
        return probe
    }
}
