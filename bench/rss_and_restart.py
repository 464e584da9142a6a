#!/usr/bin/python3
"""Memory footprint and restart time of a spool broker (issue 7, targets 5
and 6). Each figure is the median of --runs runs, each on a fresh log dir:

  idle_rss_mb        VmRSS of a freshly started broker after one Metadata
                     round trip.
  rss_1000p_mb       VmRSS after creating 10 topics x 100 partitions through
                     CreateTopics and producing one small message to each.
  restart_s          after writing --log-mb of 1 KB messages (acks=all) to
                     one partition and kill -9 right away (so the recovery
                     point checkpoint is as old as it can be): seconds from
                     the new process's exec until a Metadata + Produce
                     (acks=all) round trip succeeds on raw frames.

Benchmark, not test: prints figures (and a CSV line per run), asserts nothing.
Usage: bench/rss_and_restart.py [--bin build-memory/spool] [--runs 3]
       [--log-mb 1024] [--only idle,1000p,restart]
"""

import argparse
import os
import socket
import statistics
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "compat"))
sys.path.insert(0, os.path.join(ROOT, "tests", "system"))

from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

import harness  # noqa: E402
import kafka_wire as kw  # noqa: E402


VERBOSE = False
RESTART_TIMEOUT_S = 300


def rss_mb(pid, key="VmRSS"):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def threads(pid):
    return len(os.listdir(f"/proc/{pid}/task"))


def metadata_v0(corr, topics):
    body = struct.pack(">i", len(topics)) + b"".join(kw.string(t) for t in topics)
    return kw.request(3, 0, corr, body, client_id="rss-bench")


def serving(port, topic, timeout=0.5):
    """One Metadata + Produce(acks=all) round trip on a fresh connection."""
    try:
        s = kw.connect(port, timeout=timeout)
    except OSError:
        return False
    try:
        s.sendall(metadata_v0(1, [topic]))
        if not kw.read_frame(s):
            return False
        batch = kw.record_batch([(b"k", b"probe", ())], int(time.time() * 1000))
        s.sendall(kw.produce_v3(2, topic, 0, batch, acks=-1, timeout_ms=int(timeout * 1000)))
        frame = kw.read_frame(s)
        if not frame:
            return False
        _, res = kw.parse_produce_v3(frame)
        return res.get((topic, 0), (-1,))[0] == 0
    except (OSError, struct.error):
        return False
    finally:
        s.close()


def settle_rss(pid, seconds=2.0):
    # Let background loaders (group/txn state) finish before sampling.
    time.sleep(seconds)
    return rss_mb(pid)


def kill9_and_time_restart(b, topic):
    """kill -9, restart on the same dir; seconds from just before exec until
    `serving` (the harness's own TCP polling would only see the listener)."""
    b.kill9()
    b.start(timeout=RESTART_TIMEOUT_S, retry_port=False, ready=lambda: serving(b.port, topic), poll_s=0.01)
    if VERBOSE:
        print(b.log(), flush=True)
    return b.last_start_seconds


def run_idle(overrides):
    b = harness.Broker(overrides=overrides, name="idle")
    try:
        b.start()
        admin = AdminClient({"bootstrap.servers": b.bootstrap})
        admin.list_topics(timeout=10)
        rss = settle_rss(b.proc.pid)
        return {"idle_rss_mb": rss, "idle_threads": threads(b.proc.pid)}
    finally:
        b.stop()
        b.cleanup()


def run_1000p(overrides, topics=10, partitions=100):
    b = harness.Broker(overrides=overrides, name="p1000")
    try:
        b.start()
        admin = AdminClient({"bootstrap.servers": b.bootstrap})
        names = [f"rss-bench-{i}" for i in range(topics)]
        futs = admin.create_topics([NewTopic(n, partitions, 1) for n in names], operation_timeout=60)
        for f in futs.values():
            f.result(timeout=120)
        p = Producer({"bootstrap.servers": b.bootstrap, "acks": "1", "linger.ms": 5})
        for n in names:
            for part in range(partitions):
                p.produce(n, value=b"x" * 100, partition=part)
        left = p.flush(120)
        if left:
            raise RuntimeError(f"{left} messages not delivered")
        del p
        rss = settle_rss(b.proc.pid)
        dirs = sum(1 for d in os.listdir(b.log_dir) if d.startswith("rss-bench-"))
        if dirs != topics * partitions:
            raise RuntimeError(f"expected {topics * partitions} partition dirs, found {dirs}")
        out = {"rss_1000p_mb": rss, "rss_1000p_hwm_mb": rss_mb(b.proc.pid, "VmHWM"),
               "threads_1000p": threads(b.proc.pid)}
        # Restart of many small logs: per-partition costs (opens, fsyncs,
        # snapshots) rather than bytes scanned.
        out["restart_1000p_s"] = kill9_and_time_restart(b, names[-1])
        out["rss_1000p_after_restart_mb"] = settle_rss(b.proc.pid)
        return out
    finally:
        b.stop()
        b.cleanup()


def fill(bootstrap, topic, total_mb):
    errors = []

    def on_delivery(err, _msg):
        if err is not None:
            errors.append(err)

    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 20,
                  "batch.size": 1000000, "queue.buffering.max.kbytes": 262144,
                  "compression.type": "none"})
    value = os.urandom(1024)
    n = total_mb * 1024
    for i in range(n):
        while True:
            try:
                p.produce(topic, value=value, partition=0, on_delivery=on_delivery)
                break
            except BufferError:
                p.poll(0.05)
        if i % 10000 == 0:
            p.poll(0)
    left = p.flush(300)
    if left or errors:
        raise RuntimeError(f"fill failed: {left} undelivered, errors {errors[:3]}")


def log_bytes(path):
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            if not f.endswith(".log"):
                continue
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total


def run_restart(overrides, log_mb):
    topic = "restart-bench"
    ov = dict(overrides)
    ov.setdefault("num.partitions", "1")
    b = harness.Broker(overrides=ov, name="restart")
    try:
        b.start()
        admin = AdminClient({"bootstrap.servers": b.bootstrap})
        admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(timeout=60)
        t_fill = time.monotonic()
        fill(b.bootstrap, topic, log_mb)
        fill_s = time.monotonic() - t_fill
        data = log_bytes(os.path.join(b.log_dir, f"{topic}-0"))
        restart = kill9_and_time_restart(b, topic)
        return {"restart_s": restart, "restart_log_mb": data / 1e6, "fill_s": fill_s,
                "rss_after_restart_mb": rss_mb(b.proc.pid)}
    finally:
        b.stop()
        b.cleanup()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build-memory", "spool"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--log-mb", type=int, default=1024)
    ap.add_argument("--only", default="idle,1000p,restart")
    ap.add_argument("--restart-timeout", type=float, default=300, help="give up on a restart after this long")
    ap.add_argument("--verbose", action="store_true", help="print the restarted broker's log")
    ap.add_argument("--override", action="append", default=[], help="key=value broker override")
    args = ap.parse_args()
    global VERBOSE, RESTART_TIMEOUT_S
    VERBOSE = args.verbose
    RESTART_TIMEOUT_S = args.restart_timeout
    os.environ["SPOOL_BIN"] = os.path.abspath(args.bin)
    harness_bin = harness.spool_bin()
    overrides = dict(kv.split("=", 1) for kv in args.override)
    which = set(args.only.split(","))
    print(f"# spool {harness_bin}, {args.runs} run(s) each, {os.cpu_count()} cpus", flush=True)
    results = {}
    for run in range(args.runs):
        row = {}
        if "idle" in which:
            row.update(run_idle(overrides))
        if "1000p" in which:
            row.update(run_1000p(overrides))
        if "restart" in which:
            row.update(run_restart(overrides, args.log_mb))
        print("run %d: %s" % (run + 1, ", ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                                                  for k, v in row.items())), flush=True)
        for k, v in row.items():
            results.setdefault(k, []).append(v)
    print("\n| figure | median | runs | target |")
    print("|---|---|---|---|")
    targets = {"idle_rss_mb": "< 50", "rss_1000p_mb": "< 300", "restart_s": "< 2", "restart_1000p_s": "< 2"}
    for k, vs in results.items():
        med = statistics.median(vs)
        print(f"| {k} | {med:.3f} | {' '.join(f'{v:.3f}' for v in vs)} | {targets.get(k, '')} |")


if __name__ == "__main__":
    main()
