#!/usr/bin/python3
"""Measures how long a consumer group takes to recover from a member dying
without LeaveGroup, with DEFAULT settings everywhere: broker defaults (no
overrides) and librdkafka's defaults (session.timeout.ms 45000,
heartbeat.interval.ms 3000).

Per run: a fresh group of 2 confluent-kafka (librdkafka) members, each in its
own child process, subscribes to a 4-partition topic; once they split it,
one is SIGKILLed, and the time until the survivor's on_assign includes the
dead member's partitions is recorded. Prints every run and the median.

Not a test (ctest does not run it); each run takes about a session timeout.

    bench/group_recovery.py [--runs N] [--bin build/spool] [--bootstrap host:port]

--bootstrap uses an already running broker instead of starting one.
"""

import argparse
import os
import statistics
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "compat"))

from group_util import ProcMember, create_topic, wait_until  # noqa: E402
from harness import Broker  # noqa: E402

NPARTS = 4
SETTLE_TIMEOUT_S = 120


def one_run(bootstrap, run_no):
    topic = f"group-recovery-{run_no}-{uuid.uuid4().hex[:6]}"
    group = f"group-recovery-{uuid.uuid4().hex[:8]}"
    create_topic(bootstrap, topic, NPARTS)
    # No conf: librdkafka's defaults for session and heartbeat.
    a = ProcMember("survivor", bootstrap, group, [topic])
    b = ProcMember("victim", bootstrap, group, [topic])
    try:
        def split():
            sa, sb = a.assignment(), b.assignment()
            return sa and sb and not (sa & sb) and len(sa | sb) == NPARTS
        wait_until(split, timeout=SETTLE_TIMEOUT_S, what="2 members split the topic",
                   state=lambda: (a.output(), b.output()), interval=0.05)
        lost = b.assignment()
        n_events = len(a.events)
        t_kill = time.monotonic()
        b.kill9()
        wait_until(lambda: any(ev == "assign" and lost <= set(tps)
                               for ev, tps, _ in a.events[n_events:]),
                   timeout=SETTLE_TIMEOUT_S, what="survivor assigned the dead member's partitions",
                   state=a.output, interval=0.05)
        t_assign = next(t for ev, tps, t in a.events[n_events:]
                        if ev == "assign" and lost <= set(tps))
        return t_assign - t_kill
    finally:
        a.kill9()
        b.kill9()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bin", help="spool binary (default: $SPOOL_BIN or build/spool)")
    ap.add_argument("--bootstrap", help="use this running broker instead of starting one")
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be >= 1")
    if args.bin:
        os.environ["SPOOL_BIN"] = args.bin

    broker = None
    bootstrap = args.bootstrap
    if not bootstrap:
        broker = Broker(name="group-recovery").start()
        bootstrap = broker.bootstrap
    times = []
    try:
        for i in range(args.runs):
            dt = one_run(bootstrap, i)
            times.append(dt)
            print(f"run {i + 1}: {dt:.2f} s from SIGKILL to the survivor's on_assign", flush=True)
    finally:
        if broker is not None:
            rc = broker.stop()
            if rc != 0:
                print(f"broker exited {rc}:\n{broker.log()[-4000:]}", file=sys.stderr)
            broker.cleanup()
    print(f"median of {len(times)} runs: {statistics.median(times):.2f} s "
          f"(librdkafka defaults: session.timeout.ms 45000, heartbeat.interval.ms 3000)")


if __name__ == "__main__":
    main()
