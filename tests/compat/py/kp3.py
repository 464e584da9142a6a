"""kafka-python 3.x helpers for test_kafka_python3*.py: producer/consumer
construction, produce-and-wait, bounded polling, and ConsumerRecord ->
record dict conversion (py_common's record shape)."""

import time

from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient


def producer(bootstrap, **conf):
    base = {"bootstrap_servers": bootstrap, "linger_ms": 5, "request_timeout_ms": 30000}
    base.update(conf)
    return KafkaProducer(**base)


def consumer(bootstrap, group=None, **conf):
    base = {"bootstrap_servers": bootstrap, "group_id": group, "enable_auto_commit": False,
            "auto_offset_reset": "earliest", "session_timeout_ms": 6000, "heartbeat_interval_ms": 500,
            "consumer_timeout_ms": 0}
    base.update(conf)
    return KafkaConsumer(**base)


def subscribe(c, topic, partitions):
    """Subscribes c to topic, then fetches metadata before the first poll()
    joins the group. kafka-python 3.0.12's coordinator takes the metadata
    snapshot it assigns from only on a metadata update after subscribe();
    joining before one arrives makes the leader rejoin when it does: right
    after the first records (a commit then fails with RebalanceInProgress),
    and if poll()'s timeout ends between that JoinGroup and its SyncGroup
    answer, the finished join is never applied and the member sits without
    partitions ("a alone: 0 of 200")."""
    c.subscribe([topic])
    assert topic in c.topics()  # a metadata update: the coordinator's snapshot now has the topic
    assert c.partitions_for_topic(topic) == set(range(partitions))
    return c


def member(bootstrap, group, topic, client_id, partitions=4):
    return subscribe(consumer(bootstrap, group, client_id=client_id), topic, partitions)


def admin(bootstrap):
    return KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30000)


def create_topic(bootstrap, name, partitions=1, configs=None):
    a = admin(bootstrap)
    try:
        a.create_topics({name: {"num_partitions": partitions, "replication_factor": 1,
                                "configs": configs or {}}}, wait_for_metadata=True)
    finally:
        a.close()
    return name


def produce_all(p, topic, records, timeout_s=60):
    """Sends records (py_common shape), flushes, returns RecordMetadata list."""
    futs = []
    for r in records:
        futs.append(p.send(topic, value=r["value"], key=r["key"], headers=list(r["headers"]) or None,
                           partition=r.get("partition"), timestamp_ms=r.get("timestamp")))
    p.flush(timeout_s)
    return [f.get(timeout=timeout_s) for f in futs]


def to_record(m):
    assert m.timestamp_type == 0, f"timestamp type {m.timestamp_type} at offset {m.offset}"
    return {"key": m.key, "value": m.value, "headers": list(m.headers or []), "timestamp": m.timestamp,
            "partition": m.partition, "offset": m.offset}


def poll_until(c, n, timeout_s, what, commit=False):
    """Polls until n records arrived; commit=True commits synchronously after
    each non-empty poll. Returns the records in arrival order."""
    got = []
    deadline = time.monotonic() + timeout_s
    while len(got) < n:
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what}: {len(got)} of {n} records after {timeout_s} s")
        batch = c.poll(timeout_ms=300, max_records=n - len(got))
        for recs in batch.values():
            got.extend(recs)
        if batch and commit:
            c.commit()
    return got


def poll_nothing(c, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for recs in c.poll(timeout_ms=200).values():
            r = recs[0]
            raise AssertionError(f"{what}: unexpected record {r.partition}/{r.offset}: {r.value!r}")


def read_partition(bootstrap, topic, partition, n, isolation="read_uncommitted", settle_s=0.5):
    c = consumer(bootstrap, isolation_level=isolation)
    try:
        tp = TopicPartition(topic, partition)
        c.assign([tp])
        c.seek_to_beginning(tp)
        got = poll_until(c, n, 30, f"{topic}/{partition} ({isolation})")
        if settle_s:
            poll_nothing(c, settle_s, f"{topic}/{partition} ({isolation}) after {n} records")
        return [to_record(m) for m in got]
    finally:
        c.close()


def end_offset(bootstrap, topic, partition):
    c = consumer(bootstrap)
    try:
        tp = TopicPartition(topic, partition)
        return c.end_offsets([tp])[tp]
    finally:
        c.close()
