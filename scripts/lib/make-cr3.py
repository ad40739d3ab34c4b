#!/usr/bin/env python3
"""make-cr3.py OUT THUMB.jpg PREVIEW.jpg FULL.jpg: writes a Canon CR3's boxes.

ftyp (brand "crx "), moov holding Canon's uuid box (CMT1: IFD0 with the
orientation, THMB: THUMB.jpg) and a trak whose first sample (co64, stsz) is
FULL.jpg, the preview's uuid box (PRVW: PREVIEW.jpg), then mdat (FULL.jpg).
No raw data: what a camera newer than the RAW library looks like to it.
The tests have a Swift twin (Tests/TestSupport/CR3File.swift).
"""
import struct, sys

def box(kind, payload):
    return struct.pack('>I', 8 + len(payload)) + kind.encode() + payload

def main():
    out, thumb, preview, full = sys.argv[1:5]
    thumb, preview, full = (open(p, 'rb').read() for p in (thumb, preview, full))
    canon_uuid = bytes.fromhex('85c0b687820f11e08111f4ce462b6a48')
    preview_uuid = bytes.fromhex('eaf42b5e1c984b88b9fbb7dc406e4d16')
    cmt1 = b'II*\0' + struct.pack('<IH', 8, 1) + struct.pack('<HHIHH', 274, 3, 1, 1, 0) + struct.pack('<I', 0)
    canon = box('CMT1', cmt1) + box('THMB', b'\0\0\0\0' + struct.pack('>HHI', 160, 120, len(thumb)) + b'\0\1\0\0' + thumb)
    ftyp = box('ftyp', b'crx ' + struct.pack('>I', 1) + b'crx isom')
    prvw = box('uuid', preview_uuid + b'\0' * 7 + b'\1'
               + box('PRVW', b'\0\0\0\0\0\1' + struct.pack('>HH', 1620, 1080) + b'\0\1' + struct.pack('>I', len(preview)) + preview))
    def moov(at):
        stbl = box('stsz', struct.pack('>IIII', 0, 0, 1, len(full))) + box('co64', struct.pack('>IIQ', 0, 1, at))
        return box('moov', box('uuid', canon_uuid + canon) + box('trak', box('mdia', box('minf', box('stbl', stbl)))))
    at = len(ftyp) + len(moov(0)) + len(prvw) + 8
    open(out, 'wb').write(ftyp + moov(at) + prvw + box('mdat', full))

main()
