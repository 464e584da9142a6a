"""Log compaction (cleanup.policy=compact) against a real broker.

* Many versions of a few thousand keys plus tombstones: once the cleaner has
  run, a consumer from the beginning sees exactly the latest record per key
  at the offset it was written at (offsets are kept, strictly increasing),
  tombstones included while delete.retention.ms lasts; after it, another
  pass drops them and their keys vanish. kafka-python agrees.
* kill -9 while the cleaner works (a log big enough that a pass takes a
  while, killed at random moments after each round of writes): every restart
  comes up, and the log is still valid: offsets strictly increasing, each
  record the one written at its offset, and the latest acknowledged write of
  every key present.

The active segment is never cleaned, so each round ends with filler records
on a key of their own to roll it. The broker's cleaner wakes every 100 ms.
"""

import os
import random
import re
import time

from confluent_kafka import TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
import kafka

import ck_util
from harness import random_seed

BROKER_OVERRIDES = {"log.cleaner.backoff.ms": "100", "log.retention.check.interval.ms": "100"}
CLEANER_OVERRIDES = BROKER_OVERRIDES
SEGMENT_BYTES = 16384
FILLER_KEY = b"~filler"
KEYS = 2000
VERSIONS = 4
DELETE_RETENTION_MS = 10000  # a loaded CI machine may take seconds between the first clean and the first read
CLEAN_WAIT_S = 30.0


def create_compacted(bootstrap, topic, **extra):
    config = {"cleanup.policy": "compact", "segment.bytes": str(SEGMENT_BYTES),
              "min.cleanable.dirty.ratio": "0.01"}
    config.update({k.replace("_", "."): str(v) for k, v in extra.items()})
    a = AdminClient({"bootstrap.servers": bootstrap})
    fs = a.create_topics([NewTopic(topic, 1, 1, config=config)], operation_timeout=10)
    fs[topic].result(timeout=15)


def producer(bootstrap):
    # acks=all: the high watermark covers everything acknowledged, so "read to
    # the end" sees it all.
    return ck_util.producer(bootstrap, acks="all", **{"batch.size": 4096, "linger.ms": 5})


def key(i):
    return b"k%05d" % i


def write(p, topic, pairs, sent):
    """Produces (key, value) pairs; records offset -> (key, value) in `sent`."""
    reports = ck_util.produce_all(p, topic, [{"key": k, "value": v} for k, v in pairs])
    for (k, v), (err, _, off) in zip(pairs, reports):
        assert err is None, err
        sent[off] = (k, v)


def roll_active_segment(p, topic, sent):
    write(p, topic, [(FILLER_KEY, b"f" * 1000)] * (SEGMENT_BYTES // 1000 + 4), sent)


def latest_per_key(sent):
    out = {}
    for off in sorted(sent):
        k, v = sent[off]
        if k != FILLER_KEY:
            out[k] = (off, v)
    return out


def read_all(bootstrap, topic):
    msgs = ck_util.consume(bootstrap, topic, timeout=30)
    return [(m.offset(), m.key(), m.value()) for m in msgs]


def check_valid(records, sent, where):
    """Offsets strictly increasing and each record the one written there."""
    offsets = [o for o, _, _ in records]
    assert all(a < b for a, b in zip(offsets, offsets[1:])), f"{where}: offsets not strictly increasing"
    bad = [o for o, k, v in records if sent.get(o) != (k, v)]
    assert not bad, f"{where}: {len(bad)} records differ from what was written at their offset, e.g. " \
                    f"{[(o, sent.get(o), next(r for r in records if r[0] == o)[1:]) for o in bad[:3]]}"


def data_records(records):
    return [r for r in records if r[1] != FILLER_KEY]


def test_compaction_keeps_latest_per_key_then_drops_tombstones(broker, topic):
    create_compacted(broker.bootstrap, topic, delete_retention_ms=DELETE_RETENTION_MS)
    p = producer(broker.bootstrap)
    sent = {}
    rnd = random.Random(4)
    for ver in range(VERSIONS):
        order = list(range(KEYS))
        rnd.shuffle(order)
        write(p, topic, [(key(i), b"%s:v%d:" % (key(i), ver) + b"." * 20) for i in order], sent)
    tombstoned = {key(i) for i in range(0, KEYS, 10)}
    write(p, topic, [(k, None) for k in sorted(tombstoned)], sent)
    roll_active_segment(p, topic, sent)
    total = max(sent) + 1
    expected = latest_per_key(sent)
    assert len(expected) == KEYS

    # Wait for the cleaner: every key exactly once.
    deadline = time.monotonic() + CLEAN_WAIT_S
    while True:
        records = read_all(broker.bootstrap, topic)
        data = data_records(records)
        if len(data) == len({k for _, k, _ in data}):
            break
        assert time.monotonic() < deadline, \
            f"cleaner did not compact {topic} within {CLEAN_WAIT_S} s: {len(data)} records for {KEYS} keys"
        time.sleep(0.3)
    check_valid(records, sent, "after cleaning")
    got = {k: (o, v) for o, k, v in data}
    assert got == expected, f"latest-per-key mismatch: {len(set(expected) - set(got))} keys missing, " \
                            f"{sum(1 for k in got if k in expected and got[k] != expected[k])} stale"
    assert sum(1 for _, _, v in data if v is None) == len(tombstoned), "tombstones dropped before delete.retention.ms"
    c = ck_util.consumer(broker.bootstrap)
    try:
        lo, hi = c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    finally:
        c.close()
    assert hi == total, f"compaction moved the high watermark: {hi}, wrote {total}"

    # After delete.retention.ms a later pass removes the tombstones.
    deadline = time.monotonic() + DELETE_RETENTION_MS / 1000 + CLEAN_WAIT_S
    while True:
        records = read_all(broker.bootstrap, topic)
        data = data_records(records)
        if not any(v is None for _, _, v in data):
            break
        assert time.monotonic() < deadline, \
            f"{sum(1 for _, _, v in data if v is None)} tombstones still there long after delete.retention.ms"
        time.sleep(0.5)
    check_valid(records, sent, "after tombstone removal")
    live = {k: ov for k, ov in expected.items() if ov[1] is not None}
    got = {k: (o, v) for o, k, v in data}
    assert got == live, f"after tombstone removal: {len(set(live) - set(got))} live keys missing, " \
                        f"{len(set(got) - set(live))} deleted keys back"

    # Second opinion: kafka-python reads the same compacted log.
    tp = kafka.TopicPartition(topic, 0)
    kc = kafka.KafkaConsumer(bootstrap_servers=broker.bootstrap, auto_offset_reset="earliest",
                             enable_auto_commit=False, api_version_auto_timeout_ms=10000)
    try:
        kc.assign([tp])
        kc.seek_to_beginning(tp)
        end = kc.end_offsets([tp])[tp]
        kp = []
        deadline = time.monotonic() + 20
        while kc.position(tp) < end and time.monotonic() < deadline:
            for r in kc.poll(timeout_ms=500).get(tp, []):
                kp.append((r.offset, r.key, r.value))
    finally:
        kc.close()
    assert kp == records, f"kafka-python read {len(kp)} records, librdkafka {len(records)}"


def wait_log(broker, needles, timeout=3.0):
    """The latest start's log once it holds every needle (or after timeout)."""
    deadline = time.monotonic() + timeout
    while True:
        log = broker.log(broker.starts)
        missing = [n for n in needles if n not in log]
        if not missing:
            return log
        assert time.monotonic() < deadline, f"restart log lacks {missing}:\n{log[-4000:]}"
        time.sleep(0.1)


KILL_ROUNDS = 4
ROUND_WRITES = 6000
KILL_KEYS = 3000


def test_kill9_during_cleaning(broker_factory, topic):
    broker = broker_factory(CLEANER_OVERRIDES)
    create_compacted(broker.bootstrap, topic)  # tombstones kept (default delete.retention.ms: 1 day)
    rnd = random.Random(random_seed("COMPACTION_SEED"))
    sent = {}
    seq = 0
    hits = 0
    part_dir = os.path.join(broker.log_dir, f"{topic}-0")
    for rnd_no in range(KILL_ROUNDS):
        p = producer(broker.bootstrap)
        pairs = []
        for _ in range(ROUND_WRITES):
            k = key(rnd.randrange(KILL_KEYS))
            seq += 1
            pairs.append((k, None if rnd.random() < 0.05 else b"%s:%d:" % (k, seq) + b"-" * 40))
        write(p, topic, pairs, sent)
        roll_active_segment(p, topic, sent)
        del p  # its connection dies with the broker anyway
        # The cleaner picks the new dirty segments up within its 100 ms backoff.
        time.sleep(rnd.uniform(0.0, 0.4))
        broker.kill9()
        leftovers = [n for n in os.listdir(part_dir) if n.endswith((".cleaned", ".swap"))]
        hits += bool(leftovers)
        broker.start()
        # Partial cleaner output must be discarded by recovery (a new pass may
        # write files of the same names right after the restart, so the log,
        # not the directory, is the evidence).
        partial = [n for n in leftovers if n.endswith(".cleaned")]
        log = wait_log(broker, [f"removing stray file {n}" for n in partial])
        bad = re.findall(r"^\S+ (?:error|critical) \[.*$", log, re.M)
        assert not bad, f"restart {rnd_no + 1} logged errors {bad[:3]} " \
                        f"(files left by the kill: {leftovers}):\n{log[-4000:]}"
        records = read_all(broker.bootstrap, topic)
        where = f"after kill -9 #{rnd_no + 1} (cleaner files left: {leftovers})"
        check_valid(records, sent, where)
        got = {}
        for o, k, v in data_records(records):
            got[k] = (o, v)
        expected = latest_per_key(sent)
        missing = [k for k in expected if got.get(k) != expected[k]]
        assert not missing, f"{where}: {len(missing)} keys lack their latest acknowledged write, e.g. " \
                            f"{[(k, expected[k][0], got.get(k, (None,))[0]) for k in missing[:5]]}"
    # Compaction went on across the crashes (not just appends surviving).
    records = read_all(broker.bootstrap, topic)
    assert len(records) < len(sent) * 0.8, f"log never compacted: {len(records)} of {len(sent)} records left"
    print(f"\nkill -9 during cleaning: rounds={KILL_ROUNDS} writes={len(sent)} kept={len(records)} "
          f"kills_with_cleaner_files_left={hits}")
