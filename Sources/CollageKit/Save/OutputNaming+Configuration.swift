import FileFacts
import Vips

extension CollageConfiguration {
    /// The path whose hidden companions (lock, state, temporary files) this
    /// run uses: the output's, or with `--shard` the output's name with the
    /// shard's tag, so that the shards of one job, which share the sheets'
    /// PATH, never share a lock or a state. The name is cut so that every
    /// companion's name still fits in 255 bytes (see `Sidecar`).
    var sidecarOutput: PathName {
        guard let shard else { return output }
        let name = output.lastComponent
        let folder = output.bytes.dropLast(name.count)
        return PathName(bytes: Array(folder) + name.prefix(229 - shard.tag.count) + shard.tag)
    }

    /// Where each collage goes: `output`, as a template under `sheets`.
    var naming: OutputNaming { OutputNaming(path: output, sheets: sheets) }

    /// libvips' saver suffix with options, ".jpg[Q=90]"; nil if the output
    /// extension is not one we can write.
    public var saverSuffix: String? {
        guard let suffix = naming.saverSuffix, Vips.canSave(suffix: suffix) else { return nil }
        // Not "strip" for a sheet: it would drop the sRGB profile `Encoder`
        // attaches and a JPEG's JFIF header, where its resolution is
        // recorded (its pixels are made in memory, so nothing of the inputs'
        // metadata reaches it). A PDF's tiles need neither: the page says
        // their size and colour.
        var options = writesPDF ? ["strip"] : []
        if let quality, writesPDF || ImageFormat.output(extension: output.lowercasedExtension)?.hasQuality == true {
            options.append("Q=\(quality)")
        }
        return options.isEmpty ? suffix : suffix + "[" + options.joined(separator: ",") + "]"
    }
}
