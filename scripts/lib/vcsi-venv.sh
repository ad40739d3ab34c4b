#!/usr/bin/env bash
# vcsi-venv.sh DEST
#
# vcsi 7.0.17 (the video contact sheet tool, from PyPI) in a Python virtual
# environment at DEST, for the films benchmark: DEST/bin/vcsi. Its Pillow
# and NumPy serve scripts/lib/film-brightness.py too.
#
# Needs python3 with its venv module (Debian's python3-venv) and PyPI.
set -euo pipefail
dest=${1:?usage: vcsi-venv.sh DEST}
/usr/bin/python3 -m venv "$dest"
"$dest/bin/pip" install -q --disable-pip-version-check vcsi==7.0.17
"$dest/bin/vcsi" --version
