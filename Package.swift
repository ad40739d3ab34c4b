// swift-tools-version:6.0
import PackageDescription

// libvips' linker flags, spelled out: `pkgConfig:` on a system library would
// also pass "-pthread", which SwiftPM refuses with a warning.
let vipsLinker: [LinkerSetting] = [
    .linkedLibrary("vips"), .linkedLibrary("gobject-2.0"), .linkedLibrary("glib-2.0"), .linkedLibrary("gmodule-2.0"),
    // Captions: the font check (fontconfig), font descriptions and the count of glyphs no font has
    // (Pango and its cairo font map), all libvips' own dependencies.
    .linkedLibrary("fontconfig"), .linkedLibrary("pango-1.0"), .linkedLibrary("pangocairo-1.0"),
]

let package = Package(
    name: "collage",
    products: [
        .executable(name: "collage", targets: ["collage"]),
        .library(name: "CollageKit", targets: ["CollageKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
    ],
    targets: [
        // C, kept in small targets: the libvips headers; libvips' calls with their optional arguments fixed (Swift
        // cannot call varargs), its decoders' warnings and errors captured per image, the liborc lock; and libvips'
        // HEVC decoder.
        .systemLibrary(name: "CVips", path: "Sources/CVips", pkgConfig: "vips",
                       providers: [.apt(["libvips-dev"])]),
        .target(name: "CVipsShim", dependencies: ["CVips"], path: "Sources/CVipsShim", linkerSettings: vipsLinker),
        // The visual diff's pixel work (--diff): rows aligned, pixels judged, the difference pictures written as
        // PNGs (deflated as their rows come; zlib's CRC, libdeflate's Adler-32) and shrunk, pictures too large to
        // hold kept on disc. Its pictures are libvips images; it is called from Vips alone (Difference, its panels
        // and drawings, FullPicture).
        .target(name: "CVisualDiff", dependencies: ["CVips"], path: "Sources/CVisualDiff",
                linkerSettings: vipsLinker + [.linkedLibrary("z"), .linkedLibrary("deflate")]),
        // HEVC pictures of HEIF files on several threads: a libheif plugin libvips' HEIF loader uses; and HEIF
        // grids decoded tile by tile, their HEVC tiles through libde265, AVIF's AV1 tiles through dav1d (libheif's
        // own AV1 decoder).
        .target(name: "CHEVC", path: "Sources/CHEVC", linkerSettings: [.linkedLibrary("heif"), .linkedLibrary("de265"),
                                                                    .linkedLibrary("dav1d")]),
        // The one tone mapper (HDR and wide-gamut pictures to 8-bit sRGB), C of its own, and its one Swift owner,
        // which HEIF photos and video frames share.
        .target(name: "CToneMap", path: "Sources/CToneMap", linkerSettings: [.linkedLibrary("m")]),
        .target(name: "ToneMap", dependencies: ["CToneMap"], path: "Sources/ToneMap",
                swiftSettings: [.swiftLanguageMode(.v6)]),
        // XML through libxml2 (which libvips links already): its headers for C alone, and a pull reader over
        // its SAX2 parser (no network, no document type, no entity expansion), with no libxml2 type in its header.
        .systemLibrary(name: "CLibXML2", path: "Sources/CLibXML2", pkgConfig: "libxml-2.0",
                       providers: [.apt(["libxml2-dev"])]),
        .target(name: "CXML", dependencies: ["CLibXML2"], path: "Sources/CXML", linkerSettings: [.linkedLibrary("xml2")]),
        // A photo's XMP read as RDF spells it (CXML's reader underneath): its face regions and where they put a
        // crop, its rating and label.
        .target(name: "XMP", dependencies: ["CXML"], path: "Sources/XMP", swiftSettings: [.swiftLanguageMode(.v6)]),
        // What a file is and says before any decoder reads it: its structure checked (lengths, offsets,
        // sizes) and its kind sniffed, with pread alone; its kind by name and the table of formats; what its
        // header says (ImageHeader); EXIF dates; the layer's error type. Pure Swift.
        .target(name: "FileFacts", path: "Sources/FileFacts", swiftSettings: [.swiftLanguageMode(.v6)]),
        // A batch process's own pages, with the kernel and glibc alone: huge pages, and the loaded libraries'
        // pages taken out of the resident set. Pure Swift.
        .target(name: "ProcessPages", dependencies: ["Locking"], path: "Sources/ProcessPages", swiftSettings: [.swiftLanguageMode(.v6)]),
        // The one lock: a value behind a pthread mutex, which ThreadSanitizer sees handed over. Pure Swift.
        .target(name: "Locking", path: "Sources/Locking", swiftSettings: [.swiftLanguageMode(.v6)]),
        // Plain PNGs (browsers' screenshots, what --diff compares) inflated by our own inflate (zlib's rules, zlib
        // linked to check it against) and unfiltered in place; any other PNG is left to libvips.
        .target(name: "CPNG", path: "Sources/CPNG", linkerSettings: [.linkedLibrary("deflate"), .linkedLibrary("z")]),
        // JPEG photos' small looks (--pick) decoded by libjpeg straight from their file, shrunk as they are
        // decoded: libvips' loader and pipeline cost more than such a decode; any other JPEG is left to libvips.
        .target(name: "CJPEG", path: "Sources/CJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        .target(name: "Vips", dependencies: ["CVipsShim", "CVisualDiff", "CHEVC", "CPNG", "CJPEG", "ToneMap", "XMP", "FileFacts", "Locking"], path: "Sources/Vips",
                swiftSettings: [.swiftLanguageMode(.v6)]),
        // LibRaw (RAW photos): a C face over its C++ API, and its one Swift owner.
        .target(name: "CLibRaw", path: "Sources/CLibRaw", linkerSettings: [.linkedLibrary("raw_r"), .linkedLibrary("gomp")]),
        .target(name: "Raw", dependencies: ["CLibRaw"], path: "Sources/Raw",
                swiftSettings: [.swiftLanguageMode(.v6)]),
        // FFmpeg (video poster frames): a C face loaded with dlopen under --video, and its one Swift owner, whose
        // HDR and wide-gamut frames go through the one tone mapper (ToneMap) that HEIF photos go through.
        .target(name: "CFFmpeg", path: "Sources/CFFmpeg", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "Video", dependencies: ["CFFmpeg", "ToneMap"], path: "Sources/Video",
                swiftSettings: [.swiftLanguageMode(.v6)]),
        // PDF output: cairo's PDF surface and pango-cairo (system headers), fixed-arity wrappers, and their one Swift owner.
        .systemLibrary(name: "CCairo", path: "Sources/CCairo", pkgConfig: "pangocairo",
                       providers: [.apt(["libcairo2-dev", "libpango1.0-dev"])]),
        .target(name: "CCairoShim", dependencies: ["CCairo"], path: "Sources/CCairoShim",
                linkerSettings: [.linkedLibrary("cairo"), .linkedLibrary("pangocairo-1.0"), .linkedLibrary("pango-1.0"),
                                 .linkedLibrary("gobject-2.0"), .linkedLibrary("glib-2.0")]),
        .target(name: "Print", dependencies: ["CCairoShim"], path: "Sources/Print",
                swiftSettings: [.swiftLanguageMode(.v6)]),
        // The stages' one door to pictures: libvips, LibRaw or FFmpeg, chosen by content; and a photo's XMP sidecar.
        .target(name: "Media", dependencies: ["FileFacts", "Locking", "Vips", "Raw", "Video", "XMP"], path: "Sources/Media",
                swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(name: "CollageKit",
                dependencies: ["FileFacts", "Locking", "ProcessPages", "Vips", "Media", "Print", "OpenCombine",
                               .product(name: "Logging", package: "swift-log")],
                path: "Sources/CollageKit",
                swiftSettings: [.swiftLanguageMode(.v6)]),
        // The command line's presentation: text, progress, its log handler,
        // signals, argument bytes. One client's, not every embedder's.
        .target(name: "CollageTerminal",
                dependencies: ["CollageKit", "Locking", .product(name: "Logging", package: "swift-log")],
                path: "Sources/CollageTerminal", swiftSettings: [.swiftLanguageMode(.v6)]),
        .executableTarget(name: "collage",
                          dependencies: ["CollageKit", "CollageTerminal",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser"),
                                         .product(name: "Logging", package: "swift-log")],
                          path: "Sources/collage",
                          swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(name: "CollageTestSupport", dependencies: ["Locking", "Vips"], path: "Tests/TestSupport",
                swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(name: "VipsTests", dependencies: ["FileFacts", "Locking", "ProcessPages", "Vips", "CPNG", "Media", "Raw", "Video", "XMP", "ToneMap",
                                                   "CollageTestSupport"], path: "Tests/VipsTests",
                    swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(name: "CollageKitTests", dependencies: ["CollageKit", "CollageTerminal", "FileFacts", "Locking", "Media", "Vips", "OpenCombine", "CollageTestSupport",
                                                           .product(name: "Logging", package: "swift-log")],
                    path: "Tests/CollageKitTests",
                    swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(name: "CLITests", dependencies: ["Vips", "CollageTestSupport"], path: "Tests/CLITests",
                    swiftSettings: [.swiftLanguageMode(.v6)]),
        // Fuzzing (scripts/fuzz): every parser's target and the invariants it holds, built here so that a
        // target that no longer builds fails the build; FuzzRegressionTests replays the crashers fuzzing found.
        .target(name: "FuzzTargets", dependencies: ["FileFacts", "Vips", "CPNG", "Raw", "XMP", "CollageKit"], path: "Tests/Fuzz/Targets",
                swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(name: "FuzzRegressionTests", dependencies: ["FuzzTargets"], path: "Tests/FuzzRegressionTests",
                    swiftSettings: [.swiftLanguageMode(.v6)]),
    ],
    cxxLanguageStandard: .cxx17
)

// libFuzzer's driver: only in scripts/fuzz's build (COLLAGE_FUZZ=1, with --sanitize=fuzzer), where
// libFuzzer brings `main`; an ordinary build has none to give it.
if Context.environment["COLLAGE_FUZZ"] == "1" {
    package.targets.append(.executableTarget(name: "collage-fuzz", dependencies: ["FuzzTargets"], path: "Tests/Fuzz/Driver",
                                             swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library"])]))
}
