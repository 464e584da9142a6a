#!/bin/bash
# Interleaved micro-benchmark runs, before/after, 3 rounds; each run 3 repetitions (aggregates: median).
cd /tmp/proto-bench
for round in 1 2 3; do
  echo "== round $round $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  /tmp/proto-before/spool_micro_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_min_time=0.2 --benchmark_format=csv > micro-before-$round.csv 2>/dev/null
  /work/wt-proto/build/bench/spool_micro_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_min_time=0.2 --benchmark_format=csv > micro-after-$round.csv 2>/dev/null
  /tmp/proto-before/protocol_bench_before --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_min_time=0.2 --benchmark_format=csv > proto-before-$round.csv 2>/dev/null
done
echo "done $(date +%T)"
