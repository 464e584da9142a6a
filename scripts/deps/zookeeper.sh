#!/usr/bin/env bash
# ZooKeeper for cluster mode: Debian's `zookeeper` 3.8 server (run by
# tests/support/zk-server and `make run-cluster`; it needs a JRE, which apt
# pulls in) and `libzookeeper-mt-dev`, the C client src/cluster links (the
# configure fails without it). Idempotent: installs only what is missing.
set -euo pipefail

missing=()
for p in zookeeper libzookeeper-mt-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" >/dev/null || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps/zookeeper: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The server must not run as the system service: tests start their own.
if command -v systemctl >/dev/null 2>&1 && systemctl is-enabled zookeeper >/dev/null 2>&1; then
  echo "deps/zookeeper: note: the zookeeper system service is enabled (port 2181); tests use their own servers"
fi
command -v java >/dev/null 2>&1 || { echo "deps/zookeeper: java missing after install" >&2; exit 1; }
[ -f /usr/share/java/zookeeper.jar ] || { echo "deps/zookeeper: /usr/share/java/zookeeper.jar missing" >&2; exit 1; }
