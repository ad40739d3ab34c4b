#!/usr/bin/env python3
"""make-dng.py OUT [options]: writes a small but real DNG (TIFF-based RAW).

IFD0 holds an optional JPEG preview (NewSubFileType 1, as cameras and
Adobe's converter write it); a SubIFD holds the raw data: an RGGB Bayer
mosaic, 16 bits a sample (or 12 with --bits 12, packed in 16), uncompressed,
whose camera space is linear sRGB (ColorMatrix1 is sRGB's XYZ matrix), so a
demosaic gives back the colours it was made from. The scene is --colour on
the left half and white on the right (a white patch keeps LibRaw's
automatic brightness at 1), or --from an 8-bit RGB file in PPM (P6) form.

  --preview FILE.jpg   the embedded preview (none without)
  --size WxH           the raw data's size (default 600x400)
  --colour R,G,B       the left half's sRGB colour (default 200,40,40)
  --from FILE.ppm      the scene from an 8-bit RGB PPM (P6); its size is the
                       raw data's (--size is then ignored)
  --orientation N      EXIF orientation of IFD0 (default 1)
  --date 'YYYY:MM:DD HH:MM:SS'   DateTimeOriginal (default none)
  --bits 16|12         bits a raw sample (default 16)
  --no-raw             no raw IFD at all (a preview-only file)
Used by scripts/lib/make-raw.sh; the tests have a Swift twin (Tests/TestSupport/DNGFile.swift).
"""
import struct, sys

def srgb_to_linear(v):
    c = v / 255.0
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

class IFD:
    def __init__(self):
        self.entries = []  # (tag, type, count, bytes)
    def add(self, tag, typ, values):
        fmt = {1: 'B', 2: 'B', 3: 'H', 4: 'I', 5: 'II', 10: 'ii', 7: 'B'}[typ]
        if typ == 2:
            data = values.encode() + b'\0'; count = len(data)
        elif typ == 7:
            data = bytes(values); count = len(data)
        elif typ in (5, 10):
            data = b''.join(struct.pack('<' + fmt, *v) for v in values); count = len(values)
        else:
            data = struct.pack('<%d%s' % (len(values), fmt), *values); count = len(values)
        self.entries.append((tag, typ, count, data))

def write(out, ifds_spec):
    """ifds_spec: list of (ifd, blobs, subifd_index) laid out after the header."""
    raise NotImplementedError

def read_ppm(path):
    """An 8-bit binary PPM (P6): (width, height, bytes of RGB)."""
    data = open(path, 'rb').read()
    fields, at = [], 2
    if data[:2] != b'P6': raise ValueError(path + ': not a binary PPM (P6)')
    while len(fields) < 3:
        while data[at:at + 1].isspace(): at += 1
        if data[at:at + 1] == b'#':
            at = data.index(b'\n', at); continue
        start = at
        while not data[at:at + 1].isspace(): at += 1
        fields.append(int(data[start:at]))
    w, h, top = fields
    if top != 255: raise ValueError(path + ': not 8 bits a sample')
    pixels = data[at + 1:at + 1 + w * h * 3]
    if len(pixels) != w * h * 3: raise ValueError(path + ': pixels cut short')
    return w, h, pixels

def build(args):
    scene = read_ppm(args['from']) if args.get('from') else None
    w, h = (scene[0] // 2 * 2, scene[1] // 2 * 2) if scene else args['size']
    blobs = []  # (key, bytes) appended after the IFDs
    ifd0 = IFD(); raw = IFD(); exif = IFD()
    preview = args.get('preview')
    if preview:
        pw, ph = jpeg_size(preview)
        ifd0.add(254, 4, [1])
        ifd0.add(256, 4, [pw]); ifd0.add(257, 4, [ph])
        ifd0.add(258, 3, [8, 8, 8]); ifd0.add(259, 3, [7]); ifd0.add(262, 3, [6])
        ifd0.add(273, 4, [0])  # patched
        ifd0.add(277, 3, [3]); ifd0.add(278, 4, [ph]); ifd0.add(279, 4, [len(preview)])
    else:
        ifd0.add(254, 4, [1])
    ifd0.add(271, 2, 'Collage'); ifd0.add(272, 2, 'Test DNG')
    ifd0.add(274, 3, [args['orientation']])
    ifd0.add(305, 2, 'make-dng.py')
    if not args['no_raw']:
        ifd0.add(330, 4, [0])  # patched: SubIFDs
    if args['date']:
        ifd0.add(34665, 4, [0])  # patched: Exif IFD
        exif.add(36867, 2, args['date'])
    ifd0.add(50706, 1, [1, 4, 0, 0]); ifd0.add(50707, 1, [1, 1, 0, 0])
    ifd0.add(50708, 2, 'Collage Test DNG')
    m = [[3.2406, -1.5372, -0.4986], [-0.9689, 1.8758, 0.0415], [0.0557, -0.2040, 1.0570]]
    ifd0.add(50721, 10, [(int(round(v * 10000)), 10000) for row in m for v in row])
    ifd0.add(50778, 3, [21])
    ifd0.add(50728, 5, [(1, 1), (1, 1), (1, 1)])
    bits = args['bits']; top = (1 << bits) - 1
    if not args['no_raw']:
        raw.add(254, 4, [0]); raw.add(256, 4, [w]); raw.add(257, 4, [h])
        raw.add(258, 3, [16]); raw.add(259, 3, [1]); raw.add(262, 3, [32803])
        raw.add(273, 4, [0]); raw.add(277, 3, [1]); raw.add(278, 4, [h]); raw.add(279, 4, [w * h * 2])
        raw.add(284, 3, [1]); raw.add(33421, 3, [2, 2]); raw.add(33422, 1, [0, 1, 1, 2])
        raw.add(50714, 4, [0]); raw.add(50717, 4, [top])
        left = [srgb_to_linear(c) for c in args['colour']]
        white = [1.0, 1.0, 1.0]
        pattern = [[0, 1], [1, 2]]
        rows = []
        linear = [int(round(srgb_to_linear(v) * top)) for v in range(256)]
        for y in range(h):
            row = bytearray()
            for x in range(w):
                c = pattern[y % 2][x % 2]
                if scene:
                    value = linear[scene[2][(y * scene[0] + x) * 3 + c]]
                else:
                    value = int(round((left if x < w // 2 else white)[c] * top))
                row += struct.pack('<H', value)
            rows.append(bytes(row))
        rawdata = b''.join(rows)
    # Layout: header, IFD0, raw IFD, exif IFD, then out-of-line values, preview, raw data.
    def ifd_size(ifd):
        return 2 + 12 * len(ifd.entries) + 4
    def sorted_ifd(ifd):
        ifd.entries.sort(key=lambda e: e[0])
    for i in (ifd0, raw, exif): sorted_ifd(i)
    ifds = [ifd0] + ([] if args['no_raw'] else [raw]) + ([exif] if args['date'] else [])
    offset = 8
    at = {}
    for i in ifds:
        at[id(i)] = offset; offset += ifd_size(i)
    extra_at = offset
    # out-of-line values
    extras = bytearray()
    placed = {}
    for i in ifds:
        for e in i.entries:
            if len(e[3]) > 4:
                placed[(id(i), e[0])] = extra_at + len(extras)
                extras += e[3]
                if len(extras) % 2: extras += b'\0'
    offset = extra_at + len(extras)
    preview_at = offset
    if preview: offset += len(preview) + (len(preview) % 2)
    raw_at = offset
    def patch(ifd, tag, value):
        for k, e in enumerate(ifd.entries):
            if e[0] == tag:
                ifd.entries[k] = (e[0], e[1], e[2], struct.pack('<I', value))
    if preview: patch(ifd0, 273, preview_at)
    if not args['no_raw']:
        patch(ifd0, 330, at[id(raw)]); patch(raw, 273, raw_at)
    if args['date']: patch(ifd0, 34665, at[id(exif)])
    outb = bytearray(b'II*\0' + struct.pack('<I', 8))
    for i in ifds:
        outb += struct.pack('<H', len(i.entries))
        for e in i.entries:
            tag, typ, count, data = e
            if len(data) > 4:
                field = struct.pack('<I', placed[(id(i), tag)])
            else:
                field = data + b'\0' * (4 - len(data))
            outb += struct.pack('<HHI', tag, typ, count) + field
        outb += struct.pack('<I', 0)
    outb += extras
    if preview:
        outb += preview
        if len(preview) % 2: outb += b'\0'
    if not args['no_raw']:
        outb += rawdata
    return bytes(outb)

def jpeg_size(data):
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF: raise ValueError('not a JPEG')
        marker = data[i + 1]
        length = struct.unpack('>H', data[i + 2:i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            h, w = struct.unpack('>HH', data[i + 5:i + 9])
            return w, h
        i += 2 + length
    raise ValueError('no frame header in the preview')

def main(argv):
    if len(argv) < 2 or argv[1] in ('-h', '--help'):
        print(__doc__); return 64
    args = {'size': (600, 400), 'colour': (200, 40, 40), 'orientation': 1, 'date': None, 'bits': 16,
            'no_raw': False, 'preview': None}
    out = argv[1]; i = 2
    while i < len(argv):
        a = argv[i]
        if a == '--no-raw': args['no_raw'] = True; i += 1; continue
        v = argv[i + 1]; i += 2
        if a == '--preview': args['preview'] = open(v, 'rb').read()
        elif a == '--size': args['size'] = tuple(int(x) for x in v.split('x'))
        elif a == '--colour': args['colour'] = tuple(int(x) for x in v.split(','))
        elif a == '--orientation': args['orientation'] = int(v)
        elif a == '--date': args['date'] = v
        elif a == '--bits': args['bits'] = int(v)
        elif a == '--from': args['from'] = v
        else: print('make-dng.py: unknown option ' + a, file=sys.stderr); return 64
    data = build(args)
    with open(out, 'wb') as f: f.write(data)
    return 0

if __name__ == '__main__':
    sys.exit(main(sys.argv))
