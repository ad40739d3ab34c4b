/// What differs from one pass of a job to the next, decided here beside the
/// resolution (`ResolvedRun`): each a pure function of the job's
/// configuration and what the pass found (a folder, a group, a video), so
/// that the passes themselves change no setting.
extension CollageConfiguration {
    /// One folder's run of a `--per-folder` job: its own files (not those
    /// of its subfolders), walked from its `listing` when the job's walk of
    /// folders read it, to its own output; the folder is its shard's whole.
    /// From a plan, `planOffset` is where the folder's part of it starts.
    func folderPass(_ folder: PathName, root: PathName, listing: DirectoryListing? = nil,
                    planOffset: Int64? = nil) -> CollageConfiguration {
        var single = self
        single.shard = nil
        single.inputs = [.path(folder)]
        single.listing = listing
        single.recursive = false
        single.output = FolderOutputs.output(template: output, folder: folder, root: root)
        single.scan.below = FolderOutputs.relativePath(folder: folder, root: root)  // what --exclude matches below
        single.fromPlanOffset = planOffset
        return single
    }

    /// One group's run of a `--group-by` job, its images chosen (or, from
    /// a plan, the plan's, its part starting at `planOffset`): to its own
    /// output (and state), `{group}` its name; the group is its shard's whole.
    func groupPass(_ part: GroupPart, planOffset: Int64? = nil) -> CollageConfiguration {
        var single = self
        single.shard = nil
        single.group = part
        single.output = GroupOutputs.output(template: output, group: part.name)
        single.captions.group = part.name
        single.fromPlanOffset = planOffset
        return single
    }

    /// One video's run of a `--frames`/`--every` job: the video alone, to
    /// `output`, its header above its frames, in cells of the film's shape
    /// as shown (a phone's upright film: portrait); the video is its shard's whole.
    func filmPass(_ video: PathName, output: PathName, header: FilmHeader) -> CollageConfiguration {
        var pass = self
        (pass.shard, pass.inputs, pass.output) = (nil, [.path(video)], output)
        pass.captions.film = header
        pass.layoutOptions.cellShape = (max(1, header.facts.width), max(1, header.facts.height))
        return pass
    }
}
