/// `--from-plan` with `--html`: the first shard writes the page of the
/// whole job, read from the plan (each sheet's output, frames and
/// captions), once its own sheets are done.
final class PlanPageFinishing: JobFinishing {
    let page: PathName
    let plan: PathName

    init(page: PathName, plan: PathName) { (self.page, self.plan) = (page, plan) }

    func prepare() -> RunFailure? { Finishing.cannotWrite(page) }
    func note(_ event: PipelineEvent) {}
    func abandon() {}

    func finish() -> RunFailure? {
        var sheets: [HTMLIndex.Sheet] = []
        let lines = PlanLines(plan)
        while let line = lines.next() {
            guard let number = line.sheet, let output = line.output, let images = line.images else { continue }
            let tiles = images.map { HTMLIndex.Tile(path: $0.path.path, rect: $0.tileRect ?? TileRect(x: 0, y: 0, width: 0, height: 0), caption: $0.label) }
            sheets.append(HTMLIndex.Sheet(output: output.path, number: number, width: line.width, height: line.height,
                                          tiles: tiles, images: images.map(\.path.path)))
        }
        return Finishing.writePage(sheets, to: page)
    }
}
