#!/usr/bin/env bash
# Creates the virtual environment of tests/compat/py at build-venv/ (repo root,
# gitignored through build*/) and installs tests/compat/py/requirements.txt
# into it (exact pins, --require-hashes, wheels only).
# Idempotent: build-venv/.requirements.stamp holds the hash of the
# requirements file and the interpreter used; when it matches and the venv's
# python still runs, nothing is done. Runs as root on a fresh Debian 12
# (installs python3 / python3-venv through apt-get when they are missing).
set -euo pipefail
cd "$(dirname "$0")/../.."

VENV=build-venv
REQ=tests/compat/py/requirements.txt
STAMP=$VENV/.requirements.stamp

SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
apt_updated=0
apt_install() {
  if [ "$apt_updated" -eq 0 ]; then $SUDO apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@"
}

# /usr/bin/python3 (Debian's) or the python3 first on PATH, whichever is a
# CPython 3.11 (the interpreter the wheel hashes in requirements.txt cover;
# Debian 12's python3), Debian's first; else the first that exists (pip then
# says which wheel it cannot find).
pick_python() {
  local cands=() c first=""
  [ -x /usr/bin/python3 ] && cands+=(/usr/bin/python3)
  c=$(command -v python3 || true); [ -n "$c" ] && cands+=("$c")
  for c in "${cands[@]}"; do
    [ -z "$first" ] && first=$c
    if "$c" -c 'import sys; sys.exit(not (sys.implementation.name == "cpython" and sys.version_info[:2] == (3, 11)))' 2>/dev/null; then
      echo "$c"; return
    fi
  done
  echo "$first"
}
PY=$(pick_python)
if [ -z "$PY" ]; then
  echo "python-venv: no python3, installing Debian's"
  apt_install python3
  PY=$(pick_python)
fi
PY_ID="$PY $("$PY" -c 'import sys; print(sys.version.split()[0])')"
WANT="$(sha256sum "$REQ" | cut -d' ' -f1) $PY_ID"

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && "$VENV/bin/python" -c 'import sys' 2>/dev/null; then
  exit 0
fi

echo "python-venv: creating $VENV with $PY_ID and installing $REQ"
rm -f "$STAMP"
if ! "$PY" -m venv --clear "$VENV" >/dev/null 2>&1; then
  # Debian splits venv/ensurepip into python3-venv.
  echo "python-venv: '$PY -m venv' failed, installing python3-venv"
  apt_install python3-venv
  rm -rf "$VENV"
  "$PY" -m venv --clear "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --no-input --disable-pip-version-check \
  --require-hashes --only-binary=:all: -r "$REQ"
# The installed set must be exactly the pinned set (nothing else pulled in).
"$VENV/bin/python" - "$REQ" <<'EOF'
import re, sys
from importlib import metadata
norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
want = {}
for line in open(sys.argv[1]):
    m = re.match(r"^([A-Za-z0-9_.-]+)==(\S+)", line)
    if m:
        want[norm(m.group(1))] = m.group(2)
have = {norm(d.metadata["Name"]): d.version for d in metadata.distributions()}
have = {k: v for k, v in have.items() if k not in ("pip", "setuptools", "wheel")}
if have != want:
    extra = {k: v for k, v in have.items() if want.get(k) != v}
    missing = {k: v for k, v in want.items() if have.get(k) != v}
    sys.exit(f"python-venv: installed set differs from requirements: extra {extra}, missing {missing}")
EOF
echo "$WANT" > "$STAMP"
echo "python-venv: ready ($("$VENV/bin/python" -m pip freeze --disable-pip-version-check | tr '\n' ' '))"
