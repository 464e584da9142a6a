"""confluent-kafka 2.x (its bundled librdkafka) against a real broker: every
codec byte for byte with keys, headers and timestamps; a consumer group
through two rebalances with every record consumed exactly once; committed
offsets across a broker restart; transactions (commit, abort, the last stable
offset, send_offsets_to_transaction) seen by read_committed and
read_uncommitted consumers."""

import time

import pytest
from confluent_kafka import OFFSET_BEGINNING, KafkaError, KafkaException, TopicPartition

import ck2
from py_common import (BASE_OVERRIDES, CODECS, assert_commit_abort_commit_log, assert_exactly_once,
                       assert_records_equal, make_records, settle, wait_until)

BROKER_OVERRIDES = dict(BASE_OVERRIDES)


@pytest.mark.parametrize("codec", CODECS)
def test_codec_roundtrip(bootstrap, topic, rnd, codec):
    ck2.create_topic(bootstrap, topic, partitions=1)
    sent = make_records(rnd, 500)
    p = ck2.producer(bootstrap, **{"compression.type": codec, "acks": "all", "batch.num.messages": 60,
                                   "enable.idempotence": True})
    reports = ck2.produce_all(p, topic, sent)
    assert [r[0] for r in reports] == [None] * len(sent), [r for r in reports if r[0]][:3]
    assert [r[2] for r in reports] == list(range(len(sent))), "acknowledged offsets are not 0..n-1"
    got = ck2.read_partition(bootstrap, topic, 0, len(sent))
    assert_records_equal(sent, got, f"codec {codec}")
    assert got[0]["offset"] == 0
    assert ck2.high_watermark(bootstrap, topic, 0) == len(sent)


def _consume_round(members, consumed, want_total, timeout_s, what):
    """Polls every member in turn, commits what each got (synchronously, before
    its next poll) and stops once `consumed` holds want_total records."""
    deadline = time.monotonic() + timeout_s
    while len(consumed) < want_total:
        assert time.monotonic() < deadline, f"{what}: {len(consumed)} of {want_total} after {timeout_s} s"
        for name, c in members:
            msgs = c.consume(num_messages=25, timeout=0.2)
            for m in msgs:
                if m.error():
                    raise KafkaException(m.error())
                consumed.append((m.partition(), m.offset(), name))
            if msgs:
                c.commit(asynchronous=False)


def _settle(members, partitions, timeout_s, what):
    """py_common.settle, polling 25 messages for 0.2 s."""
    return settle(members, partitions, timeout_s, what,
                  lambda c: [(m.partition(), m.offset()) for m in c.consume(num_messages=25, timeout=0.2)])


def test_group_rebalance_exactly_once(bootstrap, topic, rnd):
    """a alone reads batch 1; b joins (a's commits hand partitions over);
    both read batch 2; a reads part of batch 3 and leaves; b reads the rest
    from a's commits. Every record exactly once, final commits = log ends."""
    parts = 4
    ck2.create_topic(bootstrap, topic, partitions=parts)
    sent = make_records(rnd, 800, partitions=parts)
    batches = (sent[:200], sent[200:600], sent[600:])
    prod = ck2.producer(bootstrap, acks="all")
    group = f"g-{topic}"
    consumed = []

    ck2.produce_all(prod, topic, batches[0])
    a = ck2.consumer(bootstrap, group, **{"client.id": "member-a"})
    a.subscribe([topic])
    _consume_round([("a", a)], consumed, 200, 30, "a alone")
    assert {tp.partition for tp in a.assignment()} == set(range(parts))

    b = ck2.consumer(bootstrap, group, **{"client.id": "member-b"})
    b.subscribe([topic])
    both = [("a", a), ("b", b)]
    sets = _settle(both, parts, 60, "b joining")
    ck2.produce_all(prod, topic, batches[1])
    _consume_round(both, consumed, 600, 60, "a and b")
    for name in ("a", "b"):
        assert any(x[2] == name for x in consumed[200:]), f"{name} read nothing of batch 2"
    assert {p for p, _, name in consumed[200:] if name == "b"} == sets["b"]

    ck2.produce_all(prod, topic, batches[2])
    _consume_round([("a", a)], consumed, 620, 30, "a reading batch 3")
    a.close()  # LeaveGroup: b takes over a's partitions at a's commits
    _consume_round([("b", b)], consumed, 800, 60, "b alone after a left")
    assert {tp.partition for tp in b.assignment()} == set(range(parts))
    committed = b.committed([TopicPartition(topic, p) for p in range(parts)], timeout=10)
    b.close()
    ends = {p: sum(1 for r in sent if r["partition"] == p) for p in range(parts)}
    assert_exactly_once([(p, o) for p, o, _ in consumed], ends, "group run")
    assert {tp.partition: tp.offset for tp in committed} == ends


def test_committed_offsets_survive_restart(broker, bootstrap, topic, rnd):
    ck2.create_topic(bootstrap, topic, partitions=2)
    sent = make_records(rnd, 120, partitions=2)
    ck2.produce_all(ck2.producer(bootstrap, acks="all"), topic, sent)
    group = f"g-{topic}"
    c = ck2.consumer(bootstrap, group)
    c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING), TopicPartition(topic, 1, OFFSET_BEGINNING)])
    ck2.poll_until(c, 1, 30, "first message")  # connected; now commit chosen offsets
    c.commit(offsets=[TopicPartition(topic, 0, 17), TopicPartition(topic, 1, 41)], asynchronous=False)
    c.close()

    broker.restart()

    c = ck2.consumer(bootstrap, group)
    try:
        # Right after a restart the coordinator may still be loading (Kafka
        # answers NOT_COORDINATOR until its offsets partition is served): a
        # client retries such errors, so the test does, within a deadline.
        deadline = time.monotonic() + 30
        while True:
            try:
                committed = c.committed([TopicPartition(topic, 0), TopicPartition(topic, 1)], timeout=30)
                break
            except KafkaException as e:
                coordinator_moving = e.args[0].code() in (KafkaError.NOT_COORDINATOR, KafkaError.COORDINATOR_NOT_AVAILABLE,
                                                          KafkaError.COORDINATOR_LOAD_IN_PROGRESS)
                if not (coordinator_moving or e.args[0].retriable()) or time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        got = {tp.partition: tp.offset for tp in committed}
        assert got == {0: 17, 1: 41}
        c.subscribe([topic])
        msgs = ck2.poll_until(c, (60 - 17) + (60 - 41), 60, "resumed group")
        ck2.poll_nothing(c, 0.5, "after the resumed records")
        by_part = {p: sorted(m.offset() for m in msgs if m.partition() == p) for p in (0, 1)}
        assert by_part == {0: list(range(17, 60)), 1: list(range(41, 60))}
        want = [r for r in sent if r["partition"] == 0][17:]
        assert_records_equal(want, [ck2.to_record(m) for m in msgs if m.partition() == 0], "resumed p0")
    finally:
        c.close()


def _txn_producer(bootstrap, txn_id, **conf):
    p = ck2.producer(bootstrap, **{"transactional.id": txn_id, "transaction.timeout.ms": 60000, **conf})
    p.init_transactions(30)
    return p


def _txn_send(p, topic, values, commit):
    p.begin_transaction()
    for v in values:
        p.produce(topic, value=v, key=b"k", partition=0)
    p.flush(30)
    (p.commit_transaction if commit else p.abort_transaction)(30)


def test_transactions_commit_abort(bootstrap, topic):
    ck2.create_topic(bootstrap, topic, partitions=1)
    p = _txn_producer(bootstrap, f"tx-{topic}")
    _txn_send(p, topic, [f"c1-{i}".encode() for i in range(10)], True)
    _txn_send(p, topic, [f"ab-{i}".encode() for i in range(10)], False)
    _txn_send(p, topic, [f"c2-{i}".encode() for i in range(10)], True)
    # Each transaction's records then its control marker: 0-9 + 10, 11-20 + 21, 22-31 + 32.
    # The last marker is written after EndTxn is answered (in Kafka too): wait for it.
    wait_until(lambda: ck2.high_watermark(bootstrap, topic, 0) >= 33, 10, "the last commit marker")
    assert ck2.high_watermark(bootstrap, topic, 0) == 33
    assert_commit_abort_commit_log(ck2.read_partition, bootstrap, topic)


def test_read_committed_stops_at_open_transaction(bootstrap, topic):
    ck2.create_topic(bootstrap, topic, partitions=1)
    plain = ck2.producer(bootstrap, acks="all")
    p = _txn_producer(bootstrap, f"tx-{topic}")
    p.begin_transaction()
    for i in range(5):
        p.produce(topic, value=f"open-{i}".encode(), partition=0)
    p.flush(30)
    ck2.produce_all(plain, topic, [{"key": None, "value": b"after", "headers": [], "timestamp": None,
                                    "partition": 0}])
    c = ck2.consumer(bootstrap, **{"isolation.level": "read_committed"})
    try:
        c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        ck2.poll_nothing(c, 1.5, "read_committed while the transaction is open")
        p.commit_transaction(30)
        msgs = ck2.poll_until(c, 6, 30, "read_committed after the commit")
        assert [(m.offset(), m.value()) for m in msgs] == \
            [(i, f"open-{i}".encode()) for i in range(5)] + [(5, b"after")]
    finally:
        c.close()


def test_send_offsets_to_transaction(bootstrap, topic):
    src, dst = f"{topic}-in", f"{topic}-out"
    ck2.create_topic(bootstrap, src, partitions=1)
    ck2.create_topic(bootstrap, dst, partitions=1)
    ck2.produce_all(ck2.producer(bootstrap, acks="all"), src,
                    [{"key": None, "value": f"in-{i}".encode(), "headers": [], "timestamp": None,
                      "partition": 0} for i in range(30)])
    group = f"g-{topic}"
    p = _txn_producer(bootstrap, f"tx-{topic}")
    c = ck2.consumer(bootstrap, group, **{"isolation.level": "read_committed"})
    c.subscribe([src])
    try:
        for batch, commit in ((0, True), (1, False)):
            msgs = ck2.poll_until(c, 10, 30, f"input batch {batch}")
            p.begin_transaction()
            for m in msgs:
                p.produce(dst, value=m.value().replace(b"in-", b"out-"), partition=0)
            assert p.flush(30) == 0  # an abort purges unsent records: these must reach the log first
            p.send_offsets_to_transaction(c.position(c.assignment()), c.consumer_group_metadata(), 30)
            (p.commit_transaction if commit else p.abort_transaction)(30)
            if not commit:  # rewind to the committed position, as an application must
                for tp in c.committed(c.assignment(), timeout=10):
                    c.seek(tp)
        committed = c.committed([TopicPartition(src, 0)], timeout=10)[0].offset
        assert committed == 10, "the aborted transaction's offsets must not be committed"
        msgs = ck2.poll_until(c, 10, 30, "input after the abort")
        assert [m.offset() for m in msgs] == list(range(10, 20))
        p.begin_transaction()
        for m in msgs:
            p.produce(dst, value=m.value().replace(b"in-", b"out-"), partition=0)
        p.send_offsets_to_transaction(c.position(c.assignment()), c.consumer_group_metadata(), 30)
        p.commit_transaction(30)
        assert c.committed([TopicPartition(src, 0)], timeout=10)[0].offset == 20
    finally:
        c.close()
    out = ck2.read_partition(bootstrap, dst, 0, 20, isolation="read_committed")
    assert [r["value"] for r in out] == [f"out-{i}".encode() for i in range(20)]
    # 0-9 + marker 10, aborted 11-20 + marker 21, 22-31 + marker 32.
    assert [r["offset"] for r in out] == list(range(10)) + list(range(22, 32))


@pytest.mark.spool_gap(reason="KIP-848 consumer group protocol (ConsumerGroupHeartbeat, API 68): "
                              "Spool serves the classic protocol only")
def test_consumer_group_protocol(bootstrap, topic, rnd):
    """group.protocol=consumer (KIP-848, the broker assigns): a alone, then a
    and b with disjoint assignments covering the topic; exactly once."""
    parts = 4
    ck2.create_topic(bootstrap, topic, partitions=parts)
    sent = make_records(rnd, 400, partitions=parts)
    prod = ck2.producer(bootstrap, acks="all")
    ck2.produce_all(prod, topic, sent[:100])
    group = f"g-{topic}"
    # The new protocol keeps session and heartbeat timing on the broker.
    kip848 = {"group.protocol": "consumer", "session.timeout.ms": None, "heartbeat.interval.ms": None}
    consumed = []
    a = ck2.consumer(bootstrap, group, **kip848, **{"client.id": "member-a"})
    b = ck2.consumer(bootstrap, group, **kip848, **{"client.id": "member-b"})
    try:
        a.subscribe([topic])
        _consume_round([("a", a)], consumed, 100, 30, "a alone")
        b.subscribe([topic])
        both = [("a", a), ("b", b)]
        _settle(both, parts, 60, "b joining")
        ck2.produce_all(prod, topic, sent[100:])
        _consume_round(both, consumed, 400, 60, "a and b")
        committed = a.committed([TopicPartition(topic, p) for p in range(parts)], timeout=10)
    finally:
        a.close()
        b.close()
    ends = {p: sum(1 for r in sent if r["partition"] == p) for p in range(parts)}
    assert_exactly_once([(p, o) for p, o, _ in consumed], ends, "KIP-848 group run")
    assert {tp.partition: tp.offset for tp in committed} == ends
