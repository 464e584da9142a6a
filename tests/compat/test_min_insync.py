"""min.insync.replicas on one broker: a topic that asks for 2 in-sync
replicas refuses acks=all produce with NOT_ENOUGH_REPLICAS (nothing is
appended), while acks=1 keeps working; lowering the topic's setting at run
time lets acks=all through again. Real clients: confluent-kafka (librdkafka)
and kafka-python.

Kafka 3.x does the same. Kafka 4.4 with eligible leader replicas (KIP-966, on
by default) caps min.insync.replicas at the replication factor, so there the
acks=all writes are accepted with one copy: an intended difference (Spool
keeps the safer refusal, see README "Differences"), checked per broker."""

import time

import kafka.errors
from confluent_kafka import KafkaError, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic
from kafka import KafkaProducer

import ck_util

TIMEOUT_S = 30
NOT_ENOUGH_REPLICAS = 19


def create_topic(bootstrap, topic, config):
    a = AdminClient({"bootstrap.servers": bootstrap})
    fs = a.create_topics([NewTopic(topic, 1, 1, config=config)], operation_timeout=10)
    fs[topic].result(timeout=TIMEOUT_S)


def set_topic_config(bootstrap, topic, config):
    a = AdminClient({"bootstrap.servers": bootstrap})
    fs = a.alter_configs([ConfigResource(ConfigResource.Type.TOPIC, topic, set_config=config)])
    for f in fs.values():
        f.result(timeout=TIMEOUT_S)


def high_watermark(bootstrap, topic):
    c = ck_util.consumer(bootstrap)
    try:
        return c.get_watermark_offsets(TopicPartition(topic, 0), timeout=TIMEOUT_S, cached=False)[1]
    finally:
        c.close()


def wait_high_watermark(bootstrap, topic, want):
    deadline = time.monotonic() + TIMEOUT_S
    hw = high_watermark(bootstrap, topic)
    while hw != want and time.monotonic() < deadline:
        time.sleep(0.05)
        hw = high_watermark(bootstrap, topic)
    assert hw == want, f"high watermark {hw}, expected {want}"


def confluent_produce(bootstrap, topic, acks, n):
    # retries=0: librdkafka would otherwise retry the retriable error until
    # message.timeout.ms and report a local time-out instead.
    p = ck_util.producer(bootstrap, acks=acks, retries=0)
    msgs = [{"key": f"k{i}".encode(), "value": f"{acks}-{i}".encode()} for i in range(n)]
    return ck_util.produce_all(p, topic, msgs, partition=0)


def wait_topic_served(bootstrap, topic):
    # Kafka answers CreateTopics before its broker serves the topic.
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        try:
            high_watermark(bootstrap, topic)
            return
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_confluent_acks_all_gets_not_enough_replicas(bootstrap, topic, peer):
    create_topic(bootstrap, topic, {"min.insync.replicas": "2"})
    wait_topic_served(bootstrap, topic)
    reports = confluent_produce(bootstrap, topic, "all", 3)
    codes = [r[0].code() if r[0] is not None else None for r in reports]
    if peer == "kafka":  # capped at the replication factor: accepted with one copy
        assert codes == [None] * 3, reports
        expected = [b"all-0", b"all-1", b"all-2"]
    else:
        assert codes == [KafkaError.NOT_ENOUGH_REPLICAS] * 3, reports
        assert high_watermark(bootstrap, topic) == 0  # nothing was appended
        expected = []

    reports = confluent_produce(bootstrap, topic, "1", 3)
    assert [r[0] for r in reports] == [None] * 3, reports
    assert [r[2] for r in reports] == [len(expected) + i for i in range(3)]
    expected += [b"1-0", b"1-1", b"1-2"]
    wait_high_watermark(bootstrap, topic, len(expected))

    # acks=0 is not checked either (the client cannot be told).
    confluent_produce(bootstrap, topic, "0", 2)
    expected += [b"0-0", b"0-1"]
    wait_high_watermark(bootstrap, topic, len(expected))

    # Lowered at run time: acks=all succeeds, after the earlier records.
    set_topic_config(bootstrap, topic, {"min.insync.replicas": "1"})
    deadline = time.monotonic() + TIMEOUT_S
    while True:  # Kafka applies a config change a moment after answering
        reports = confluent_produce(bootstrap, topic, "all", 2)
        if all(r[0] is None for r in reports) or time.monotonic() > deadline:
            break
        assert peer == "kafka", reports  # Spool applies it before answering
        time.sleep(0.2)
    assert [r[0] for r in reports] == [None] * 2, reports
    assert [r[2] for r in reports] == [len(expected), len(expected) + 1]
    expected += [b"all-0", b"all-1"]
    got = ck_util.consume(bootstrap, topic, expected=len(expected))
    assert [(m.offset(), m.value()) for m in got] == list(enumerate(expected))


def test_kafka_python_acks_all_gets_not_enough_replicas(bootstrap, topic, peer):
    create_topic(bootstrap, topic, {"min.insync.replicas": "3"})
    wait_topic_served(bootstrap, topic)
    p = KafkaProducer(bootstrap_servers=bootstrap, acks="all", retries=0, request_timeout_ms=TIMEOUT_S * 1000)
    try:
        fut = p.send(topic, key=b"k", value=b"v", partition=0)
        if peer == "kafka":  # capped at the replication factor
            assert fut.get(timeout=TIMEOUT_S).offset == 0
        else:
            try:
                fut.get(timeout=TIMEOUT_S)
                raise AssertionError("acks=all produce succeeded with min.insync.replicas=3 on one broker")
            except kafka.errors.NotEnoughReplicasError as e:
                assert e.errno == NOT_ENOUGH_REPLICAS
            assert high_watermark(bootstrap, topic) == 0
    finally:
        p.close()
    first = 1 if peer == "kafka" else 0
    p = KafkaProducer(bootstrap_servers=bootstrap, acks=1, retries=0)
    try:
        md = p.send(topic, key=b"k", value=b"v1", partition=0).get(timeout=TIMEOUT_S)
        assert md.offset == first
    finally:
        p.close()
    wait_high_watermark(bootstrap, topic, first + 1)
