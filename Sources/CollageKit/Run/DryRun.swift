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
