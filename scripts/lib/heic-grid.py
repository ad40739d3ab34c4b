#!/usr/bin/env python3
"""heic-grid.py PHOTO OUT WIDTH HEIGHT [PRESET]

A HEIC as a phone writes it: a grid of 512x512 HEVC tiles (an iPhone's
48 MP photo is 8064x6048 in 16x12 tiles, the last column cut). libheif 1.15
cannot encode grids and libvips' heifsave writes one picture, so: FFmpeg
scales PHOTO to the tiles' size, cuts it into tiles (untile) and x265 codes
each as an intra frame (PRESET, default "fast"); this script writes the
frames' NAL units as the tiles of a HEIF file, box by box (ftyp, meta with
its item tables and the grid's description in idat, mdat). The tests'
GridHEIF (Tests/TestSupport/GridHEIF.swift) writes the same boxes.
Needs ffmpeg with libx265.
"""
import os
import struct
import subprocess
import sys
import tempfile

TILE = 512


def box(kind, payload):
    return struct.pack(">I", len(payload) + 8) + kind.encode() + payload


def full(kind, payload, version=0, flags=0):
    return box(kind, bytes([version, 0, 0, flags]) + payload)


def units(stream):
    """The NAL units of an Annex B stream."""
    starts, i = [], 0
    while True:
        i = stream.find(b"\x00\x00\x01", i)
        if i < 0:
            break
        starts.append(i + 3)
        i += 3
    out = []
    for n, start in enumerate(starts):
        end = starts[n + 1] - 3 if n + 1 < len(starts) else len(stream)
        while end > start and stream[end - 1] == 0:
            end -= 1
        out.append(stream[start:end])
    return out


def nal_type(unit):
    return (unit[0] >> 1) & 0x3F


def hvcc(sets):
    sps = sets[1]
    profile = sps[3:15]  # general profile_tier_level, after the SPS's first byte
    body = bytes([1]) + profile + bytes([0xF0, 0x00, 0xFC, 0xFD, 0xF8, 0xF8, 0, 0, 0x0F, len(sets)])
    for s in sets:
        body += bytes([0x80 | nal_type(s)]) + struct.pack(">HH", 1, len(s)) + s
    return box("hvcC", body)


def meta(width, height, columns, rows, sets, frames, mdat_start):
    grid, tiles = 1, list(range(2, len(frames) + 2))
    hdlr = full("hdlr", b"\0\0\0\0pict" + bytes(13))
    pitm = full("pitm", struct.pack(">H", grid))
    entries = full("infe", struct.pack(">HH", grid, 0) + b"grid\0", version=2)
    for t in tiles:
        entries += full("infe", struct.pack(">HH", t, 0) + b"hvc1\0", version=2, flags=1)
    iinf = full("iinf", struct.pack(">H", len(tiles) + 1) + entries)
    iref = full("iref", box("dimg", struct.pack(">HH", grid, len(tiles)) + b"".join(struct.pack(">H", t) for t in tiles)))
    ipco = box("ipco", hvcc(sets) + full("ispe", struct.pack(">II", TILE, TILE)) + full("ispe", struct.pack(">II", width, height)))
    ipma = full("ipma", struct.pack(">I", len(tiles) + 1) + struct.pack(">HBB", grid, 1, 3)
                + b"".join(struct.pack(">HBBB", t, 2, 0x81, 2) for t in tiles))
    iprp = box("iprp", ipco + ipma)
    idat = box("idat", bytes([0, 0, rows - 1, columns - 1]) + struct.pack(">HH", width, height))
    locations = struct.pack(">HHHHII", grid, 1, 0, 1, 0, 8)
    offset = mdat_start
    for t, frame in zip(tiles, frames):
        locations += struct.pack(">HHHHII", t, 0, 0, 1, offset, len(frame))
        offset += len(frame)
    iloc = full("iloc", bytes([0x44, 0x00]) + struct.pack(">H", len(tiles) + 1) + locations, version=1)
    return full("meta", hdlr + pitm + iinf + iref + iprp + idat + iloc)


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    photo, out, width, height = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    preset = sys.argv[5] if len(sys.argv) > 5 else "fast"
    columns, rows = -(-width // TILE), -(-height // TILE)
    with tempfile.TemporaryDirectory() as scratch:
        stream = os.path.join(scratch, "tiles.hevc")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", photo, "-vf",
                        f"scale={columns * TILE}:{rows * TILE}:flags=bicubic:out_color_matrix=bt601:out_range=limited,"
                        f"format=yuv420p,untile={columns}x{rows}",
                        "-c:v", "libx265", "-preset", preset, "-x265-params", "keyint=1:crf=20:log-level=error:info=0",
                        "-f", "hevc", stream], check=True)
        with open(stream, "rb") as f:
            all_units = units(f.read())
    sets = [u for u in all_units if nal_type(u) in (32, 33, 34)][:3]
    frames = []
    for u in all_units:
        if nal_type(u) < 32:
            if u[2] & 0x80 or not frames:
                frames.append(b"")
            frames[-1] += struct.pack(">I", len(u)) + u
    if len(frames) != columns * rows:
        sys.exit(f"heic-grid.py: x265 gave {len(frames)} frames for {columns * rows} tiles")
    ftyp = box("ftyp", b"heic\0\0\0\0mif1heic")
    first = meta(width, height, columns, rows, sets, frames, 0)
    body = meta(width, height, columns, rows, sets, frames, len(ftyp) + len(first) + 8)
    with open(out + ".part", "wb") as f:
        f.write(ftyp + body + box("mdat", b"".join(frames)))
    os.replace(out + ".part", out)


if __name__ == "__main__":
    main()
