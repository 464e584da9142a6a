"""Idempotent producers with real clients: librdkafka (confluent-kafka-python)
with enable.idempotence=true gets a producer id through InitProducerId and
produces with sequence numbers; every message is read back exactly once and
in order. The broker's producer state also survives a restart in the middle
of the stream (the client keeps its id and sequences across the reconnect)."""

from confluent_kafka import Producer

import ck_util

N = 2000


def values(prefix, n):
    return [f"{prefix}-{i:06d}".encode() for i in range(n)]


def idempotent_producer(bootstrap, **conf):
    c = {"enable.idempotence": True, "acks": "all", "linger.ms": 5,
         "batch.num.messages": 50,  # many batches: several in flight at once
         "message.timeout.ms": ck_util.CLIENT_TIMEOUT_S * 1000}
    c.update(conf)
    return ck_util.producer(bootstrap, **c)


def test_confluent_idempotent_produce_exactly_once_in_order(bootstrap, topic):
    p = idempotent_producer(bootstrap)
    sent = values("m", N)
    reports = ck_util.produce_all(p, topic, [{"value": v} for v in sent])
    assert all(r[0] is None for r in reports), [r for r in reports if r[0] is not None][:3]
    offsets = [r[2] for r in reports]
    assert offsets == list(range(N)), "delivery offsets must be contiguous and in order"
    got = ck_util.consume(bootstrap, topic, expected=N)
    assert [m.value() for m in got] == sent
    assert [m.offset() for m in got] == list(range(N))


def test_confluent_idempotent_producers_side_by_side(bootstrap, topic):
    # Two producers (two producer ids) on one partition: each one's messages
    # stay complete and in their own order.
    a, b = idempotent_producer(bootstrap), idempotent_producer(bootstrap)
    va, vb = values("a", 500), values("b", 500)
    for i in range(500):
        a.produce(topic, value=va[i], partition=0)
        b.produce(topic, value=vb[i], partition=0)
        if i % 50 == 0:
            a.poll(0)
            b.poll(0)
    assert a.flush(ck_util.CLIENT_TIMEOUT_S) == 0
    assert b.flush(ck_util.CLIENT_TIMEOUT_S) == 0
    got = [m.value() for m in ck_util.consume(bootstrap, topic, expected=1000)]
    assert len(got) == 1000
    assert [v for v in got if v.startswith(b"a-")] == va
    assert [v for v in got if v.startswith(b"b-")] == vb


def test_confluent_idempotent_across_broker_restart(broker_factory, topic):
    broker = broker_factory()
    p = idempotent_producer(broker.bootstrap, **{
        "retry.backoff.ms": 50, "reconnect.backoff.ms": 20, "reconnect.backoff.max.ms": 200,
        "message.timeout.ms": 60_000})
    first, second = values("before", 300), values("after", 300)
    reports = ck_util.produce_all(p, topic, [{"value": v} for v in first])
    assert all(r[0] is None for r in reports)
    broker.restart()
    reports = ck_util.produce_all(p, topic, [{"value": v} for v in second])
    assert all(r[0] is None for r in reports), [r for r in reports if r[0] is not None][:3]
    got = [m.value() for m in ck_util.consume(broker.bootstrap, topic, expected=600)]
    assert got == first + second
