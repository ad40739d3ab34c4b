/// What a long batch run does about its own memory pages, with the kernel
/// and glibc alone (no libvips): huge pages for its large blocks
/// (`restartWithHugePagesIfUseful`), and the pages of the libraries it
/// loaded and will not read again taken out of its resident set
/// (`releaseReadOnlyFilePages`). Process-wide: for a program that opts in,
/// as the command line does.
public enum ProcessPages {}
