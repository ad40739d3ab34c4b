import Dispatch
import Synchronization
import Vips


/// What composing one sheet produced.
struct ComposedSheet {
    let encoded: EncodedImage
    let tiles: [DecodedTile]
    let layout: GridLayout
    /// Images that failed when re-decoded for a smaller last sheet.
    let failures: [DecodeFailure]
}

/// Puts tiles on the canvas of the contract's grid and encodes it.
///
/// Tiles are decoded at the size of a full sheet. When the last sheet has
/// fewer images its grid differs, so those few images are decoded again at
/// their real tile size (at most `jobs` at once), from the files they were
/// first read from, still open (reopened by path only when --max is too
/// large to keep a descriptor per image): the price of never decoding ahead
/// of demand.
struct SheetComposer {
    let configuration: CollageConfiguration
    let suffix: String
    let workers: DispatchQueue

    func compose(_ decoded: [DecodedTile]) -> Result<ComposedSheet?, VipsError> {
        var tiles = decoded
        var failures: [DecodeFailure] = []
        while !tiles.isEmpty {
            let layout = GridLayout(count: tiles.count, canvasWidth: configuration.canvasWidth,
                                    canvasHeight: configuration.canvasHeight)
            let stale = tiles.contains {
                $0.pixels.width != layout.tileWidth || $0.pixels.height != layout.tileHeight
            }
            if stale {
                let redone = redecode(tiles, layout: layout)
                tiles = redone.compactMap { try? $0.get() }
                failures += redone.compactMap { if case .failure(let f) = $0 { return f } else { return nil } }
                if tiles.count != layout.count { continue }  // a failure changed the grid: again
            }
            let canvas = PixelBuffer(width: layout.canvasWidth, height: layout.canvasHeight,
                                     fill: configuration.background)
            for (index, tile) in tiles.enumerated() {
                let rect = layout.tile(index)
                canvas.place(tile.pixels, x: rect.x, y: rect.y)
            }
            do {
                let encoded = try Encoder.encode(canvas, suffix: suffix)
                return .success(ComposedSheet(encoded: encoded, tiles: tiles, layout: layout, failures: failures))
            } catch let error as VipsError {
                return .failure(error)
            } catch {
                return .failure(VipsError(.save, String(describing: error)))
            }
        }
        return .success(nil)
    }

    private func redecode(_ tiles: [DecodedTile], layout: GridLayout) -> [Result<DecodedTile, DecodeFailure>] {
        let probe = Probe(maxPixels: configuration.maxPixels, allowPortrait: configuration.allowPortrait,
                          report: { _ in })
        let decode = Decode(tileWidth: layout.tileWidth, tileHeight: layout.tileHeight,
                            background: configuration.background,
                            budget: DecodeBudget(limit: configuration.decodeMemoryBudget))
        let results = Locked([Result<DecodedTile, DecodeFailure>?](repeating: nil, count: tiles.count))
        let slots = DispatchSemaphore(value: max(1, configuration.jobs))
        let group = DispatchGroup()
        for (index, tile) in tiles.enumerated() {
            slots.wait()
            workers.async(group: group) {
                defer { slots.signal() }
                let result: Result<DecodedTile, DecodeFailure>
                if let file = tile.file {
                    // The descriptor checked and decoded before: the same
                    // bytes, even if the path was removed or replaced meanwhile.
                    result = decode(AcceptedImage(path: tile.path, header: tile.header, file: file))
                } else {
                    switch probe.check(tile.path) {
                    case .success(let image) where image.header == tile.header:
                        result = decode(image)
                    case .success:
                        result = .failure(DecodeFailure(path: tile.path, message: "changed while the run read it"))
                    case .failure(.failed(let message)), .failure(.rejected(_, let message)):
                        result = .failure(DecodeFailure(path: tile.path, message: message))
                    }
                }
                results.withLock { $0[index] = result }
            }
        }
        group.wait()
        return results.withLock { $0.map { $0! } }
    }
}

