#!/bin/bash
# Interleaved before/after end-to-end runs: B A B A (each spool bench run = 3 repetitions).
set -u
cd /tmp/proto-bench
for round in ${ROUNDS:-1 2}; do
  for which in before after; do
    if [ $which = before ]; then bin=/tmp/proto-before/spool; else bin=/work/wt-proto/build/spool; fi
    out=/tmp/proto-bench/$which-$round
    mkdir -p $out
    echo "== $which round $round $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
    timeout 900 $bin bench --workloads produce,consume --skip-peer --repetitions 3 --messages 1000000 --duration 3 --output-dir $out > $out/stdout 2> $out/stderr
    echo "rc $? $(date +%T)"
  done
done
