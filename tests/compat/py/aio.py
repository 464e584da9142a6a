"""aiokafka 0.14 helpers for test_aiokafka*.py: a bounded asyncio.run, topic
creation through AIOKafkaAdminClient, producer/consumer construction,
send-and-wait, bounded getmany loops and ConsumerRecord -> record dict
conversion (py_common's record shape)."""

import asyncio
import time

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

STEP_S = 30  # bound of any single await


def run(coro, timeout_s=120):
    return asyncio.run(asyncio.wait_for(coro, timeout_s))


async def create_topic(bootstrap, name, partitions=1, configs=None):
    """CreateTopics, then waits until metadata shows every partition with a
    leader (Kafka's KRaft broker learns of a new topic after answering)."""
    a = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await a.start()
    try:
        r = await a.create_topics([NewTopic(name, num_partitions=partitions, replication_factor=1,
                                            topic_configs=configs or {})])
        assert [(t[0], t[1]) for t in r.topic_errors] == [(name, 0)], r
        deadline = time.monotonic() + STEP_S
        while True:
            [t] = await a.describe_topics([name])
            if t["error_code"] == 0 and len(t["partitions"]) == partitions and \
                    all(p["leader"] >= 0 for p in t["partitions"]):
                return
            assert time.monotonic() < deadline, f"topic {name} not in metadata: {t}"
            await asyncio.sleep(0.05)
    finally:
        await a.close()


def producer(bootstrap, **conf):
    return AIOKafkaProducer(bootstrap_servers=bootstrap, linger_ms=5, request_timeout_ms=30000, **conf)


def consumer(bootstrap, *topics, **conf):
    base = {"bootstrap_servers": bootstrap, "enable_auto_commit": False, "auto_offset_reset": "earliest",
            "session_timeout_ms": 6000, "heartbeat_interval_ms": 500}
    base.update(conf)
    return AIOKafkaConsumer(*topics, **base)


async def send_all(p, topic, records):
    futs = [await p.send(topic, value=r["value"], key=r["key"], partition=r.get("partition"),
                         timestamp_ms=r.get("timestamp"), headers=list(r["headers"]) or None)
            for r in records]
    return [await asyncio.wait_for(f, STEP_S) for f in futs]


def to_record(m):
    assert m.timestamp_type == 0, f"timestamp type {m.timestamp_type} at offset {m.offset}"
    return {"key": m.key, "value": m.value, "headers": list(m.headers or []), "timestamp": m.timestamp,
            "partition": m.partition, "offset": m.offset}


async def get_n(c, n, timeout_s, what):
    got = []
    deadline = time.monotonic() + timeout_s
    while len(got) < n:
        assert time.monotonic() < deadline, f"{what}: {len(got)} of {n} after {timeout_s} s"
        for recs in (await c.getmany(timeout_ms=300, max_records=n - len(got))).values():
            got.extend(recs)
    return got


async def get_nothing(c, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for recs in (await c.getmany(timeout_ms=200)).values():
            raise AssertionError(f"{what}: unexpected record {recs[0].partition}/{recs[0].offset}")


async def read_partition(bootstrap, topic, partition, n, isolation="read_uncommitted", settle_s=0.5):
    c = consumer(bootstrap, isolation_level=isolation)
    await c.start()
    try:
        tp = TopicPartition(topic, partition)
        c.assign([tp])
        await c.seek_to_beginning(tp)
        got = await get_n(c, n, STEP_S, f"{topic}/{partition} ({isolation})")
        if settle_s:
            await get_nothing(c, settle_s, f"{topic}/{partition} ({isolation}) after {n}")
        return [to_record(m) for m in got]
    finally:
        await c.stop()


async def end_offset(bootstrap, topic, partition):
    c = consumer(bootstrap)
    await c.start()
    try:
        tp = TopicPartition(topic, partition)
        return (await c.end_offsets([tp]))[tp]
    finally:
        await c.stop()
