@preconcurrency import OpenCombine

extension Publisher {
    /// The cap and the cut into sheets of `count`. With `sheets` the whole
    /// input is cut; without, the first `count` values are one sheet and the
    /// run ends there: `prefix` cancels upstream when it completes, so the
    /// scan goes no further.
    func sheets(of count: Int, wholeInput sheets: Bool) -> AnyPublisher<[Output], Failure> {
        let capped = sheets ? eraseToAnyPublisher() : prefix(count).eraseToAnyPublisher()
        return capped.collect(count).eraseToAnyPublisher()
    }
}
