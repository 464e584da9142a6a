#!/usr/bin/env bash
# Go toolchain and modules of the Go compatibility tests (tests/compat/go):
# installs Debian's golang if `go` is missing, checks it is new enough for
# go.mod, downloads the pinned modules (go.sum) into Go's module cache and
# compiles the test packages once so ctest downloads and rebuilds nothing.
# Idempotent: a stamp in Go's build cache (go.sum + go version) and an
# offline check of the module cache skip the work when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/../../tests/compat/go"

if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  export PATH="$PATH:/usr/local/go/bin"
fi
if ! command -v go >/dev/null 2>&1; then
  echo "deps/go: installing Debian's golang" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends golang
fi

# The pinned clients need the Go release named in go.mod; no toolchain is
# downloaded (GOTOOLCHAIN=local), so an older go fails here, loudly.
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly
want=$(sed -n 's/^go \([0-9.]*\)$/\1/p' go.mod)
have=$(go env GOVERSION | sed 's/^go//')
if [ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | sed -n 1p)" != "$want" ]; then
  echo "deps/go: go $have is older than go $want required by tests/compat/go/go.mod" >&2
  exit 1
fi

stamp="$(go env GOCACHE)/spool-compat-go.stamp"
key="$(sha256sum go.sum | cut -d' ' -f1) $have"
# Done when the stamp matches and every module the tests need is in the
# module cache (checked offline).
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ] &&
   GOPROXY=off go list -deps -test ./... >/dev/null 2>&1; then
  exit 0
fi
echo "deps/go: downloading Go modules and compiling tests/compat/go" >&2
go mod download
go mod verify >/dev/null
for pkg in ./franz/ ./sarama/ ./kafkago/; do
  go test -c -o /dev/null "$pkg"
done
mkdir -p "$(dirname "$stamp")"
echo "$key" > "$stamp"
