"""confluent-kafka-python (librdkafka 2.0.x) against a real spool broker:
every compression codec end to end, acks levels, ListOffsets paths, and a
multi-partition topic created through the admin API."""

import random
import time

import pytest
from confluent_kafka import TopicPartition, TIMESTAMP_CREATE_TIME
from confluent_kafka.admin import AdminClient, NewTopic

import ck_util
from harness import topic_configs, which_peer


def make_messages(n, base_ts, seed):
    """Deterministic but varied messages: null and empty keys/values, binary
    payloads of several sizes, zero to three headers (one empty).

    No null header values: confluent-kafka-python 1.7 drops a reference to
    None for each one it decodes, which crashes the interpreter ("none_dealloc")
    after a few thousand; kafka-python covers null header values instead."""
    rnd = random.Random(seed)
    msgs = []
    for i in range(n):
        if i % 7 == 3:
            key = None
        elif i % 13 == 5:
            key = b""
        else:
            key = f"key-{i % 17}".encode()
        if i % 11 == 4:
            value = None
        elif i % 19 == 7:
            value = b""
        else:
            value = bytes(rnd.getrandbits(8) for _ in range(rnd.choice([1, 10, 100, 1000, 3000])))
        nh = i % 4
        headers = [(f"h{j}", (f"v{i}-{j}".encode() if j != 2 else b"")) for j in range(nh)]
        msgs.append({"key": key, "value": value, "headers": headers or None,
                     "timestamp": base_ts + i * 3})
    return msgs


def assert_same_messages(sent, got, first_offset=0):
    assert len(got) == len(sent), f"sent {len(sent)}, consumed {len(got)}"
    for i, (s, m) in enumerate(zip(sent, got)):
        where = f"message {i}"
        assert m.offset() == first_offset + i, f"{where}: offset {m.offset()}"
        assert m.key() == s["key"], f"{where}: key {m.key()!r} != {s['key']!r}"
        assert m.value() == s["value"], f"{where}: value differs (len {len(m.value() or b'')} vs {len(s['value'] or b'')})"
        assert (m.headers() or None) == s["headers"], f"{where}: headers {m.headers()} != {s['headers']}"
        assert m.timestamp() == (TIMESTAMP_CREATE_TIME, s["timestamp"]), f"{where}: timestamp {m.timestamp()}"


@pytest.mark.parametrize("codec", ["none", "gzip", "snappy", "lz4", "zstd"])
def test_roundtrip_each_compression(bootstrap, topic, codec):
    base_ts = int(time.time() * 1000) - 3_600_000
    sent = make_messages(400, base_ts, seed=codec)
    p = ck_util.producer(bootstrap, **{"compression.type": codec, "acks": "all",
                                       "batch.num.messages": 50})
    reports = ck_util.produce_all(p, topic, sent)
    errors = [r for r in reports if r[0] is not None]
    assert not errors, f"delivery errors: {errors[:5]}"
    assert [r[2] for r in reports] == list(range(len(sent))), "acknowledged offsets not 0..n-1 in order"
    got = ck_util.consume(bootstrap, topic, expected=len(sent))
    assert_same_messages(sent, got)


@pytest.mark.parametrize("acks", ["0", "1", "all"])
def test_acks_levels(bootstrap, topic, acks):
    base_ts = int(time.time() * 1000)
    sent = make_messages(150, base_ts, seed=acks)
    p = ck_util.producer(bootstrap, acks=acks, **{"batch.num.messages": 20})
    reports = ck_util.produce_all(p, topic, sent)
    assert all(r[0] is None for r in reports), [r for r in reports if r[0] is not None][:5]
    if acks != "0":
        assert [r[2] for r in reports] == list(range(len(sent)))
    # acks=0 gets no answer on the wire, so the data itself is the proof.
    got = ck_util.consume(bootstrap, topic, expected=len(sent))
    assert_same_messages(sent, got)


def test_list_offsets(bootstrap, topic):
    base_ts = 1_600_000_000_000  # fixed past time: offsets_for_times is deterministic
    sent = [{"key": b"k", "value": f"v{i}".encode(), "timestamp": base_ts + i * 10}
            for i in range(50)]
    p = ck_util.producer(bootstrap, acks="all", **{"batch.num.messages": 7})
    reports = ck_util.produce_all(p, topic, sent)
    assert all(r[0] is None for r in reports)

    c = ck_util.consumer(bootstrap)
    try:
        tp = TopicPartition(topic, 0)
        assert c.get_watermark_offsets(tp, timeout=10, cached=False) == (0, 50)

        def at(ts):
            r = c.offsets_for_times([TopicPartition(topic, 0, ts)], timeout=10)
            assert r[0].error is None, r[0].error
            return r[0].offset

        assert at(base_ts - 1000) == 0           # before everything: first offset
        assert at(base_ts) == 0
        assert at(base_ts + 200) == 20           # exact match
        assert at(base_ts + 205) == 21           # first timestamp >= target
        assert at(base_ts + 490) == 49
        assert at(base_ts + 491) == -1           # past the end: no offset
    finally:
        c.close()


def test_multi_partition_topic(bootstrap, topic):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(topic, num_partitions=3, replication_factor=1)],
                                  operation_timeout=10, request_timeout=15)
    futures[topic].result(timeout=20)
    md = admin.list_topics(topic, timeout=10)
    t = md.topics[topic]
    assert t.error is None, t.error
    assert sorted(t.partitions) == [0, 1, 2]

    # Creating it again must fail with TOPIC_ALREADY_EXISTS.
    again = admin.create_topics([NewTopic(topic, num_partitions=3, replication_factor=1)],
                                request_timeout=15)
    with pytest.raises(Exception) as ei:
        again[topic].result(timeout=20)
    assert "TOPIC_ALREADY_EXISTS" in str(ei.value) or "already exists" in str(ei.value).lower()

    sent = [{"key": f"user-{i % 30}".encode(), "value": f"event-{i}".encode()} for i in range(300)]
    p = ck_util.producer(bootstrap, acks="all", partitioner="murmur2_random")
    reports = ck_util.produce_all(p, topic, sent, partition=None)
    assert all(r[0] is None for r in reports)
    part_of_key = {}
    for s, r in zip(sent, reports):
        assert part_of_key.setdefault(s["key"], r[1]) == r[1], "one key landed on two partitions"
    assert len(set(part_of_key.values())) > 1, "all keys on one partition"

    got = ck_util.consume(bootstrap, topic, partitions=(0, 1, 2), expected=len(sent))
    assert len(got) == len(sent)
    for part in (0, 1, 2):
        # Each message at the offset its delivery report gave. (Not send order:
        # a non-idempotent producer may retry a batch behind later ones, e.g.
        # while Kafka's broker still learns the new topic's leaders.)
        expect = [s["value"] for s, r in sorted(zip(sent, reports), key=lambda sr: sr[1][2])
                  if r[1] == part]
        have = [m for m in got if m.partition() == part]
        assert [m.value() for m in have] == expect, f"partition {part} content/order"
        assert [m.offset() for m in have] == list(range(len(expect)))


def test_delete_topic(bootstrap, topic):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)],
                        request_timeout=15)[topic].result(timeout=20)
    assert topic in admin.list_topics(timeout=10).topics
    admin.delete_topics([topic], request_timeout=15)[topic].result(timeout=20)
    deadline = time.monotonic() + 10
    while topic in admin.list_topics(timeout=10).topics:
        assert time.monotonic() < deadline, "deleted topic still listed after 10 s"
        time.sleep(0.2)


def high_watermark(c, topic):
    return c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10, cached=False)[1]


@pytest.mark.parametrize("acks,durable", [("all", "true"), ("1", "false"), ("all", "false")])
def test_acked_write_is_visible_at_once(bootstrap, topic, acks, durable):
    """Read-your-writes: once a write is acknowledged, ListOffsets(latest)
    already shows it. Kafka moves a single-replica partition's high watermark
    before it answers; Spool does too, except that with durable.writes=true
    the high watermark only covers fsynced data, which acks=all waits for."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    # Kafka has no durable.writes (topic_configs drops it there): all three
    # cases are its only behaviour, visible at the acknowledgement.
    admin.create_topics([NewTopic(topic, 1, 1, config=topic_configs({"durable.writes": durable}))],
                        request_timeout=15)[topic].result(timeout=20)
    p = ck_util.producer(bootstrap, acks=acks, **{"linger.ms": 0})
    c = ck_util.consumer(bootstrap)
    try:
        for i in range(20):
            r = ck_util.produce_all(p, topic, [{"value": f"m{i}".encode()}])
            assert r[0][0] is None and r[0][2] == i
            high = high_watermark(c, topic)
            assert high == i + 1, f"acks={acks}: write {i} acknowledged but high watermark is {high}"
    finally:
        c.close()


def test_acks1_durable_write_becomes_visible_after_group_commit(bootstrap, topic):
    """Spool's documented difference: with durable.writes=true (the default)
    consumers never see data a crash could take back, so an acks=1 write (not
    waiting for the disk) becomes visible at the next group-committed fsync,
    milliseconds later, instead of at the acknowledgement. Kafka shows it at
    the acknowledgement (README: Differences from Kafka 4.4)."""
    p = ck_util.producer(bootstrap, acks="1", **{"linger.ms": 0})
    c = ck_util.consumer(bootstrap)
    try:
        for i in range(10):
            r = ck_util.produce_all(p, topic, [{"value": f"m{i}".encode()}])
            assert r[0][0] is None and r[0][2] == i
            if which_peer():
                # Kafka (no durable high watermark): visible at the acknowledgement.
                assert high_watermark(c, topic) == i + 1
                continue
            deadline = time.monotonic() + 5
            while high_watermark(c, topic) != i + 1:
                assert time.monotonic() < deadline, f"write {i} not visible 5 s after its ack"
                time.sleep(0.005)
    finally:
        c.close()
