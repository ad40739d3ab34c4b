import Dispatch
import FileFacts
import Locking
import Vips

/// What composing one sheet produced.
struct ComposedSheet: Sendable {
    let picture: SheetPicture
    /// Each image placed, without its pixels (see `PlacedTile`).
    let tiles: [PlacedTile]
    let frames: [Frame]
    /// Each image's caption, when captions are drawn.
    let labels: [String]?
    let canvas: Canvas
    /// Images that failed when decoded again for this sheet's frames.
    let failures: [DecodeFailure]
    /// Captions drawn with missing glyphs, each naming the font package to install.
    var notices: [String] = []
}

/// A sheet composed, or none: every image of it failed when decoded again
/// for its frames (each failure still to report).
enum Composition: Sendable {
    case sheet(ComposedSheet)
    case nothing(failures: [DecodeFailure])
}

/// One sheet's pixels from its decoded tiles: the layout's frames for the
/// images the sheet really holds, each tile placed in its frame, encoded.
///
/// Each tile is placed as it was decoded: a picture is decoded once per
/// sheet. Two cases decode again, for a reason each: with `--sheets`,
/// tiles decoded ahead carry the frame of their slot in a full sheet (the
/// decodes run into the next sheets before the walk says where the input
/// ends, so that no core idles), and a shorter last sheet has frames of its
/// own; and an image that fails to decode leaves its sheet one short, laid
/// out again. Then the images whose frame changed size or crop are decoded
/// again (at most `jobs` at once, counted as the run's decodes and held
/// tiles are) from the files they were first read from, still open
/// (reopened by path only when --max is too large to keep a descriptor per
/// image): a tile cannot be resized to another frame without losing what a
/// decode from the file gives. One that fails then is reported and the
/// sheet laid out again without it. (One collage is cut on headers before
/// any decode, so its images are decoded once, to their own frames.)
struct SheetComposer: Sendable {
    let layout: any SheetLayout
    /// The run's canvas; with --size WIDTHx, its height is the one titles
    /// are sized by, and each sheet's own is its content's.
    let canvas: Canvas
    let background: RGB
    /// The sheet's encoding (with `-o NAME.pdf`, each tile's).
    let suffix: String
    /// The resolution recorded in what is written (`--dpi`).
    let dpi: Int
    /// `-o NAME.pdf`: a page of tiles and text instead of one picture.
    let printsPages: Bool
    /// `--page`: the paper the canvas is (a PDF's page size).
    let paper: PageSize?
    let captions: Captions
    let probe: Probe
    /// The run's: re-decodes wait for their memory like any decode.
    let budget: DecodeBudget
    let jobs: Int
    let workers: DispatchQueue
    /// Counts the re-decodes and the tiles they hold, as the run's decodes.
    var instrumentation: (any StageInstrumentation)? = nil

    /// Sheet `sheet`, whose first image is the run's `firstIndex`-th (1-based);
    /// `.nothing` with the failures when every image failed to decode again.
    func compose(_ decoded: [DecodedTile], sheet: Int, firstIndex: Int) -> Result<Composition, VipsError> {
        var tiles = decoded
        var failures: [DecodeFailure] = []
        while !tiles.isEmpty {
            // With --size WIDTHx, each sheet's own height.
            let (sheetCanvas, frames) = layout.layOut(tiles.map { ImageShape($0.header) }, on: canvas)
            let stale = tiles.indices.filter { !Self.fits(tiles[$0], frames[$0]) }
            if !stale.isEmpty {
                let redone = redecode(stale.map { (tiles[$0], frames[$0]) })
                var kept: [DecodedTile] = []
                var failed = false
                var next = 0
                for index in tiles.indices {
                    guard next < stale.count, stale[next] == index else { kept.append(tiles[index]); continue }
                    switch redone[next] {
                    case .success(let tile): kept.append(tile)
                    case .failure(let failure): failures.append(failure); failed = true
                    }
                    next += 1
                }
                tiles = kept
                if failed { continue }  // fewer images: lay the sheet out again
            }
            let labels = captions.label == nil ? nil : tiles.indices.map {
                captions.labelText(path: tiles[$0].path, header: tiles[$0].header, index: firstIndex + $0,
                                  pair: tiles[$0].comparison, time: tiles[$0].frameTime) ?? ""
            }
            let title = captions.titleText(sheet: sheet, images: tiles.map(\.path))
            do {
                let picture: SheetPicture, notices: [String]
                if printsPages {
                    let page: PrintedPage
                    (page, notices) = try self.page(tiles, frames: frames, labels: labels, title: title, sheet: sheet,
                                                    on: sheetCanvas)
                    picture = .page(page)
                } else {
                    var pixels = PixelBuffer(width: sheetCanvas.width, height: sheetCanvas.height, fill: background)
                    for (tile, frame) in zip(tiles, frames) {
                        pixels.place(tile.pixels, x: frame.image.x, y: frame.image.y)
                    }
                    notices = try draw(labels: labels, paths: tiles.map(\.path), frames: frames, title: title,
                                       sheet: sheet, on: &pixels)
                    picture = .image(try Encoder.encode(pixels, suffix: suffix, dpi: dpi, tagged: true))
                }
                return .success(.sheet(ComposedSheet(picture: picture, tiles: tiles.map(PlacedTile.init), frames: frames, labels: labels,
                                                     canvas: sheetCanvas, failures: failures, notices: notices)))
            } catch let error as VipsError {
                return .failure(error)
            } catch {
                return .failure(VipsError(.save, String(describing: error)))
            }
        }
        return .success(.nothing(failures: failures))
    }

    /// Whether a tile decoded for one frame can be placed in another as it is.
    static func fits(_ tile: DecodedTile, _ frame: Frame) -> Bool {
        tile.pixels.width == frame.image.width && tile.pixels.height == frame.image.height
            && tile.frame.crop == frame.crop
    }

    private func redecode(_ work: [(DecodedTile, Frame)]) -> [Result<DecodedTile, DecodeFailure>] {
        let decode = Decode(background: background, maxBuffer: probe.maxBuffer, instrumentation: instrumentation)
        let (probe, budget) = (probe, budget)
        let results = Locked([Result<DecodedTile, DecodeFailure>?](repeating: nil, count: work.count))
        let slots = DispatchSemaphore(value: max(1, jobs))
        let group = DispatchGroup()
        for (index, (tile, frame)) in work.enumerated() {
            slots.wait()
            workers.async(group: group) {
                defer { slots.signal() }
                let result: Result<DecodedTile, DecodeFailure>
                let decodeInBudget = { (image: AcceptedImage) in
                    budget.withBudget(image.header.decodeBytes(forTile: frame.image.width, frame.image.height)) { decode.decode(image, to: frame) }
                }
                if let file = tile.file {
                    // The descriptor checked and decoded before: the same
                    // bytes, even if the path was removed or replaced meanwhile.
                    result = decodeInBudget(AcceptedImage(path: tile.path, header: tile.header, file: file))
                } else {
                    switch probe.check(tile.path) {
                    case .success(let image) where image.header == tile.header:
                        result = decodeInBudget(image)
                    case .success:
                        result = .failure(DecodeFailure(path: tile.path, message: "changed while the run read it"))
                    case .failure(.failed(let message)), .failure(.rejected(_, let message)):
                        result = .failure(DecodeFailure(path: tile.path, message: message))
                    }
                }
                // The flags are the image's, taken once: a frame redone keeps
                // them, and a stand-in for a pair's still stays one.
                results.withLock { $0[index] = result.map { redone in
                    var redone = redone
                    (redone.signature, redone.standIn) = (tile.signature, tile.standIn)
                    return redone
                } }
            }
        }
        group.wait()
        return results.withLock { $0.map { $0! } }
    }
}
