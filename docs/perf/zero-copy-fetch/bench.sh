#!/bin/bash
# Consume throughput from page cache, as in docs/perf/zero-copy-fetch.md.
# usage: bench.sh SPOOL_BIN LABEL [runs]
#   produce 1M x 1 KB (librdkafka, acks=1), then read it back RUNS times with
#   the librdkafka consumer (kbench) and RUNS times with a raw Fetch v4 pump,
#   printing MB/s and the CPU seconds the broker and the client spent.
# Needs: cc -O2 -o /tmp/zc/kbench /work/shared/tools/kbench.c -lrdkafka
#        cc -O2 -o /tmp/zc/fetchpump docs/perf/zero-copy-fetch/fetchpump.c
# SPOOL_SENDFILE=0 in the environment runs the broker on the copy path.
BIN=$1; LABEL=$2; RUNS=${3:-5}; PORT=19592
DATA=/tmp/zc-data-$LABEL
rm -rf $DATA
$BIN broker --override log.dirs=$DATA --override listeners=PLAINTEXT://127.0.0.1:$PORT > /tmp/zc/broker-$LABEL.log 2>&1 &
BPID=$!
for i in $(seq 100); do (echo > /dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break; sleep 0.1; done
/tmp/zc/kbench 127.0.0.1:$PORT produce bench 1000000 1024 1 | tee /tmp/zc/produce-$LABEL.txt
cpu() { awk '{print $14+$15}' /proc/$BPID/stat; }
for r in $(seq $RUNS); do
  c0=$(cpu)
  out=$(/usr/bin/time -f "client_cpu_s=%U+%S" /tmp/zc/kbench 127.0.0.1:$PORT consume bench 1000000 2>&1 | tr '\n' ' ')
  c1=$(cpu)
  echo "$out broker_cpu_s=$(echo "($c1-$c0)/100" | bc -l | cut -c1-5)" | tee -a /tmp/zc/consume-$LABEL.txt
done
for r in $(seq $RUNS); do
  c0=$(cpu)
  out=$(/usr/bin/time -f "client_cpu_s=%U+%S" /tmp/zc/fetchpump $PORT bench 1000000 2>&1 | tr '\n' ' ')
  c1=$(cpu)
  echo "$out broker_cpu_s=$(echo "($c1-$c0)/100" | bc -l | cut -c1-5)" | tee -a /tmp/zc/pump-$LABEL.txt
done
kill $BPID; wait $BPID
rm -rf $DATA
