"""Transactions across crashes (confluent-kafka-python / librdkafka 2.0.x).

1. kill -9 of the broker while EndTxn is in flight: one producer runs many
   small transactions (one record on each of many partitions, so the
   coordinator has many markers to write and the window between PrepareCommit
   and CompleteCommit is wide), mostly committing, every third aborting; a
   killer thread SIGKILLs the broker a few milliseconds after a commit/abort
   call starts and restarts it on the same dir/port. Afterwards a
   read_committed consumer must see every transaction whose commit the client
   saw succeed, completely and once; none whose abort succeeded; and every
   transaction of unknown outcome all-or-nothing (commit stays commit, abort
   stays abort: a transaction is never half visible).
2. A transaction left open by a producer that was SIGKILLed after its writes
   is aborted by the coordinator once transaction.timeout.ms passes, also
   when the broker itself is killed and restarted in between (the open
   transaction must be reloaded from __transaction_state).

Readers are taken to the end with non-transactional sentinels written last
(txn_util.read_until_sentinels), which a read_committed fetch can only reach
once every earlier transaction was resolved. No timing asserts. The
killer's random pauses are seeded and the seed printed (TXN_CRASH_SEED
replays them).
"""

import collections
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid

from confluent_kafka import KafkaException

from harness import random_seed
from txn_util import (WAIT_S, create_topic, kafka_error, one_txn, parse, payload, produce,
                      read_until_sentinels, txn_producer, wait_until, write_sentinels)

OVERRIDES = {
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": "500",
}
NPARTS = 32
KILLS = 5
TXN_TIMEOUT_MS = 5000


def _producer(bootstrap, tid):
    return txn_producer(bootstrap, tid, **{
        "transaction.timeout.ms": 10000,
        "reconnect.backoff.ms": 20, "reconnect.backoff.max.ms": 200,
        "retry.backoff.ms": 50, "linger.ms": 1})


def test_kill9_during_end_txn(broker_factory, topic):
    broker = broker_factory(OVERRIDES)
    create_topic(broker.bootstrap, topic, NPARTS)
    tid = f"crash-{uuid.uuid4().hex[:8]}"
    p = _producer(broker.bootstrap, tid)
    p.init_transactions(WAIT_S)

    outcome = {}          # txn no -> "committed" | "aborted" | "unknown"
    ending = threading.Event()
    ending_since = [0.0]
    kills = []            # (txn no being ended or None, monotonic time)
    current = [None]
    killer_error = []
    stop = threading.Event()
    events = []           # diagnostics: (txn, what)

    seed = random_seed("TXN_CRASH_SEED")

    def killer():
        rnd = random.Random(seed)
        try:
            for _ in range(KILLS):
                time.sleep(rnd.uniform(0.5, 1.5))
                # Aim at an EndTxn in flight: wait for the next commit/abort
                # call and kill 0-4 ms after it started.
                assert ending.wait(WAIT_S), "producer never reached commit/abort"
                time.sleep(rnd.uniform(0, 0.004))
                kills.append((current[0] if ending.is_set() else None, time.monotonic()))
                broker.kill9()
                time.sleep(rnd.uniform(0.0, 0.3))
                broker.start()
        except BaseException as e:  # reported by the main thread
            killer_error.append(e)
        finally:
            stop.set()

    def end_txn(commit):
        """commit/abort, repeating the call on retriable errors (that resumes
        it); returns the outcome the client can vouch for."""
        for _ in range(20):
            ending_since[0] = time.monotonic()
            ending.set()
            try:
                if commit:
                    p.commit_transaction(WAIT_S)
                    return "committed"
                p.abort_transaction(WAIT_S)
                return "aborted"
            except KafkaException as e:
                err = kafka_error(e)
                events.append((current[0], f"{'commit' if commit else 'abort'}: {e}"))
                if err is not None and err.retriable():
                    continue
                if err is not None and err.txn_requires_abort():
                    commit = False
                    continue
                raise
            finally:
                ending.clear()
        return "unknown"

    th = threading.Thread(target=killer, daemon=True)
    th.start()
    t = 0
    while not stop.is_set():
        commit = t % 3 != 2
        outcome[t] = "unknown"
        current[0] = t
        try:
            p.begin_transaction()
            produce(p, topic, [(i, payload(f"t{t}", i)) for i in range(NPARTS)])
            if not commit:
                # Abort only once the records are on the broker: an abort
                # racing librdkafka's first AddPartitionsToTxn can fail with
                # INVALID_TXN_STATE on any broker (librdkafka issue #4849).
                p.flush(WAIT_S)
            outcome[t] = end_txn(commit)
        except KafkaException as e:
            # Fatal (e.g. fenced after an epoch bump): start over;
            # init_transactions resolves whatever was pending.
            events.append((t, f"fatal: {e}"))
            p = _producer(broker.bootstrap, tid)
            p.init_transactions(WAIT_S)
        current[0] = None
        t += 1
    th.join()
    assert not killer_error, f"kill/restart failed: {killer_error[0]!r}"
    p.flush(WAIT_S)

    counts = collections.Counter(outcome.values())
    print(f"outcomes {dict(counts)}; kills during commit/abort at txns "
          f"{[k for k, _ in kills]}; client errors {events}")
    assert counts["committed"] >= 5, f"too few committed transactions: {counts}, events {events}"
    in_end = [k for k, _ in kills if k is not None]
    assert in_end, "no kill landed while a commit/abort was in flight: test did no work"

    write_sentinels(broker.bootstrap, topic, NPARTS)
    seen = read_until_sentinels(broker.bootstrap, topic, NPARTS, "read_committed", timeout=90)
    per_txn = collections.defaultdict(list)
    for part, off, v in seen:
        tag, n = parse(v)
        assert tag.startswith("t") and n == part, f"foreign record {v!r} at {part}:{off}"
        per_txn[int(tag[1:])].append(part)

    problems = []
    for txn, what in sorted(outcome.items()):
        parts = per_txn.get(txn, [])
        dup = len(parts) != len(set(parts))
        if dup:
            problems.append(f"txn {txn} ({what}): records duplicated {sorted(parts)}")
        if what == "committed" and len(set(parts)) != NPARTS:
            problems.append(f"txn {txn} committed but only {len(set(parts))}/{NPARTS} visible")
        if what == "aborted" and parts:
            problems.append(f"txn {txn} aborted but {len(set(parts))} records visible")
        if what == "unknown" and len(set(parts)) not in (0, NPARTS):
            problems.append(f"txn {txn} half visible: {len(set(parts))}/{NPARTS}")
    unknown_txns = set(per_txn) - set(outcome)
    if unknown_txns:
        problems.append(f"records of transactions never started: {sorted(unknown_txns)}")
    # Per partition, committed transactions appear in the order they ran.
    for part in range(NPARTS):
        order = [int(parse(v)[0][1:]) for pp, _, v in seen if pp == part]
        if order != sorted(order):
            problems.append(f"partition {part}: transactions out of order {order[:20]}")
    assert not problems, "\n".join(problems[:30]) + \
        f"\noutcomes {dict(counts)}; kills at txns {[k for k, _ in kills]}; " \
        f"client errors {events[:10]}\n" + broker.all_logs()[-6000:]


# --------------------------------------------------------------------------
# open transaction, producer SIGKILLed

_CHILD = r"""
import sys, time
from confluent_kafka import Producer
bootstrap, tid, topic, nparts, timeout_ms = sys.argv[1:6]
p = Producer({"bootstrap.servers": bootstrap, "transactional.id": tid,
              "transaction.timeout.ms": int(timeout_ms), "linger.ms": 1})
p.init_transactions(60)
p.begin_transaction()
for i in range(4 * int(nparts)):
    p.produce(topic, value=f"open:{i}".encode(), partition=i % int(nparts))
assert p.flush(60) == 0
print("written", flush=True)
time.sleep(3600)
"""


def _leave_txn_open(bootstrap, tid, topic, nparts):
    child = subprocess.Popen([sys.executable, "-c", _CHILD, bootstrap, tid, topic, str(nparts),
                              str(TXN_TIMEOUT_MS)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = child.stdout.readline()
        assert line.strip() == "written", f"producer child failed: {line}{child.stdout.read()}"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()


def _check_open_txn_aborted(broker, topic, tid, nparts):
    write_sentinels(broker.bootstrap, topic, nparts)
    visible = read_until_sentinels(broker.bootstrap, topic, nparts, "read_committed",
                                   timeout=WAIT_S + TXN_TIMEOUT_MS / 1000)
    assert visible == [], f"records of the timed-out transaction are visible: {visible[:5]}" \
                          f"\n{broker.all_logs()[-4000:]}"
    dirty = read_until_sentinels(broker.bootstrap, topic, nparts, "read_uncommitted")
    assert len(dirty) == 4 * nparts, "the open transaction's records never reached the log"

    # The transactional.id is usable again and its next commit is visible.
    p = txn_producer(broker.bootstrap, tid)
    p.init_transactions(WAIT_S)
    one_txn(p, topic, [(i, payload("next", i)) for i in range(nparts)])
    write_sentinels(broker.bootstrap, topic, nparts, tag="sentinel2")
    got = read_until_sentinels(broker.bootstrap, topic, nparts, "read_committed", tag="sentinel2")
    vals = sorted(v for _, _, v in got if not v.startswith(b"sentinel:"))
    assert vals == sorted(payload("next", i) for i in range(nparts))


def test_open_txn_of_killed_producer_aborted_after_timeout(broker_factory, topic):
    broker = broker_factory(OVERRIDES)
    nparts = 4
    create_topic(broker.bootstrap, topic, nparts)
    tid = f"open-{uuid.uuid4().hex[:8]}"
    _leave_txn_open(broker.bootstrap, tid, topic, nparts)
    _check_open_txn_aborted(broker, topic, tid, nparts)


def test_open_txn_aborted_after_timeout_across_broker_kill9(broker_factory, topic):
    broker = broker_factory(OVERRIDES)
    nparts = 4
    create_topic(broker.bootstrap, topic, nparts)
    tid = f"open-kill-{uuid.uuid4().hex[:8]}"
    _leave_txn_open(broker.bootstrap, tid, topic, nparts)
    broker.kill9()
    broker.start()
    _check_open_txn_aborted(broker, topic, tid, nparts)
