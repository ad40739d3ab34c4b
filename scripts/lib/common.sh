# Shared by scripts/demo, scripts/test and scripts/bench: install what is
# missing (Debian/Ubuntu), find the toolchain. Sourced, not run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

# ensure_packages PKG...: apt-get install the Debian packages not yet installed.
ensure_packages() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "collage: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  echo "Installing ${missing[*]} ..." >&2
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

ensure_swift() {
  if ! command -v swift >/dev/null; then
    for dir in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
      [ -x "$dir/swift" ] && export PATH="$dir:$PATH" && return 0
    done
    echo "collage: Swift 6 is needed (https://www.swift.org/install/linux/)" >&2
    exit 1
  fi
}

# What building and running collage needs. The shim includes Pango's and
# fontconfig's headers and links them (the font check), and zlib's (the
# difference pictures' PNGs): libvips-dev pulls them in today, named here
# so that stays true.
ensure_build_deps() {
  ensure_packages libvips-dev libpango1.0-dev libfontconfig-dev zlib1g-dev pkg-config
  # libjpeg (libjpeg-turbo): the pick's small looks of JPEG photos (CJPEG); libvips-dev pulls it in, named here
  ensure_packages libjpeg-dev
  # RAW photos (LibRaw) and, loaded only under --video, FFmpeg's libraries:
  # their headers to build; the libraries come with them.
  ensure_packages libraw-dev libavcodec-dev libavformat-dev libavutil-dev libswscale-dev
  # HEIF photos: libvips' loader uses libheif, to which Sources/CHEVC adds a
  # threaded libde265 decoder (libvips-dev pulls both in; named here); AVIF
  # grids' AV1 tiles go through dav1d, libheif's own AV1 decoder.
  ensure_packages libheif-dev libde265-dev libdav1d-dev
  # Plain PNGs (the screenshots --diff compares): zlib inflates them and
  # libdeflate checks their chunks' CRCs, through Sources/CPNG.
  ensure_packages libdeflate-dev zlib1g-dev
  # PDF output (-o NAME.pdf): cairo's PDF surface and pango-cairo's text,
  # through Sources/CCairo (pkg-config pangocairo names both).
  ensure_packages libcairo2-dev libpango1.0-dev
  # XMP (face regions, ratings, labels): libxml2's parser, through Sources/CXML
  # (libvips links libxml2 already; its headers come with libxml2-dev).
  ensure_packages libxml2-dev
  ensure_swift
  quiet_pkg_config
}

# SwiftPM refuses the -pthread that glib's pkg-config files give (libvips'
# and pango's needs), each time with a warning, though glibc has no separate
# thread library to link. The build reads copies of those files without it,
# made from the machine's own each time (so they follow its glib).
quiet_pkg_config() {
  local quiet="$ROOT/.build/pkg-config-quiet" dir file name dirs made=" "
  mkdir -p "$quiet"
  IFS=: read -ra dirs <<< "$(pkg-config --variable pc_path pkg-config)"
  for dir in "${dirs[@]}"; do
    for file in "$dir"/*.pc; do
      name=${file##*/}
      [[ $made == *" $name "* ]] && continue  # the first on the path wins, as pkg-config takes it
      grep -qw -- -pthread "$file" 2>/dev/null || continue
      # Each copy replaced whole (another script's build may be reading it).
      sed -E 's/(^|[[:space:]])-pthread([[:space:]]|$)/\1\2/g' "$file" > "$quiet/.$name.$$"
      mv -f "$quiet/.$name.$$" "$quiet/$name"
      made+="$name "
    done
  done
  for file in "$quiet"/*.pc; do  # a copy of a file that no longer has -pthread goes
    [ -e "$file" ] && [[ $made != *" ${file##*/} "* ]] && rm -f "$file"
  done
  export PKG_CONFIG_PATH="$quiet${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
}

# Fonts for captions and titles in every script, the same as the package's
# Depends and Recommends (scripts/package): DejaVu (Latin, Greek, Cyrillic,
# Arabic, Hebrew; the tests and pictures name DejaVu Sans), WenQuanYi Micro
# Hei (Chinese, Japanese, Korean), Noto Color Emoji, and Noto's core fonts
# (Devanagari and the other scripts); and Symbola, the package's other
# choice for emoji (monochrome), which a test draws with.
CAPTION_FONTS=(fonts-dejavu-core fonts-wqy-microhei fonts-noto-color-emoji fonts-noto-core fonts-symbola)
ensure_fonts() {
  ensure_packages "${CAPTION_FONTS[@]}"
}
