#!/usr/bin/python3
"""Transactional vs non-transactional produce throughput with
confluent-kafka-python (librdkafka), on one broker in the same run.

Per run and mode, the same M messages (default 100 transactions x 100
messages of 100 bytes, one topic of 4 partitions) are written:
  * txn:   a transactional producer, N transactions of 100 messages, each
           begin -> produce 100 -> commit_transaction (which flushes);
  * plain: an idempotent acks=all producer, produce all M, flush.
Prints every run, then the medians of the runs: transactions/s and
messages/s for txn, messages/s for plain, and the ratio txn/plain.

Not a test (ctest does not run it).

    bench/txn_throughput.py [--runs 3] [--txns 100] [--per-txn 100] [--size 100]
                            [--bin build/spool] [--bootstrap host:port]

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

from confluent_kafka import Producer  # noqa: E402

from harness import Broker  # noqa: E402
from txn_util import create_topic  # noqa: E402

NPARTS = 4


def _fail_on_error(errors):
    def cb(err, msg):
        if err is not None:
            errors.append(err)
    return cb


def run_txn(bootstrap, topic, txns, per_txn, value):
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": f"bench-{uuid.uuid4().hex}",
                  "linger.ms": 5})
    p.init_transactions(60)
    errors = []
    cb = _fail_on_error(errors)
    t0 = time.monotonic()
    for _ in range(txns):
        p.begin_transaction()
        for i in range(per_txn):
            while True:
                try:
                    p.produce(topic, value=value, partition=i % NPARTS, on_delivery=cb)
                    break
                except BufferError:
                    p.poll(0.01)
        p.commit_transaction(60)
    secs = time.monotonic() - t0
    if errors:
        raise RuntimeError(f"txn delivery errors: {errors[:3]}")
    return secs


def run_plain(bootstrap, topic, total, value):
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all",
                  "linger.ms": 5})
    errors = []
    cb = _fail_on_error(errors)
    # A first message so connection set-up and InitProducerId are outside
    # the timed part, as init_transactions is for the txn producer.
    p.produce(topic, value=value, partition=0, on_delivery=cb)
    p.flush(60)
    t0 = time.monotonic()
    for i in range(total):
        while True:
            try:
                p.produce(topic, value=value, partition=i % NPARTS, on_delivery=cb)
                break
            except BufferError:
                p.poll(0.01)
        p.poll(0)
    left = p.flush(120)
    secs = time.monotonic() - t0
    if errors or left:
        raise RuntimeError(f"plain delivery errors: {errors[:3]}, {left} undelivered")
    return secs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--txns", type=int, default=100)
    ap.add_argument("--per-txn", type=int, default=100)
    ap.add_argument("--size", type=int, default=100)
    ap.add_argument("--bin", help="spool binary (default: SPOOL_BIN or build/spool)")
    ap.add_argument("--bootstrap", help="use a running broker")
    args = ap.parse_args()
    if args.bin:
        os.environ["SPOOL_BIN"] = args.bin

    broker = None
    bootstrap = args.bootstrap
    if not bootstrap:
        broker = Broker(name="txn-bench").start()
        bootstrap = broker.bootstrap
    try:
        value = b"x" * args.size
        total = args.txns * args.per_txn
        txn_rates, txn_msg_rates, plain_rates = [], [], []
        for run in range(1, args.runs + 1):
            topic = f"txn-bench-{run}-{uuid.uuid4().hex[:6]}"
            create_topic(bootstrap, topic, NPARTS)
            # Alternate the order so neither mode always runs on a warmer broker.
            if run % 2:
                t_txn = run_txn(bootstrap, topic, args.txns, args.per_txn, value)
                t_plain = run_plain(bootstrap, topic, total, value)
            else:
                t_plain = run_plain(bootstrap, topic, total, value)
                t_txn = run_txn(bootstrap, topic, args.txns, args.per_txn, value)
            txn_rates.append(args.txns / t_txn)
            txn_msg_rates.append(total / t_txn)
            plain_rates.append(total / t_plain)
            print(f"run {run}: txn {args.txns / t_txn:8.1f} txn/s {total / t_txn:10.0f} msg/s | "
                  f"plain (idempotent, acks=all) {total / t_plain:10.0f} msg/s", flush=True)
        m_txn, m_txn_msg, m_plain = (statistics.median(x) for x in
                                     (txn_rates, txn_msg_rates, plain_rates))
        print(f"median of {args.runs}: transactional {m_txn:.1f} txn/s = {m_txn_msg:.0f} msg/s "
              f"({args.per_txn} msg/txn, {args.size} B); non-transactional {m_plain:.0f} msg/s; "
              f"ratio txn/plain {m_txn_msg / m_plain:.2f}")
    finally:
        if broker is not None:
            broker.stop()
            broker.cleanup()


if __name__ == "__main__":
    main()
