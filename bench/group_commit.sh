#!/usr/bin/env bash
# Group commit in numbers: acks=1 and acks=all durable produce with 1, 8 and 32
# concurrent librdkafka producers (kbench from ../shared/tools), each against
# a fresh broker; prints aggregate throughput and how many fsyncs the broker
# made (from its shutdown line). A benchmark, not a test: no thresholds.
#   bench/group_commit.sh [MESSAGES_PER_PRODUCER] [SIZE]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-20000}
SIZE=${2:-1024}
TOOLS=${SPOOL_TOOLS:-../shared/tools}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/kbench" "$TOOLS/kbench.c" -lrdkafka
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

printf "%-10s %-5s %-12s %-10s %-8s %-14s\n" producers acks msgs_per_s MB_per_s fsyncs msgs_per_fsync
for p in 1 8 32; do for acks in 1 -1; do
  rm -rf "$work/data"
  build/spool broker --override log.dirs="$work/data" --override listeners=PLAINTEXT://127.0.0.1:$port \
    --override log.level=info 2> "$work/broker.log" &
  pid=$!
  for _ in $(seq 100); do (echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.05; done
  build/spool topic create gc --partitions 1 --bootstrap-server 127.0.0.1:$port > /dev/null
  start=$(date +%s.%N)
  for i in $(seq "$p"); do
    "$work/kbench" 127.0.0.1:$port produce gc "$N" "$SIZE" "$acks" 0 > "$work/out.$i" &
  done
  wait $(jobs -p | grep -v "^$pid$") 2>/dev/null || true
  end=$(date +%s.%N)
  kill -TERM $pid; wait $pid || true
  fsyncs=$(grep -o '[0-9]* fsync calls' "$work/broker.log" | awk '{print $1}')
  total=$((N * p))
  python3 - "$total" "$SIZE" "$start" "$end" "$fsyncs" "$p" "$acks" <<'PY'
import sys
total, size, start, end, fsyncs, p, acks = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5] or 0), sys.argv[6], sys.argv[7]
secs = end - start
print(f"{p:<10} {acks:<5} {total/secs:<12.0f} {total*size/secs/1e6:<10.1f} {fsyncs:<8} {total/max(fsyncs,1):<14.1f}")
PY
done; done
