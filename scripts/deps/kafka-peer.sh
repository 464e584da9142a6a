#!/usr/bin/env bash
# The Apache Kafka 4.4.0 peer's jars (scripts/kafka-peer fetch: Java 17 and
# Maven from apt if missing, then the jars from Maven Central into
# ~/.cache/spool/kafka-4.4.0). The peer is only used by `make test-peer` and
# `make bench`, which fetch it themselves, so `make test` (CI) downloads
# nothing for it: this does nothing unless SPOOL_WITH_PEER=1.
set -euo pipefail
[ "${SPOOL_WITH_PEER:-0}" = 1 ] || exit 0
exec "$(dirname "$0")/../kafka-peer" fetch
