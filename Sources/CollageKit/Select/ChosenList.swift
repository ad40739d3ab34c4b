/// Images chosen on their headers in an earlier pass, in the order they
/// are to be opened again, each made only when it is asked for (from a
/// header pass's `PhotoTable`, or a list).
struct ChosenList: Sendable {
    let count: Int
    private let make: @Sendable (Int) -> ImageToOpen

    init(_ images: [ImageToOpen]) { (count, make) = (images.count, { images[$0] }) }

    /// `table`'s images at `rows`, in that order.
    init(_ table: PhotoTable, rows: [Int]) { (count, make) = (rows.count, { table.image(rows[$0]) }) }

    subscript(position: Int) -> ImageToOpen { make(position) }
}

extension ChosenImage {
    /// What opening it again needs.
    var toOpen: ImageToOpen { ImageToOpen(path: path, stamp: stamp, partners: partners) }
}
