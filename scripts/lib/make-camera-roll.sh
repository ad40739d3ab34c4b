#!/usr/bin/env bash
# make-camera-roll.sh SAMPLES DEST
#
# A camera roll as the picture of docs/camera-rolls.md shows it, made from the
# photos of SAMPLES (the repository's samples/): DEST/ gets
#   IMG_0001.JPG                  a photo
#   IMG_0002.DNG + IMG_0002.JPG   RAW+JPEG of one shot (the JPEG is placed)
#   IMG_0003.DNG                  a RAW with a full-size JPEG preview
#   IMG_0004.DNG                  a RAW without a preview (demosaiced)
#   IMG_0005.HEIC                 a phone's photo
#   IMG_0006.HEIC + IMG_0006.MOV  a Live Photo (the still is placed)
#   VID_0007.MP4                  an 8 s video that fades in from black
#   IMG_0001.xmp, @eaDir/...      a sidecar and a Synology's thumbnails
# The DNGs are written by make-dng.py; the HEICs by libvips, the movies by
# ffmpeg. Needs python3, the vips command and ffmpeg.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
samples=${1:?usage: make-camera-roll.sh SAMPLES DEST}
dest=${2:?usage: make-camera-roll.sh SAMPLES DEST}
mkdir -p "$dest/@eaDir/IMG_0001.JPG"
cp "$samples/aqua.jpg" "$dest/IMG_0001.JPG"
cp "$samples/dune.jpg" "$dest/IMG_0002.JPG"
python3 "$here/make-dng.py" "$dest/IMG_0002.DNG" --preview "$samples/dune.jpg" --size 256x160
python3 "$here/make-dng.py" "$dest/IMG_0003.DNG" --preview "$samples/twowings.jpg" --size 256x160
vips thumbnail "$samples/raindrops.jpg" "$dest/scene.ppm" 768
python3 "$here/make-dng.py" "$dest/IMG_0004.DNG" --from "$dest/scene.ppm"
rm "$dest/scene.ppm"
vips copy "$samples/greenmeadow.jpg" "$dest/IMG_0005.HEIC[Q=70]"
vips copy "$samples/twowings.jpg" "$dest/IMG_0006.HEIC[Q=70]"
ffmpeg -v error -y -loop 1 -framerate 30 -t 3 -i "$samples/twowings.jpg" \
  -c:v libx264 -preset veryfast -pix_fmt yuv420p -vf 'scale=1024:640' -f mov "$dest/IMG_0006.MOV"
ffmpeg -v error -y -loop 1 -framerate 30 -t 8 -i "$samples/raindrops.jpg" \
  -vf "scale=1280:800,crop=1024:640:'t*30':'t*15',fade=in:st=0:d=2" \
  -c:v libx264 -preset veryfast -pix_fmt yuv420p -movflags +faststart "$dest/VID_0007.MP4"
printf '<x:xmpmeta xmlns:x="adobe:ns:meta/"/>\n' >"$dest/IMG_0001.xmp"
for size in B M S XL; do
  vips thumbnail "$samples/aqua.jpg" "$dest/@eaDir/IMG_0001.JPG/SYNOPHOTO_THUMB_$size.jpg" 160
done
