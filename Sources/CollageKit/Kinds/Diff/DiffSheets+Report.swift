/// What a `--diff` run records of each pair as it comes, and reports at the end.
extension DiffSheets {
    func received(_ outcome: PairOutcome, report: (PipelineEvent) -> Void) {
        switch outcome {
        case .compared(var pair):
            compared.withLock { compared in
                if let change = pair.change {
                    pair.group = compared.groups[change] ?? compared.groups.count + 1
                    compared.groups[change] = pair.group
                }
                compared.pairs.append(pair)
            }
            report(.compared(pair))
        case .failed(let pair, let failures):
            for failure in failures { report(.failed(path: failure.path, error: failure.message)) }
            let message = failures.first?.message ?? "cannot be read"
            compared.withLock { $0.unreadable.append(JUnitReport.Unreadable(relative: pair.relative, message: message)) }
        }
    }

    /// The pairs of one change as one cell: the first of each group stands
    /// for all of them (`members`), in its place.
    static func grouped(_ pairs: [ComparedPair]) -> [ComparedPair] {
        var sizes: [Int: Int] = [:]
        for pair in pairs { if let group = pair.group { sizes[group, default: 0] += 1 } }
        var seen: Set<Int> = []
        return pairs.compactMap { pair in
            guard let group = pair.group else { return pair }
            guard seen.insert(group).inserted else { return nil }
            var cell = pair
            cell.members = sizes[group] ?? 1
            return cell
        }
    }

    /// BASELINE and INPUT as given, which the decisions name.
    var reviewRun: DiffReviewPage.Run {
        DiffReviewPage.Run(baseline: settings.baseline.description, inputs: settings.inputs)
    }

    /// The JUnit report, the Markdown summary and the review page (or, `--approve`, the
    /// baseline approved), when the pairs were all compared; the first
    /// `--diff-images` picture that could not be written fails the run.
    func finish(skipped: Bool) -> RunFailure? {
        guard !skipped else { return nil }
        if let decisions = settings.decisions { return approve(decisions) }
        if let names = settings.approve { return approve(names) }
        let (pairs, unreadable) = compared.withLock { ($0.pairs, $0.unreadable) }
        if let junit = settings.junit {
            do {
                _ = try AtomicWriter(stem: junit).write(JUnitReport.xml(pairs, unreadable: unreadable,
                                                                        baseline: settings.baseline), to: junit)
            } catch {
                return error.runFailure(prefix: "--junit: ")
            }
        }
        if let markdown = settings.markdown {
            do {
                _ = try AtomicWriter(stem: markdown).write(MarkdownSummary.text(pairs, unreadable: unreadable,
                                                                                page: markdown, run: reviewRun,
                                                                                review: settings.html), to: markdown)
            } catch {
                return error.runFailure(prefix: "--markdown: ")
            }
        }
        if let page = settings.html {
            do {
                _ = try AtomicWriter(stem: page).write(DiffReviewPage.page(pairs, unreadable: unreadable, page: page,
                                                                           run: reviewRun, threads: configuration.jobs),
                                                       to: page)
            } catch {
                return error.runFailure(prefix: "--html: ")
            }
        }
        return pictures?.firstFailure
    }
}
