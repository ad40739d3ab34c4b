#!/usr/bin/env bash
# The Debian package, end to end: builds it from the working tree with
# scripts/package, installs it with apt-get, uses the installed collage with a
# clean environment, then removes it and checks that every file it installed
# is gone. Needs root (it installs a package); without root it says so and
# exits 0. Prints "ok - ..." or "FAIL - ..." per check and exits 1 on a failure.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

if [ "$(id -u)" -ne 0 ]; then
  echo "package test: SKIPPED, it installs and removes a .deb and needs root"
  exit 0
fi

passed=0 failed=0
ok() { echo "ok - $1"; passed=$((passed + 1)); }
fail() { echo "FAIL - $1"; failed=$((failed + 1)); }
check() {  # check DESCRIPTION COMMAND...: ok when COMMAND succeeds
  local what=$1; shift
  if "$@"; then ok "$what"; else fail "$what"; fi
}
finish() {
  echo "package test: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit $?
}

# man-db: `man -w`; libvips-tools: vipsheader; bash: completion check.
(source scripts/lib/common.sh && ensure_packages man-db libvips-tools) || { fail "installing man-db, libvips-tools"; finish; }

# A run without stdin, as in CI: apt-get and dpkg must not ask anything.
export DEBIAN_FRONTEND=noninteractive
work=$(mktemp -d)
installed=0
cleanup() {
  [ "$installed" -eq 1 ] && dpkg -r collage >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

if dpkg-query -W -f='${Status}' collage 2>/dev/null | grep -q "install ok installed"; then
  echo "package test: note: a collage package was installed already; it is replaced, then removed"
fi

echo "package test: building the package (scripts/package) ..."
started=$SECONDS
if ! bash scripts/package > "$work/package.out" 2> "$work/package.err"; then
  cat "$work/package.err"
  fail "scripts/package builds the package"
  finish
fi
deb=$(tail -1 "$work/package.out")
version=$(sed -n 's/^ *static let version = "\([^"]*\)".*/\1/p' Sources/collage/CollageOptions.swift)
check "scripts/package prints the .deb's path last: $deb" \
  test -f "$deb" -a "$(basename "$deb")" = "collage_${version}_$(dpkg --print-architecture).deb"
echo "package test: built in $((SECONDS - started)) s, $(du -h "$deb" | cut -f1)"

# Installed pages are compared with the committed one: a stale docs/collage.1 fails here.
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/man/man1/collage.1.gz | gzip -dc > "$work/collage.1"
check "the packaged manual page is docs/collage.1 (else run scripts/manual)" cmp -s "$work/collage.1" docs/collage.1

# The lists may be empty on a fresh machine: apt-get needs them for Depends.
ls /var/lib/apt/lists/*_Packages >/dev/null 2>&1 || apt-get update -qq
# Images of Debian may exclude /usr/share/man and /usr/share/doc from
# installs (dpkg path-exclude); the package's own files are let through.
if ! apt-get install -y -qq -o Dpkg::Options::=--path-include='*collage*' "$(realpath "$deb")" \
    > "$work/install.log" 2>&1; then
  cat "$work/install.log"
  fail "apt-get install ./$(basename "$deb")"
  finish
fi
installed=1
ok "apt-get install ./$(basename "$deb") (pulls in its Depends and Recommends)"
dpkg-query -W -f='${Depends}\n' collage | grep -q libvips42 && dpkg-query -W -f='${Depends}\n' collage | grep -q fonts-dejavu-core
check "Depends names libvips42 and fonts-dejavu-core" test $? -eq 0
dpkg-query -W -f='${Depends}\n' collage | grep -q libraw20
check "Depends names libraw20 (RAW photos)" test $? -eq 0
depends=$(dpkg-query -W -f='${Depends}\n' collage)
[[ $depends =~ fonts-wqy-microhei && $depends =~ "fonts-noto-color-emoji | fonts-symbola" ]]
check "Depends names the caption fonts: fonts-wqy-microhei, fonts-noto-color-emoji | fonts-symbola" test $? -eq 0
recommends=$(dpkg-query -W -f='${Recommends}\n' collage)
[[ $recommends =~ libavformat[0-9]+ && $recommends =~ libavcodec[0-9]+ && $recommends =~ libswscale[0-9]+ ]]
check "Recommends names FFmpeg's libraries (--video)" test $? -eq 0
[[ $recommends =~ fonts-noto-core ]]
check "Recommends names fonts-noto-core (Devanagari and the other scripts)" test $? -eq 0
mapfile -t files < <(dpkg -L collage | while read -r f; do [ -f "$f" ] || [ -L "$f" ] && echo "$f"; done)
check "dpkg -L lists installed files (${#files[@]})" test "${#files[@]}" -ge 5

check "/usr/bin/collage --version is $version" test "$(/usr/bin/collage --version 2>&1)" = "$version"

check "fonts-dejavu-core came with it (DejaVuSans.ttf)" test -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
check "fonts-wqy-microhei came with it (wqy-microhei.ttc)" test -f /usr/share/fonts/truetype/wqy/wqy-microhei.ttc

# A real collage from a clean environment, with captions (real fonts) when
# this build has them.
captions=()
/usr/bin/collage --help 2>/dev/null | grep -q -- '--label' && captions=(--label '{name}')
mkdir "$work/out"
(cd "$work/out" && env -i PATH=/usr/bin:/bin /usr/bin/collage "$ROOT/samples" "${captions[@]}" \
  -o collage.jpg > stdout 2> stderr); status=$?
check "env -i PATH=/usr/bin:/bin collage samples/ exits 0 (was $status)" test "$status" -eq 0
check "it prints the path it wrote" test "$(cat "$work/out/stdout" 2>/dev/null)" = "collage.jpg"
[ -s "$work/out/stderr" ] && sed 's/^/  stderr: /' "$work/out/stderr"
size=$(vipsheader -f width "$work/out/collage.jpg" 2>/dev/null)x$(vipsheader -f height "$work/out/collage.jpg" 2>/dev/null)
check "vipsheader: collage.jpg is a 1200x800 image (got $size)" test "$size" = "1200x800"
check "vipsheader: it is a JPEG" sh -c "vipsheader '$work/out/collage.jpg' | grep -q jpegload"

# Captions in every script: -v says nothing of missing glyphs, or, where
# fonts-noto-core was not installed (apt told not to install Recommends),
# names it for the Devanagari caption alone.
mkdir "$work/scripts"
i=0
for name in "Crème Ångström" "Привет" "Καλημέρα" "東京 서울" "مرحبا" "שלום" "नमस्ते" "Party 🎉😀"; do
  cp "$ROOT/samples/$(ls "$ROOT/samples" | grep -v portrait | grep '\.jpg$' | sed -n "$((i % 5 + 1))p")" "$work/scripts/$name.jpg"
  i=$((i + 1))
done
(cd "$work/out" && env -i PATH=/usr/bin:/bin /usr/bin/collage -v --sheets --max 8 --label '{stem}' \
  "$work/scripts" -o scripts.png > /dev/null 2> scripts.err); status=$?
check "captions in every script: exit 0 (was $status)" test "$status" -eq 0
missing=$(grep 'no installed font' "$work/out/scripts.err")
if dpkg-query -W -f='${Status}' fonts-noto-core 2>/dev/null | grep -q 'install ok installed'; then
  check "captions in every script: no glyph is missing (${missing:-none})" test -z "$missing"
else
  check "without fonts-noto-core, -v names it for Devanagari alone" \
    sh -c "test \"\$(printf '%s\n' \"\$1\" | wc -l)\" = 1 && printf '%s' \"\$1\" | grep -q 'नमस्ते.*install fonts-noto-core'" _ "$missing"
fi

# No toolchain: with the Swift toolchain's folder hidden under an empty
# tmpfs (in a private mount namespace) it still runs.
swift_bin=$(source scripts/lib/common.sh >/dev/null 2>&1 && ensure_swift >/dev/null 2>&1 && command -v swift)
toolchain=$(dirname "$(dirname "$(dirname "$(realpath "${swift_bin:-/nonexistent}" 2>/dev/null || echo /x/x/x/x)")")")
if [ -d "$toolchain" ] && [ "$toolchain" != / ] && [ "$toolchain" != /usr ] \
    && unshare -m sh -c "mount -t tmpfs none '$toolchain'" 2>/dev/null; then
  unshare -m sh -c "mount -t tmpfs none '$toolchain' && cd '$work/out' && env -i PATH=/usr/bin:/bin \
    /usr/bin/collage '$ROOT/samples' -o hidden.jpg >/dev/null 2>&1 && test -s hidden.jpg"
  check "with the toolchain ($toolchain) hidden, collage still makes a collage" test $? -eq 0
else
  echo "package test: note: the Swift toolchain's folder cannot be hidden here; the ldd checks stand for it"
fi

libraries=$(ldd /usr/bin/collage 2>&1)
check "ldd /usr/bin/collage: nothing 'not found'" sh -c "! grep -q 'not found' <<'EOF'
$libraries
EOF"
check "ldd /usr/bin/collage: nothing from /opt/swift, no libswift" sh -c "! grep -q -e /opt/swift -e libswift <<'EOF'
$libraries
EOF"

# liborc's lock (Sources/CVipsShim/OrcLock.c) where users run it: the
# installed, stripped binary still defines orc_program_compile and
# orc_program_free, the dynamic linker binds libvips' calls to them (and
# theirs to liborc's), and resizes on two threads at once, run after run,
# all succeed (without the lock about one such run in 300 crashed).
orc=$(cd "$work/out" && env -i PATH=/usr/bin:/bin LD_DEBUG=bindings /usr/bin/collage "$ROOT/samples" -o orc.jpg 2>&1 >/dev/null)
bound() {  # bound SYMBOL: libvips' calls go to /usr/bin/collage's, and its to liborc's
  grep -q "libvips\.so.* to /usr/bin/collage .*\`$1'" <<<"$orc" && grep -q "/usr/bin/collage .* to .*liborc.*\`$1'" <<<"$orc"
}
for symbol in orc_program_compile orc_program_free; do
  check "libvips' $symbol is bound to /usr/bin/collage's, and that one to liborc's" bound "$symbol"
done
mkdir "$work/orc" "$work/orc-out"
for i in $(seq 1 24); do
  vips thumbnail "$ROOT/samples/$(ls "$ROOT/samples" | grep '\.jpg$' | sed -n "$(( (i % 6) + 1 ))p")" \
    "$work/orc/$(printf '%02d' "$i").jpg" $((40 + i)) --height 30 --size force 2>/dev/null
done
crashed=0
for run in $(seq 1 30); do
  env -i PATH=/usr/bin:/bin /usr/bin/collage "$work/orc" --sheets --jobs 2 --allow-portrait \
    -o "$work/orc-out/{n}.jpg" >/dev/null 2>&1 || crashed=$((crashed + 1))
done
check "30 runs of 24 small images on two threads each all exit 0 (failed: $crashed)" test "$crashed" -eq 0

page=$(man -w collage 2>/dev/null)
check "man -w collage finds /usr/share/man/man1/collage.1.gz (got '$page')" test "$page" = /usr/share/man/man1/collage.1.gz
check "the manual's synopsis is 'collage [OPTIONS] INPUT... [-o OUTPUT]'" \
  sh -c "MANWIDTH=100 man -P cat collage 2>/dev/null | grep -q 'collage \[OPTIONS\] INPUT\.\.\. \[-o OUTPUT\]'"

check "bash completion in /usr/share/bash-completion/completions/collage" \
  bash -c 'source /usr/share/bash-completion/completions/collage && complete -p collage >/dev/null'
check "zsh completion in /usr/share/zsh/vendor-completions/_collage" \
  grep -q '#compdef collage' /usr/share/zsh/vendor-completions/_collage
check "fish completion in /usr/share/fish/vendor_completions.d/collage.fish" \
  grep -q "complete -c 'collage'" /usr/share/fish/vendor_completions.d/collage.fish

bad_owner=$(for f in "${files[@]}"; do stat -c '%U:%G %n' "$f"; done | grep -v '^root:root ' || true)
check "every installed file is root:root" test -z "$bad_owner"

if dpkg -r collage > "$work/remove.log" 2>&1; then
  installed=0
  ok "dpkg -r collage"
else
  cat "$work/remove.log"
  fail "dpkg -r collage"
fi
left=()
for f in "${files[@]}"; do [ -e "$f" ] || [ -L "$f" ] && left+=("$f"); done
check "every file dpkg -L listed is gone (${#files[@]} checked; left: ${left[*]:-none})" test "${#left[@]}" -eq 0
check "collage is no longer installed" sh -c "! dpkg-query -W -f='\${Status}' collage 2>/dev/null | grep -q 'install ok installed'"
echo "package test: took $((SECONDS - started)) s"
finish
