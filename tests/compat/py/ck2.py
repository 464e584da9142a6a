"""confluent-kafka 2.x helpers for test_confluent2*.py: producer/consumer
configs, produce-and-wait with delivery reports, bounded consumption, and
message -> record dict conversion (py_common's record shape)."""

import time

from confluent_kafka import (OFFSET_BEGINNING, TIMESTAMP_CREATE_TIME, Consumer, KafkaException,
                             Producer, TopicPartition)
from confluent_kafka.admin import AdminClient, NewTopic


def producer(bootstrap, **conf):
    base = {"bootstrap.servers": bootstrap, "linger.ms": 5, "message.timeout.ms": 30000}
    base.update(conf)
    return Producer(base)


def consumer(bootstrap, group=None, **conf):
    """A consumer with manual commits; a None value in conf drops that key."""
    base = {"bootstrap.servers": bootstrap, "group.id": group or "ck2-reader",
            "enable.auto.commit": False, "auto.offset.reset": "earliest",
            "session.timeout.ms": 6000, "heartbeat.interval.ms": 500,
            "enable.partition.eof": False}
    base.update(conf)
    return Consumer({k: v for k, v in base.items() if v is not None})


def admin(bootstrap):
    return AdminClient({"bootstrap.servers": bootstrap})


def create_topic(bootstrap, name, partitions=1, config=None):
    a = admin(bootstrap)
    fut = a.create_topics([NewTopic(name, num_partitions=partitions, replication_factor=1,
                                    config=config or {})], operation_timeout=20)
    fut[name].result(30)
    # Kafka (KRaft) answers CreateTopics before its broker has the topic:
    # wait until metadata shows every partition with a leader.
    deadline = time.monotonic() + 30
    while True:
        t = a.list_topics(name, timeout=10).topics.get(name)
        if t is not None and t.error is None and len(t.partitions) == partitions \
                and all(p.leader >= 0 for p in t.partitions.values()):
            return name
        assert time.monotonic() < deadline, f"topic {name} not in metadata 30 s after CreateTopics"
        time.sleep(0.05)


def produce_all(p, topic, records, timeout_s=60):
    """Produces records (py_common shape) and flushes; returns the delivery
    reports (err, partition, offset) in produce order."""
    reports = [None] * len(records)

    def on_delivery(i):
        def cb(err, msg):
            reports[i] = (err, msg.partition(), msg.offset())
        return cb

    for i, r in enumerate(records):
        kw = {"value": r["value"], "key": r["key"], "on_delivery": on_delivery(i)}
        if r["headers"]:
            kw["headers"] = list(r["headers"])
        if r.get("timestamp") is not None:
            kw["timestamp"] = r["timestamp"]
        if r.get("partition") is not None:
            kw["partition"] = r["partition"]
        while True:
            try:
                p.produce(topic, **kw)
                break
            except BufferError:
                p.poll(0.05)
    left = p.flush(timeout_s)
    assert left == 0, f"{left} messages still in the producer queue after {timeout_s} s"
    assert all(r is not None for r in reports), "a delivery report is missing"
    return reports


def to_record(m):
    ts_type, ts = m.timestamp()
    assert ts_type == TIMESTAMP_CREATE_TIME, f"timestamp type {ts_type} at offset {m.offset()}"
    return {"key": m.key(), "value": m.value(), "headers": list(m.headers() or []),
            "timestamp": ts, "partition": m.partition(), "offset": m.offset()}


def poll_until(c, n, timeout_s, what):
    """Consumes until n messages arrived (raises on a consumer error or the
    deadline); returns the messages."""
    got = []
    deadline = time.monotonic() + timeout_s
    while len(got) < n:
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what}: {len(got)} of {n} messages after {timeout_s} s")
        for m in c.consume(num_messages=n - len(got), timeout=0.5):
            if m.error():
                raise KafkaException(m.error())
            got.append(m)
    return got


def poll_nothing(c, seconds, what):
    """Polls for `seconds` and asserts no message arrives."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for m in c.consume(num_messages=100, timeout=0.2):
            if m.error():
                raise KafkaException(m.error())
            raise AssertionError(f"{what}: unexpected message at {m.partition()}/{m.offset()}: {m.value()!r}")


def read_partition(bootstrap, topic, partition, n, isolation="read_uncommitted", settle_s=0.5):
    """Reads exactly n messages of one partition from its beginning (no group
    commits) and checks nothing more follows within settle_s."""
    c = consumer(bootstrap, **{"isolation.level": isolation})
    try:
        c.assign([TopicPartition(topic, partition, OFFSET_BEGINNING)])
        got = poll_until(c, n, 30, f"{topic}/{partition} ({isolation})")
        if settle_s:
            poll_nothing(c, settle_s, f"{topic}/{partition} ({isolation}) after {n} messages")
        return [to_record(m) for m in got]
    finally:
        c.close()


def high_watermark(bootstrap, topic, partition):
    """The high watermark (read_uncommitted: a read_committed consumer's
    "high" offset is the last stable offset)."""
    c = consumer(bootstrap, **{"isolation.level": "read_uncommitted"})
    try:
        return c.get_watermark_offsets(TopicPartition(topic, partition), timeout=10)[1]
    finally:
        c.close()
