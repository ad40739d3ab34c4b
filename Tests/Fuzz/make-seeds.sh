#!/usr/bin/env bash
# Tests/Fuzz/make-seeds.sh: writes the seed corpus of every fuzz target
# (Tests/Fuzz/corpus/TARGET/), small files made here: images of 16x12
# pixels from samples/dune.jpg in each format and its variants (libvips'
# savers; exiftool for an orientation), a DNG (scripts/lib/make-dng.py), and text for the parsers of
# the command line. The seeds are committed; run this again only to
# change them. Needs the vips command (libvips-tools) and python3.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
corpus="$root/Tests/Fuzz/corpus"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rm -rf "$corpus"
for t in png png-plain jpeg jpeg-small tiff gif webp heif jxl sniff raw raw-layout template options exclude name-date duration path-list state xmp xmp-packet camera-exif decisions inflate; do mkdir -p "$corpus/$t"; done

src="$work/small.v"
vips thumbnail "$root/samples/dune.jpg" "$src" 16 --height 12 --size force
save() { vips copy "$src" "$corpus/$1/$2[$3]"; }
save png plain.png ""
save png interlaced.png "interlace"
save png palette.png "palette,bitdepth=4"
# CPNG's own seeds: plain RGB and opaque RGBA, each row filter libpng writes.
# The stored (uncompressed) ones let mutations reach the rows: the target
# makes their checksums right again.
for filter in none sub up avg paeth all; do save png-plain "rgb-$filter.png" "filter=$filter,strip"; done
for filter in none sub up avg paeth; do save png-plain "stored-$filter.png" "filter=$filter,strip,compression=0"; done
vips bandjoin_const "$src" "$work/opaque.v" 255
vips copy "$work/opaque.v" "$corpus/png-plain/rgba-paeth.png[filter=paeth,strip]"
vips copy "$work/opaque.v" "$corpus/png-plain/stored-rgba-avg.png[filter=avg,strip,compression=0]"
# CPNG's inflate against zlib's (raw deflate streams): the PNG seeds' image
# data, page-like rows (runs of white, a line of text-like bytes, the same
# row again) as zlib writes them with each strategy (stored, fixed codes,
# run lengths, Huffman codes alone, the default), and the code-length
# repeat past the lengths' end that libdeflate lets through (from
# png-plain's crasher).
python3 - "$corpus" "$root/Tests/Fuzz/crashers/png-plain/crash-5c85e03b4d95" <<'PY'
import sys, zlib
corpus, crasher = sys.argv[1], sys.argv[2]
def idat(path):
    data, at, out = open(path, 'rb').read(), 8, b''
    while at + 8 <= len(data):
        length = int.from_bytes(data[at:at + 4], 'big')
        if data[at + 4:at + 8] == b'IDAT': out += data[at + 8:at + 8 + length]
        at += 12 + length
    return out[2:-4]
for name in ['rgb-paeth', 'rgb-all', 'stored-up']:
    open(f'{corpus}/inflate/{name}.deflate', 'wb').write(idat(f'{corpus}/png-plain/{name}.png'))
open(f'{corpus}/inflate/repeat-past-the-end.deflate', 'wb').write(idat(crasher))
white = b'\x00' + b'\xff' * 300
text = b'\x01' + bytes((i * 37) % 256 if i % 7 < 3 else 0 for i in range(300))
page = white * 3 + text + text + white * 2 + b'\x02' + b'\x00' * 300
for name, level, strategy in [('stored', 0, zlib.Z_DEFAULT_STRATEGY), ('fixed', 6, zlib.Z_FIXED),
                              ('runs', 6, zlib.Z_RLE), ('huffman', 6, zlib.Z_HUFFMAN_ONLY),
                              ('default', 9, zlib.Z_DEFAULT_STRATEGY)]:
    packer = zlib.compressobj(level, zlib.DEFLATED, -15, 9, strategy)
    open(f'{corpus}/inflate/page-{name}.deflate', 'wb').write(packer.compress(page) + packer.flush())
PY
save jpeg baseline.jpg "Q=50,strip"
save jpeg progressive.jpg "Q=50,interlace,strip"
save jpeg subsampled.jpg "Q=50,subsample_mode=on"
# CJPEG's own seeds: 64x48, so that a fifth of it is shrunk on load.
vips thumbnail "$root/samples/dune.jpg" "$work/mid.v" 64 --height 48 --size force
mid() { vips copy "$work/mid.v" "$corpus/jpeg-small/$1[$2]"; }
mid baseline.jpg "Q=50,strip"
mid progressive.jpg "Q=50,interlace,strip"
mid full-chroma.jpg "Q=50,subsample_mode=off,strip"
mid restarts.jpg "Q=50,restart_interval=2,strip"
vips colourspace "$work/mid.v" "$work/grey.v" b-w
vips copy "$work/grey.v" "$corpus/jpeg-small/grey.jpg[Q=50,strip]"
vips copy "$work/mid.v" "$corpus/jpeg-small/turned.jpg[Q=50]"
exiftool -q -overwrite_original -Orientation=6 -n "$corpus/jpeg-small/turned.jpg"
save tiff strips.tif "compression=none"
save tiff tiled.tif "tile,tile_width=16,tile_height=16,compression=deflate"
save tiff bigtiff.tif "bigtiff,compression=none"
save tiff pyramid.tif "tile,pyramid,tile_width=16,tile_height=16"
save gif still.gif ""
save webp lossy.webp "Q=50"
save webp lossless.webp "lossless"
save heif small.heic "Q=30,compression=hevc"
save heif small.avif "Q=30,compression=av1"
# A grid of 2x2 HEVC tiles of 512 (as phones write large photos), cut to 1000x600.
vips copy "$src" "$work/grid-source.png"
python3 "$(dirname "$0")/../../scripts/lib/heic-grid.py" "$work/grid-source.png" "$corpus/heif/grid.heic" 1000 600 ultrafast
save jxl small.jxl "Q=50"
vips copy "$corpus/jxl/small.jxl" "$corpus/jxl/lossless.jxl[lossless]"
# An animated GIF and WebP: three frames, one above the other.
vips join "$src" "$src" "$work/two.v" vertical
vips join "$work/two.v" "$src" "$work/strip.v" vertical
vips copy "$work/strip.v" "$corpus/gif/animated.gif[page_height=12]"
vips copy "$work/strip.v" "$corpus/webp/animated.webp[page_height=12]"
# The sniffing target sees one of each.
for f in png/plain.png jpeg/baseline.jpg tiff/strips.tif gif/still.gif webp/lossy.webp heif/small.heic jxl/small.jxl; do
  cp "$corpus/$f" "$corpus/sniff/"
done
# A DNG with a JPEG preview: LibRaw's target and the sniffing's RAW.
vips copy "$src" "$work/preview.jpg[Q=50,strip]"
python3 "$root/scripts/lib/make-dng.py" "$corpus/raw/preview.dng" --size 16x12 --preview "$work/preview.jpg"
python3 "$root/scripts/lib/make-dng.py" "$corpus/raw/plain.dng" --size 16x12 --bits 12
cp "$corpus/raw/preview.dng" "$corpus/sniff/"
# The walk of a RAW's own structure: the DNG, and a CR3's boxes (scripts/lib/make-cr3.py).
cp "$corpus/raw/preview.dng" "$corpus/raw-layout/"
python3 "$root/scripts/lib/make-cr3.py" "$corpus/raw-layout/boxes.cr3" "$work/preview.jpg" "$work/preview.jpg" "$work/preview.jpg"

# Text: the first byte picks the parser or the field set (see Tests/Fuzz/Targets).
text() { printf '%b' "$3" > "$corpus/$1/$2"; }
text template label '\x00{name} ({width}x{height}) {{literal}}'
text template title '\x01Sheet {sheet} of {count}: {first} to {last}, {date}'
text template plain '\x00just text'
text options size '\x001200x800'
text options tile '\x014x'
text options colour-hex '\x02#20a0ff'
text options colour-rgb '\x0210, 20,30'
text options shard '\x033/16'
text options slurm '\x04SLURM_ARRAY_TASK_ID=20\nSLURM_ARRAY_TASK_MIN=0\nSLURM_ARRAY_TASK_COUNT=4\nSLURM_ARRAY_TASK_STEP=10'
text options aws '\x04AWS_BATCH_JOB_ARRAY_INDEX=2\nAWS_BATCH_JOB_ARRAY_SIZE=5'
text options crop '\x05attention'
text exclude star '*.tmp\x00a/b.tmp'
text exclude folders '**/cache/\x00x/y/cache'
text exclude set '[!a-c]?[\\]x]\x00d1]'
text name-date android 'IMG_20260814_153012.jpg'
text name-date pixel 'PXL_20260814_153012345.MP.jpg'
text name-date macos 'Screen Shot 2026-08-14 at 3.30.12\xe2\x80\xafPM.png'
text name-date dropbox '2026-08-14 15.30.12-1.jpg'
text name-date not-a-date 'IMG_20261399_999999.jpg'
text duration minutes '90m'
text duration mixed '1d2h30m15s'
text duration bad '3w'
text camera-exif model 'Canon EOS R6 (Canon EOS R6, ASCII, 13 components, 13 bytes)\x00Canon (Canon, ASCII, 6 components, 6 bytes)'
text camera-exif rational '14/5 (f/2.8, Rational, 1 components, 8 bytes)\x001/250 (1/250 sec., Rational, 1 components, 8 bytes)'
text camera-exif zero '0/0 (nan, Rational, 1 components, 8 bytes)\x00 ( ('
text path-list lines '\x01a.jpg\nb/c d.png\n\n/abs/e.heic\n'
text path-list nul '\x00a.jpg\x00b\nc.png\x00\x00d.jpg'
# One list longer than the reader's 64 KiB block, a path across the cut.
{ printf '\x01'; for i in $(seq 1 2600); do printf 'photos/2026/IMG_%05d.jpg\n' "$i"; done; } > "$corpus/path-list/long"
cat > "$corpus/state/state.json" <<'EOF'
{"complete":true,"inputs":[{"path":"cGhvdG9zL2EuanBn","stamp":{"modified":1700000000000000000,"size":1234}},{"path":"cGhvdG9zL2IuanBn"}],"options":"size=1200x800 background=white","outputs":[{"images":["cGhvdG9zL2EuanBn"],"path":"c2hlZXQuanBn","stamp":{"modified":1700000000000000001,"size":99}}],"partial":false,"version":2}
EOF
# The review page's decisions (--approve-from): as the page writes them, a
# removed pair's (no digest), a name that is not UTF-8, and files refused
# whole: a path with .., an absolute one, a digest too short, not JSON.
cat > "$corpus/decisions/page.json" <<'EOF2'
{
  "decisions": "collage --diff",
  "version": 1,
  "baseline": "baseline/",
  "input": ["screenshots/"],
  "approve": [
    {"path": "login.png", "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "alternative": false},
    {"path": "settings/dark mode.png", "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "alternative": true},
    {"path": "gone.png", "sha256": null, "alternative": false},
    {"path_base64": "Y2Fm6S5wbmc=", "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "alternative": false}
  ]
}
EOF2
printf '%s' '{"decisions":"collage --diff","version":1,"baseline":"b","input":["s","t"],"approve":[]}' > "$corpus/decisions/none.json"
printf '%s' '{"decisions":"collage --diff","version":1,"baseline":"b","input":["s"],"approve":[{"path":"../etc/passwd","sha256":null}]}' > "$corpus/decisions/dotdot.json"
printf '%s' '{"decisions":"collage --diff","version":1,"baseline":"b","input":["s"],"approve":[{"path":"/etc/passwd","sha256":null}]}' > "$corpus/decisions/absolute.json"
printf '%s' '{"decisions":"collage --diff","version":1,"baseline":"b","input":["s"],"approve":[{"path":"a.png","sha256":"abc"}],"extra":1}' > "$corpus/decisions/shape.json"
printf '%s' '{"decisions": "collage --diff", "approve": [' > "$corpus/decisions/truncated.json"
# XMP face regions: as ExifTool writes them (elements), and as attributes
# (Lightroom, digiKam), with a region of each kind the reader refuses.
exiftool -q -o "$corpus/xmp/exiftool.xmp" \
  '-XMP-mwg-rs:RegionInfo={AppliedToDimensions={W=1200,H=400,Unit=pixel},RegionList=[{Area={X=0.875,Y=0.5,W=0.08,H=0.25,Unit=normalized},Type=Face,Name=Ann},{Area={X=0.2,Y=0.4,W=0.1,H=0.2,Unit=normalized},Type=Pet}]}'
cat > "$corpus/xmp/attributes.xmp" <<'EOF'
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description xmlns:mwg-rs="http://www.metadataworkinggroup.com/schemas/regions/" xmlns:stArea="http://ns.adobe.com/xmp/sType/Area#">
<mwg-rs:Regions rdf:parseType="Resource"><mwg-rs:RegionList><rdf:Bag>
<rdf:li><rdf:Description mwg-rs:Type="Face"><mwg-rs:Area stArea:x="0.25" stArea:y="0.5" stArea:w="0.2" stArea:h="0.4" stArea:unit="normalized"/></rdf:Description></rdf:li>
<rdf:li><rdf:Description mwg-rs:Type="Face"><mwg-rs:Area stArea:x="1.5" stArea:y="0.5" stArea:w="0" stArea:h="0.4" stArea:unit="normalized"/></rdf:Description></rdf:li>
</rdf:Bag></mwg-rs:RegionList></mwg-rs:Regions></rdf:Description></rdf:RDF></x:xmpmeta>
EOF
# The XMP packet reader (libxml2 through Sources/CXML): packets as Lightroom
# and a darktable sidecar write them, and packets that attack a parser: a
# billion laughs, external entities, nesting far deeper than the reader
# goes, processing instructions anywhere, bytes that are not UTF-8. The
# hostile ones are the face-region target's seeds too.
cat > "$corpus/xmp-packet/lightroom.xmp" <<'EOF'
<?xpacket begin="﻿" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Adobe XMP Core 7.0-c000">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:xmp="http://ns.adobe.com/xap/1.0/"
    xmlns:dc="http://purl.org/dc/elements/1.1/"
   xmp:Rating="4"
   xmp:Label="Red">
   <dc:subject><rdf:Bag><rdf:li>dune</rdf:li><rdf:li>sea &amp; sky</rdf:li></rdf:Bag></dc:subject>
   <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Pilat</rdf:li></rdf:Alt></dc:title>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>
EOF
cat > "$corpus/xmp-packet/sidecar.xmp" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 4.4.0-Exiv2">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:xmp="http://ns.adobe.com/xap/1.0/"
    xmlns:darktable="http://darktable.sf.net/">
   <xmp:Rating>-1</xmp:Rating>
   <xmp:Label><![CDATA[To print]]></xmp:Label>
   <darktable:history>
    <rdf:Seq>
     <rdf:li darktable:operation="exposure" darktable:enabled="1" xmp:Rating="5"/>
    </rdf:Seq>
   </darktable:history>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
EOF
cat > "$corpus/xmp-packet/billion-laughs.xmp" <<'EOF'
<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Label="&lol9;"><xmp:Rating>&lol9;</xmp:Rating></rdf:Description>
</rdf:RDF></x:xmpmeta>
EOF
cat > "$corpus/xmp-packet/external-entity.xmp" <<'EOF'
<?xml version="1.0"?>
<!DOCTYPE x:xmpmeta [<!ENTITY secret SYSTEM "file:///etc/passwd"><!ENTITY % remote SYSTEM "http://127.0.0.1:9/evil.dtd">%remote;]>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/"><xmp:Label>&secret;</xmp:Label></rdf:Description>
</rdf:RDF></x:xmpmeta>
EOF
cat > "$corpus/xmp-packet/processing-instructions.xmp" <<'EOF'
<?xpacket begin='﻿' id='W5M0MpCehiHzreSzNTczkc9d'?>
<?x?><?xml version="1.0" encoding="UTF-16"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><?pi inside?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="4"><xmp:Label>Gr<?x?>een</xmp:Label></rdf:Description>
</rdf:RDF></x:xmpmeta>
<?xpacket end='w'?>
<? unclosed
EOF
{ printf '<x:xmpmeta xmlns:x="adobe:ns:meta/">'; for i in $(seq 300); do printf '<a>'; done
  for i in $(seq 300); do printf '</a>'; done; printf '</x:xmpmeta>\n'; } > "$corpus/xmp-packet/deep.xmp"
printf '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Label="R\xc3\x28d"><xmp:Rating>\xff\xfe3</xmp:Rating></rdf:Description></rdf:RDF></x:xmpmeta>' \
  > "$corpus/xmp-packet/invalid-utf8.xmp"
for f in billion-laughs external-entity deep processing-instructions invalid-utf8; do
  cp "$corpus/xmp-packet/$f.xmp" "$corpus/xmp/"
done
echo "seeds: $(find "$corpus" -type f | wc -l) files, $(du -sh "$corpus" | cut -f1)"
