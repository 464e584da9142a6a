"""Retention (cleanup.policy=delete) against a real broker.

* By size: with small segments and retention.bytes, the oldest whole
  segments go; the log start (low watermark) lands on a segment boundary, what
  is left is intact and contiguous up to the high watermark, and the active
  segment is never deleted even when it alone exceeds the limit.
* By time: segments whose newest record is older than retention.ms go
  (record timestamps decide, as in Kafka), newer ones and the active segment
  stay.
* Below the log start: Fetch answers OFFSET_OUT_OF_RANGE (1) with the log
  start offset, and clients apply auto.offset.reset (earliest / latest; with
  "error" librdkafka reports _AUTO_OFFSET_RESET, kafka-python raises
  OffsetOutOfRangeError).

The broker checks retention every 100 ms, so each wait is bounded by a few
seconds.
"""

import os
import time

from confluent_kafka import Consumer, KafkaError, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
import kafka
import kafka.errors

import ck_util
import kafka_wire as w

BROKER_OVERRIDES = {"log.retention.check.interval.ms": "100", "log.cleaner.backoff.ms": "100"}
SEGMENT_BYTES = 16384
WAIT_S = 10.0


def create_topic(bootstrap, topic, config):
    a = AdminClient({"bootstrap.servers": bootstrap})
    fs = a.create_topics([NewTopic(topic, 1, 1, config=config)], operation_timeout=10)
    fs[topic].result(timeout=15)


def small_batch_producer(bootstrap):
    # Small batches so segments roll at about segment.bytes, not per giant
    # batch. acks=1 for speed: the high watermark follows the group-committed
    # fsync a moment later, so waits below include "high watermark reached".
    return ck_util.producer(bootstrap, acks="1", **{"batch.size": 2048, "linger.ms": 2})


def value(i, pad=150):
    return f"m{i:06d}:".encode() + b"x" * pad


def produce_numbered(bootstrap, topic, first, count, timestamp=None, pad=150):
    """Produces messages first..first+count-1; returns {offset: value}."""
    p = small_batch_producer(bootstrap)
    msgs = [{"value": value(i, pad), "timestamp": timestamp} for i in range(first, first + count)]
    reports = ck_util.produce_all(p, topic, msgs)
    out = {}
    for m, (err, part, off) in zip(msgs, reports):
        assert err is None, err
        out[off] = m["value"]
    return out


def watermarks(bootstrap, topic):
    c = ck_util.consumer(bootstrap)
    try:
        return c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    finally:
        c.close()


def segment_files(broker, topic):
    """(base offset, size) of each .log file of partition 0, by base."""
    d = os.path.join(broker.log_dir, f"{topic}-0")
    out = []
    for name in os.listdir(d):
        if name.endswith(".log"):
            out.append((int(name[:-4]), os.path.getsize(os.path.join(d, name))))
    return sorted(out)


def wait_low_watermark(bootstrap, topic, pred, timeout=WAIT_S):
    deadline = time.monotonic() + timeout
    while True:
        lo, hi = watermarks(bootstrap, topic)
        if pred(lo, hi):
            return lo, hi
        if time.monotonic() > deadline:
            raise AssertionError(f"low watermark of {topic} still {lo} (high {hi}) after {timeout} s")
        time.sleep(0.2)


def raw_fetch(port, topic, offset, corr=1):
    s = w.connect(port)
    try:
        s.sendall(w.fetch_request(corr, 0, -1, [(topic, 0, offset, 1 << 20)]))
        resp = w.parse_fetch(w.read_frame(s))
    finally:
        s.close()
    assert resp["error"] == 0, resp
    return resp["partitions"][0]


def check_intact_from(bootstrap, topic, sent, lo, hi):
    """Consuming from the beginning yields exactly offsets lo..hi-1 with the values sent there."""
    msgs = ck_util.consume(bootstrap, topic, expected=hi - lo)
    offsets = [m.offset() for m in msgs]
    assert offsets == list(range(lo, hi)), \
        f"retained data not contiguous from log start {lo} to {hi}: first {offsets[:5]}, last {offsets[-5:]}"
    bad = [m.offset() for m in msgs if sent.get(m.offset()) != m.value()]
    assert not bad, f"{len(bad)} retained messages differ from what was produced, e.g. offsets {bad[:5]}"


def test_retention_by_size(broker, topic):
    retention = 4 * SEGMENT_BYTES
    create_topic(broker.bootstrap, topic, {"segment.bytes": str(SEGMENT_BYTES),
                                           "retention.bytes": str(retention)})
    sent = produce_numbered(broker.bootstrap, topic, 0, 3000)  # ~600 KB: dozens of segments
    total = max(sent) + 1
    lo, hi = wait_low_watermark(broker.bootstrap, topic, lambda lo, hi: lo > 0 and hi == total)
    assert hi == total
    # Let retention settle (it may take a few checks), then compare with disk.
    time.sleep(0.5)
    lo, hi = watermarks(broker.bootstrap, topic)
    segs = segment_files(broker, topic)
    assert segs[0][0] == lo, f"log start {lo} is not the first segment's base offset; segments {segs[:3]}"
    sizes = [s for _, s in segs]
    kept = sum(sizes)
    # Kafka's rule: delete oldest segments while the rest still holds at least
    # retention.bytes; so what is left is >= the limit, and dropping one more
    # inactive segment would go below it.
    assert kept >= retention, f"retention deleted too much: {kept} bytes left, limit {retention}"
    if len(segs) > 1:
        assert kept - sizes[0] < retention, \
            f"retention left {kept} bytes in {len(segs)} segments, limit {retention}: {segs}"
    # The log start is a batch boundary: a fetch there starts with a batch based at it.
    part = raw_fetch(broker.port, topic, lo)
    assert part["error"] == 0 and part["log_start_offset"] == lo
    assert w.batches(part["records"])[0][0] == lo
    check_intact_from(broker.bootstrap, topic, sent, lo, hi)


def test_retention_never_deletes_active_segment(broker, topic):
    # retention.bytes=0: every inactive segment exceeds the limit; the active one must stay.
    create_topic(broker.bootstrap, topic, {"segment.bytes": str(SEGMENT_BYTES), "retention.bytes": "0"})
    sent = produce_numbered(broker.bootstrap, topic, 0, 1000)
    total = max(sent) + 1
    lo, hi = wait_low_watermark(broker.bootstrap, topic, lambda lo, hi: lo > 0 and hi == total)
    time.sleep(0.5)
    lo, hi = watermarks(broker.bootstrap, topic)
    segs = segment_files(broker, topic)
    assert len(segs) == 1, f"inactive segments left despite retention.bytes=0: {segs}"
    assert segs[0][0] == lo and 0 < lo < total and hi == total
    check_intact_from(broker.bootstrap, topic, sent, lo, hi)


def test_retention_by_record_timestamp(broker, topic):
    # Segments of only hour-old records go at once; a segment holding any
    # recent record stays, as do all later ones.
    create_topic(broker.bootstrap, topic, {"segment.bytes": str(SEGMENT_BYTES), "retention.ms": "60000"})
    old_ts = int(time.time() * 1000) - 3600 * 1000
    sent = produce_numbered(broker.bootstrap, topic, 0, 1000, timestamp=old_ts)
    first_new = max(sent) + 1
    sent.update(produce_numbered(broker.bootstrap, topic, 1000, 1000))
    total = max(sent) + 1
    lo, hi = wait_low_watermark(broker.bootstrap, topic, lambda lo, hi: lo > 0 and hi == total)
    time.sleep(0.5)
    lo, hi = watermarks(broker.bootstrap, topic)
    segs = segment_files(broker, topic)
    assert segs[0][0] == lo
    # The first kept segment is the one holding the first recent record.
    assert lo <= first_new, f"retention deleted recent records: log start {lo}, first recent {first_new}"
    nxt = segs[1][0] if len(segs) > 1 else total
    assert nxt > first_new, \
        f"an all-old segment survived: log start {lo}, next segment {nxt}, first recent {first_new}"
    assert hi == total
    check_intact_from(broker.bootstrap, topic, sent, lo, hi)


def test_retention_by_time_with_segment_ms(broker, topic):
    # Real ageing: segment.ms rolls the segment on the first append after it
    # elapsed; the old segment then passes retention.ms and goes, while the
    # new (active) one stays however old it gets.
    create_topic(broker.bootstrap, topic, {"retention.ms": "1000", "segment.ms": "1000"})
    sent = produce_numbered(broker.bootstrap, topic, 0, 200)
    first_new = max(sent) + 1
    time.sleep(1.3)
    if len(segment_files(broker, topic)) == 1:  # (a very slow produce may have rolled already)
        assert watermarks(broker.bootstrap, topic)[0] == 0, "the active segment was deleted by time"
    sent.update(produce_numbered(broker.bootstrap, topic, 200, 50))
    total = max(sent) + 1
    lo, hi = wait_low_watermark(broker.bootstrap, topic, lambda lo, hi: lo > 0 and hi == total, timeout=5)
    assert lo == first_new, f"log start {lo}, expected the first new offset {first_new}"
    time.sleep(1.5)  # the new records are now past retention.ms too, but in the active segment
    lo, hi = watermarks(broker.bootstrap, topic)
    assert (lo, hi) == (first_new, total)
    check_intact_from(broker.bootstrap, topic, sent, lo, hi)


def retained_topic(broker, topic):
    create_topic(broker.bootstrap, topic, {"segment.bytes": str(SEGMENT_BYTES),
                                           "retention.bytes": str(2 * SEGMENT_BYTES)})
    sent = produce_numbered(broker.bootstrap, topic, 0, 1000)
    lo, hi = wait_low_watermark(broker.bootstrap, topic, lambda lo, hi: lo > 0 and hi == 1000)
    time.sleep(0.5)
    lo, hi = watermarks(broker.bootstrap, topic)
    assert lo > 0
    return sent, lo, hi


def first_message(c, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error() and m.error().code() == KafkaError._PARTITION_EOF:
            continue
        return m
    return None


def test_fetch_below_log_start(broker, topic):
    sent, lo, hi = retained_topic(broker, topic)
    part = raw_fetch(broker.port, topic, 0)
    assert part["error"] == 1, f"fetch below log start: error {part['error']}, expected OFFSET_OUT_OF_RANGE"
    assert part["log_start_offset"] == lo and part["high_watermark"] == hi
    assert not part["records"]
    assert raw_fetch(broker.port, topic, lo - 1)["error"] == 1
    assert raw_fetch(broker.port, topic, hi + 1)["error"] == 1
    ok = raw_fetch(broker.port, topic, lo)
    assert ok["error"] == 0 and w.batches(ok["records"])[0][0] == lo
    assert raw_fetch(broker.port, topic, hi)["error"] == 0  # the end itself is in range


def test_consumer_below_log_start_resets(broker, topic):
    sent, lo, hi = retained_topic(broker, topic)
    base = {"bootstrap.servers": broker.bootstrap, "group.id": "retention-reset",
            "enable.auto.commit": False, "enable.partition.eof": True}

    c = Consumer(dict(base, **{"auto.offset.reset": "earliest"}))
    try:
        c.assign([TopicPartition(topic, 0, 0)])
        m = first_message(c)
        assert m is not None and m.error() is None, m and m.error()
        assert m.offset() == lo and m.value() == sent[lo]
    finally:
        c.close()

    c = Consumer(dict(base, **{"auto.offset.reset": "latest"}))
    try:
        c.assign([TopicPartition(topic, 0, 0)])
        # Reset to the end: nothing until a new message arrives.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is not None and m.error() and m.error().code() == KafkaError._PARTITION_EOF:
                break
            assert m is None, f"latest reset delivered {m.error() or m.offset()}"
        else:
            raise AssertionError("consumer with auto.offset.reset=latest never reached the end")
        new = produce_numbered(broker.bootstrap, topic, 5000, 1)
        m = first_message(c)
        assert m is not None and m.error() is None, m and m.error()
        assert m.offset() == hi and m.value() == new[hi]
    finally:
        c.close()

    c = Consumer(dict(base, **{"auto.offset.reset": "error"}))
    try:
        c.assign([TopicPartition(topic, 0, 0)])
        m = first_message(c)
        assert m is not None, "no error reported for an out-of-range position with auto.offset.reset=error"
        assert m.error() is not None and m.error().code() == KafkaError._AUTO_OFFSET_RESET, \
            f"expected _AUTO_OFFSET_RESET, got {m.error() or m.offset()}"
    finally:
        c.close()


def test_kafka_python_below_log_start(broker, topic):
    sent, lo, hi = retained_topic(broker, topic)
    tp = kafka.TopicPartition(topic, 0)
    c = kafka.KafkaConsumer(bootstrap_servers=broker.bootstrap, auto_offset_reset="earliest",
                            enable_auto_commit=False, api_version_auto_timeout_ms=10000)
    try:
        c.assign([tp])
        assert c.beginning_offsets([tp])[tp] == lo
        c.seek(tp, 0)
        got = []
        deadline = time.monotonic() + 10
        while not got and time.monotonic() < deadline:
            got = c.poll(timeout_ms=500).get(tp, [])
        assert got, "kafka-python got nothing after an out-of-range reset to earliest"
        assert got[0].offset == lo and got[0].value == sent[lo]
    finally:
        c.close()
    c = kafka.KafkaConsumer(bootstrap_servers=broker.bootstrap, auto_offset_reset="none",
                            enable_auto_commit=False, api_version_auto_timeout_ms=10000)
    try:
        c.assign([tp])
        c.seek(tp, 0)
        raised = None
        deadline = time.monotonic() + 10
        while raised is None and time.monotonic() < deadline:
            try:
                assert not c.poll(timeout_ms=500), "kafka-python delivered records below the log start"
            except kafka.errors.OffsetOutOfRangeError as e:
                raised = e
        assert raised is not None, "kafka-python with auto_offset_reset=none raised no OffsetOutOfRangeError"
    finally:
        c.close()
