"""kafka-python 2.0.2 against a real spool broker. kafka-python guesses the
broker version from the ApiVersions answer and then uses fixed request
versions, so these tests also pin the advertised ranges."""

import time

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from harness import external_bootstrap, missing_tool
from kafka.codec import has_gzip, has_lz4, has_snappy, has_zstd

TIMEOUT_S = 30

CODECS = [None, "gzip", "snappy", "lz4", "zstd"]
# The Debian package that gives kafka-python each codec (scripts/deps).
CODEC_MODULES = {"gzip": (has_gzip, "gzip (python3 zlib)"), "snappy": (has_snappy, "python3-snappy"),
                 "lz4": (has_lz4, "python3-lz4"), "zstd": (has_zstd, "python3-zstandard")}


def make_messages(n, base_ts):
    msgs = []
    for i in range(n):
        key = None if i % 5 == 2 else f"k{i % 9}".encode()
        # kafka-python refuses a message with neither key nor value.
        value = None if (i % 8 == 6 and key is not None) else (f"value-{i}-".encode() * (1 + i % 40))
        headers = [("trace", f"t{i}".encode()), ("empty", b"")] if i % 3 == 0 else []
        msgs.append((key, value, headers, base_ts + i))
    return msgs


def produce(bootstrap, topic, msgs, **conf):
    cfg = {"linger_ms": 5, "batch_size": 4096}
    cfg.update(conf)
    p = KafkaProducer(bootstrap_servers=bootstrap, request_timeout_ms=TIMEOUT_S * 1000, **cfg)
    try:
        futures = [p.send(topic, key=k, value=v, headers=h, timestamp_ms=ts, partition=0)
                   for k, v, h, ts in msgs]
        p.flush(TIMEOUT_S)
        return [f.get(timeout=TIMEOUT_S) for f in futures]
    finally:
        p.close(TIMEOUT_S)


def consumer(bootstrap):
    return KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False,
                         auto_offset_reset="earliest", request_timeout_ms=TIMEOUT_S * 1000 + 1000,
                         consumer_timeout_ms=TIMEOUT_S * 1000)


def consume(bootstrap, topic, n):
    c = consumer(bootstrap)
    try:
        tp = TopicPartition(topic, 0)
        c.assign([tp])
        c.seek_to_beginning(tp)
        got = []
        deadline = time.monotonic() + TIMEOUT_S
        while len(got) < n and time.monotonic() < deadline:
            for recs in c.poll(timeout_ms=500).values():
                got.extend(recs)
        return got
    finally:
        c.close()


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c or "none")
def test_roundtrip(bootstrap, topic, codec):
    if codec and not CODEC_MODULES[codec][0]():
        missing_tool(CODEC_MODULES[codec][1])
    base_ts = int(time.time() * 1000) - 60_000
    msgs = make_messages(300, base_ts)
    metas = produce(bootstrap, topic, msgs, compression_type=codec, acks="all")
    assert [m.offset for m in metas] == list(range(len(msgs)))
    assert all(m.partition == 0 for m in metas)

    got = consume(bootstrap, topic, len(msgs))
    assert len(got) == len(msgs), f"consumed {len(got)} of {len(msgs)}"
    for i, ((k, v, h, ts), r) in enumerate(zip(msgs, got)):
        assert r.offset == i
        assert r.key == k, f"message {i} key"
        assert r.value == v, f"message {i} value"
        assert list(r.headers) == h, f"message {i} headers {r.headers}"
        assert r.timestamp == ts and r.timestamp_type == 0, f"message {i} timestamp"


def test_offsets_api(bootstrap, topic):
    base_ts = 1_500_000_000_000
    msgs = [(b"k", f"v{i}".encode(), [], base_ts + 100 * i) for i in range(40)]
    produce(bootstrap, topic, msgs, acks=1, batch_size=300)  # several batches

    c = consumer(bootstrap)
    try:
        tp = TopicPartition(topic, 0)
        parts = c.partitions_for_topic(topic)
        # Auto-created with num.partitions=1 (an external debug broker may differ).
        assert parts == {0} or (external_bootstrap() and 0 in parts), parts
        assert c.beginning_offsets([tp]) == {tp: 0}
        assert c.end_offsets([tp]) == {tp: 40}
        r = c.offsets_for_times({tp: base_ts + 1050})
        assert r[tp] is not None and r[tp].offset == 11 and r[tp].timestamp == base_ts + 1100
        r = c.offsets_for_times({tp: base_ts})
        assert r[tp].offset == 0 and r[tp].timestamp == base_ts
        r = c.offsets_for_times({tp: base_ts + 100_000})
        assert r[tp] is None  # no record at or after that time
    finally:
        c.close()


def test_produce_then_seek_middle(bootstrap, topic):
    msgs = [(None, f"m{i}".encode(), [], None) for i in range(100)]
    produce(bootstrap, topic, msgs, acks="all")
    c = consumer(bootstrap)
    try:
        tp = TopicPartition(topic, 0)
        c.assign([tp])
        c.seek(tp, 57)
        got = []
        deadline = time.monotonic() + TIMEOUT_S
        while len(got) < 43 and time.monotonic() < deadline:
            for recs in c.poll(timeout_ms=500).values():
                got.extend(recs)
        assert [r.offset for r in got] == list(range(57, 100))
        assert [r.value for r in got] == [f"m{i}".encode() for i in range(57, 100)]
    finally:
        c.close()
