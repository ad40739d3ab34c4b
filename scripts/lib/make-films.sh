#!/usr/bin/env bash
# make-films.sh DEST [COUNT] [SECONDS]
#
# Films for the films benchmark: COUNT (default 3) MP4 files of SECONDS
# (default 60) at 1920x1080, 30 frames a second, H.264 (x264 veryfast, its
# B-frames, a keyframe every 4 s, as films are cut) with an AAC sound track,
# each FFmpeg's moving test pattern drifting through the hues at its own pace;
# and hdr.mp4: 10 s at 3840x2160, 25 frames a second, 10-bit HEVC (x265
# ultrafast) in HLG and BT.2020, tagged so, as phones record HDR. The HLG
# film is made from the SDR pattern by zimg (sRGB to linear light, SDR white
# at 203 cd/m² as BT.2408 puts it, to HLG): shown right, it looks as
# sdr-source.mp4 (the same pattern, 1080p H.264, kept beside DEST in
# DEST/source/, which the benchmark does not read) does.
# Files that already exist are kept.
#
# Needs the ffmpeg command (Debian's ffmpeg package, with libx264, libx265, zimg).
set -euo pipefail
dest=${1:?usage: make-films.sh DEST [COUNT] [SECONDS]}
count=${2:-3}
seconds=${3:-60}
mkdir -p "$dest/films" "$dest/source"
for ((i = 1; i <= count; i++)); do
  out="$dest/films/$(printf 'film-%02d' "$i").mp4"
  [ -s "$out" ] && continue
  ffmpeg -v error -y -f lavfi -i "testsrc2=s=1920x1080:r=30:d=$seconds,hue=h=$((i * 67))+t*$((i * 2))" \
    -f lavfi -i "sine=f=$((300 + i * 40)):d=$seconds" \
    -c:v libx264 -preset veryfast -g 120 -crf 22 -pix_fmt yuv420p -c:a aac -b:a 128k \
    -movflags +faststart "$out.tmp.mp4"
  mv "$out.tmp.mp4" "$out"
done
hdr="$dest/films/hdr.mp4"
if [ ! -s "$hdr" ]; then
  pattern="testsrc2=s=3840x2160:r=25:d=10,hue=h=t*18"
  ffmpeg -v error -y -f lavfi -i "$pattern" \
    -vf "format=gbrpf32le,zscale=tin=iec61966-2-1:min=gbr:pin=bt709:rin=full:t=arib-std-b67:m=bt2020nc:p=bt2020:r=limited:npl=203,format=yuv420p10le" \
    -c:v libx265 -preset ultrafast -x265-params "log-level=error:colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc:range=limited" \
    -color_primaries bt2020 -color_trc arib-std-b67 -colorspace bt2020nc -color_range tv \
    -movflags +faststart "$hdr.tmp.mp4"
  mv "$hdr.tmp.mp4" "$hdr"
  ffmpeg -v error -y -f lavfi -i "${pattern/3840x2160/1920x1080}" -c:v libx264 -preset veryfast -crf 18 \
    -pix_fmt yuv420p -movflags +faststart "$dest/source/sdr-source.mp4"
fi
echo "$count films of 1920x1080, $seconds s, and one of 3840x2160 10-bit HLG, 10 s, in $dest/films"
