@preconcurrency import OpenCombine

extension CollageConfiguration {
    /// `--dry-run`: what sheet `number` would be, from the headers alone:
    /// where each image would go and what its caption would say.
    func plan(_ items: [SheetItem], sheet number: Int, firstIndex: Int, to path: PathName) -> PlannedSheet {
        let (sheet, frames) = layout.layOut(items.map { ImageShape($0.header) }, on: canvas)
        var planned = PlannedSheet(output: path, sheet: number, images: items.map(\.path),
                                   width: sheet.width, height: sheet.height)
        planned.rects = frames.map(\.image)
        planned.group = group?.name
        if captions.label != nil {
            planned.labels = items.indices.map {
                captions.labelText(path: items[$0].path, header: items[$0].header, index: firstIndex + $0) ?? ""
            }
        }
        return planned
    }
}

extension RunStages {
    /// `--dry-run`: each sheet from the headers alone, nothing decoded;
    /// with `--shard` and `--sheets`, this shard's sheets of the whole run's `cut`.
    func dryRun(_ accepted: AnyPublisher<AcceptedImage, Never>, shard cut: AnyPublisher<CutImages, Never>?)
        -> AnyPublisher<CutSheet, Never> {
        if let cut {
            return cut
                .map { cut in
                    CutSheet(items: cut.images.map { SheetItem(path: $0.path, header: $0.header, tile: nil) },
                             place: cut.place)
                }
                .eraseToAnyPublisher()
        }
        return accepted.map { SheetItem(path: $0.path, header: $0.header, tile: nil) }  // lets go of the file
            .sheets(of: configuration.effectiveCap, wholeInput: configuration.sheets).map { CutSheet(items: $0) }
            .eraseToAnyPublisher()
    }
}
