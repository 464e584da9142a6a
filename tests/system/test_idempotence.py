"""Idempotent producers by raw frames: InitProducerId hands out producer ids
that stay unique across restarts and crashes; a retried batch is appended
once and answered with its first offset, also after kill -9; sequence gaps
and stale epochs get Kafka's error codes, except the gap a batch refused
with NOT_ENOUGH_REPLICAS leaves: the batches after it get the same
retriable error (broker/refused_batches.h; Kafka answers
OUT_OF_ORDER_SEQUENCE_NUMBER, which librdkafka takes as fatal)."""

import os
import re
import time

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

import kafka_wire as w

NONE = 0
INVALID_REQUEST = 42
OUT_OF_ORDER_SEQUENCE_NUMBER = 45
INVALID_PRODUCER_EPOCH = 47
INVALID_TRANSACTION_TIMEOUT = 50
INVALID_RECORD = 87
NOT_ENOUGH_REPLICAS = 19


def create_topic(bootstrap, name):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    fut = admin.create_topics([NewTopic(name, 1, 1)], operation_timeout=30)[name]
    fut.result(timeout=30)


def new_pid(s, corr=1, version=0):
    _, err, pid, epoch = w.parse_init_producer_id(w.roundtrip(s, w.init_producer_id(corr, version)), version)
    assert err == NONE
    return pid, epoch


def produce(s, topic, batch, corr=7, acks=-1):
    corr_back, parts = w.parse_produce_v3(w.roundtrip(s, w.produce_v3(corr, topic, 0, batch, acks=acks)))
    assert corr_back == corr
    return parts[(topic, 0)]


def fetched_batches(s, topic):
    """(base offset, record count) of every batch in partition 0."""
    frame = w.roundtrip(s, w.fetch_request(99, 0, -1, [(topic, 0, 0, 1 << 20)], max_wait_ms=0))
    part = w.parse_fetch(frame)["partitions"][0]
    assert part["error"] == NONE, part
    return w.batches(part["records"] or b"")


@pytest.fixture
def topic_name(request):
    return re.sub(r"[^A-Za-z0-9._-]", "_", request.node.name)[:60] + "-" + os.urandom(3).hex()


def test_init_producer_id_every_version(broker):
    pids = set()
    with w.connect(broker.port) as s:
        for v in range(5):
            _, err, pid, epoch = w.parse_init_producer_id(w.roundtrip(s, w.init_producer_id(v, v)), v)
            assert (err, epoch) == (NONE, 0), v
            assert pid >= 0
            pids.add(pid)
        # KIP-360 fields of an idempotent producer: a fresh id, as Kafka gives.
        _, err, pid, epoch = w.parse_init_producer_id(
            w.roundtrip(s, w.init_producer_id(9, 3, producer_id=min(pids), producer_epoch=0)), 3)
        assert (err, epoch) == (NONE, 0)
        pids.add(pid)
    assert len(pids) == 6, "producer ids must be unique"


def test_init_producer_id_errors(broker):
    # (A valid transactional id is the transaction coordinator's business,
    # tested with transactions; its checks below come first in any case.)
    cases = [
        (dict(version=2, transactional_id="", timeout_ms=60000), INVALID_REQUEST),
        (dict(version=1, transactional_id="txn-a", timeout_ms=900001), INVALID_TRANSACTION_TIMEOUT),
        (dict(version=1, transactional_id="txn-a", timeout_ms=0), INVALID_TRANSACTION_TIMEOUT),
        (dict(version=3, producer_id=5, producer_epoch=-1), INVALID_REQUEST),
        (dict(version=3, producer_id=-1, producer_epoch=2), INVALID_REQUEST),
    ]
    with w.connect(broker.port) as s:
        for i, (kw, want) in enumerate(cases):
            v = kw["version"]
            _, err, pid, _epoch = w.parse_init_producer_id(w.roundtrip(s, w.init_producer_id(i, **kw)), v)
            assert err == want, (kw, err)
            assert pid == -1


def test_duplicate_batch_appended_once(broker, topic_name):
    create_topic(broker.bootstrap, topic_name)
    with w.connect(broker.port) as s:
        pid, epoch = new_pid(s)
        first = w.idempotent_batch(pid, epoch, 0, [b"a", b"b", b"c"])
        assert produce(s, topic_name, first) == (NONE, 0)
        # The retry (same producer, epoch, sequences) answers the first offset.
        assert produce(s, topic_name, first) == (NONE, 0)
        assert produce(s, topic_name, w.idempotent_batch(pid, epoch, 3, [b"d"])) == (NONE, 3)
        assert produce(s, topic_name, first) == (NONE, 0)  # still among the last five
        assert fetched_batches(s, topic_name) == [(0, 3), (3, 1)]


def test_sequence_gap_and_stale_epoch(broker, topic_name):
    create_topic(broker.bootstrap, topic_name)
    with w.connect(broker.port) as s:
        pid, _ = new_pid(s)
        assert produce(s, topic_name, w.idempotent_batch(pid, 0, 0, [b"a", b"b"])) == (NONE, 0)
        err, base = produce(s, topic_name, w.idempotent_batch(pid, 0, 5, [b"x"]))
        assert (err, base) == (OUT_OF_ORDER_SEQUENCE_NUMBER, -1)
        # A new epoch restarts at sequence 0 (a non-zero start is out of order).
        assert produce(s, topic_name, w.idempotent_batch(pid, 1, 2, [b"x"]))[0] == OUT_OF_ORDER_SEQUENCE_NUMBER
        assert produce(s, topic_name, w.idempotent_batch(pid, 1, 0, [b"c"])) == (NONE, 2)
        # The old epoch is fenced now.
        err, _ = produce(s, topic_name, w.idempotent_batch(pid, 0, 2, [b"y"]))
        assert err == INVALID_PRODUCER_EPOCH
        # A producer id with a negative sequence is an invalid record.
        assert produce(s, topic_name, w.idempotent_batch(pid, 1, -1, [b"z"]))[0] == INVALID_RECORD
        # Plain batches are untouched by all of this.
        plain = w.record_batch([(None, b"p", ())], 1_700_000_000_000)
        assert produce(s, topic_name, plain) == (NONE, 3)
        assert fetched_batches(s, topic_name) == [(0, 2), (2, 1), (3, 1)]


def test_gap_left_by_a_refused_batch_is_retriable(broker, topic_name):
    # One replica and min.insync.replicas=2: every acks=all produce is
    # refused with NOT_ENOUGH_REPLICAS before the append; acks=1 is not.
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic_name, 1, 1, config={"min.insync.replicas": "2"})])[topic_name].result(30)
    with w.connect(broker.port) as s:
        pid, epoch = new_pid(s)
        assert produce(s, topic_name, w.idempotent_batch(pid, epoch, 0, [b"a"]), acks=1) == (NONE, 0)
        refused = w.idempotent_batch(pid, epoch, 1, [b"b", b"c"])
        assert produce(s, topic_name, refused, acks=-1)[0] == NOT_ENOUGH_REPLICAS
        # The next batch of the pipeline (sequence 3) meets the gap the
        # refused one left: retriable, not OUT_OF_ORDER_SEQUENCE_NUMBER.
        later = w.idempotent_batch(pid, epoch, 3, [b"d"])
        assert produce(s, topic_name, later, acks=1)[0] == NOT_ENOUGH_REPLICAS
        # Retried in order, both are written once.
        assert produce(s, topic_name, refused, acks=1) == (NONE, 1)
        assert produce(s, topic_name, later, acks=1) == (NONE, 3)
        # A gap no refusal explains is still out of order.
        assert produce(s, topic_name, w.idempotent_batch(pid, epoch, 9, [b"e"]), acks=1)[0] == \
            OUT_OF_ORDER_SEQUENCE_NUMBER
        # So is one behind a refused batch that is not where the log ends.
        assert produce(s, topic_name, w.idempotent_batch(pid, epoch, 6, [b"f"]), acks=-1)[0] == NOT_ENOUGH_REPLICAS
        assert produce(s, topic_name, w.idempotent_batch(pid, epoch, 7, [b"g"]), acks=1)[0] == \
            OUT_OF_ORDER_SEQUENCE_NUMBER
        # acks=1: the high watermark follows the group-committed fsync.
        deadline = time.monotonic() + 10
        while len(fetched_batches(s, topic_name)) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert fetched_batches(s, topic_name) == [(0, 1), (1, 2), (3, 1)]


def test_producer_ids_unique_across_restart_and_crash(broker_factory):
    b = broker_factory()
    seen = []
    for round_ in range(3):
        with w.connect(b.port) as s:
            for i in range(3):
                seen.append(new_pid(s, corr=i)[0])
        if round_ == 0:
            b.restart()
        elif round_ == 1:
            b.kill9()
            b.start()
    assert len(set(seen)) == len(seen), seen
    assert seen == sorted(seen), "ids only grow"


def test_dedup_survives_kill9(broker_factory, topic_name):
    b = broker_factory()
    create_topic(b.bootstrap, topic_name)
    with w.connect(b.port) as s:
        pid, epoch = new_pid(s)
        batches = [w.idempotent_batch(pid, epoch, i * 2, [b"%d-a" % i, b"%d-b" % i]) for i in range(3)]
        for i, batch in enumerate(batches):
            assert produce(s, topic_name, batch) == (NONE, i * 2)
    b.kill9()
    b.start()
    with w.connect(b.port, timeout=30) as s:
        # Right after the restart the partition may still be loading.
        deadline = time.monotonic() + 30
        while True:
            err, base = produce(s, topic_name, batches[2])
            if err == NONE or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert (err, base) == (NONE, 4), "resent batch after kill -9 must be deduplicated"
        assert produce(s, topic_name, batches[0]) == (NONE, 0)
        # The sequence continues where it was.
        nxt = w.idempotent_batch(pid, epoch, 6, [b"next"])
        assert produce(s, topic_name, nxt) == (NONE, 6)
        assert fetched_batches(s, topic_name) == [(0, 2), (2, 2), (4, 2), (6, 1)]
    b.restart()  # and after a clean restart (shutdown snapshot)
    with w.connect(b.port, timeout=30) as s:
        assert produce(s, topic_name, nxt) == (NONE, 6)
