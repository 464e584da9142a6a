"""kafka-python 3.x against a real broker: every codec byte for byte with
keys, headers and timestamps; a consumer group through
two rebalances with every record consumed exactly once; committed offsets
across a broker restart; its transactional producer (commit, abort,
send_offsets_to_transaction) seen by read_committed and read_uncommitted."""

import time

import pytest
from kafka import TopicPartition
from kafka.structs import OffsetAndMetadata

import kp3
from py_common import (BASE_OVERRIDES, CODECS, assert_commit_abort_commit_log, assert_exactly_once,
                       assert_records_equal, make_records, settle, wait_until)

BROKER_OVERRIDES = dict(BASE_OVERRIDES)


@pytest.mark.parametrize("codec", CODECS)
def test_codec_roundtrip(bootstrap, topic, rnd, codec):
    kp3.create_topic(bootstrap, topic)
    # kafka-python refuses null header values and a record without key and value.
    sent = make_records(rnd, 400, null_header_values=False, null_key_and_value=False, partitions=1)
    p = kp3.producer(bootstrap, compression_type=None if codec == "none" else codec, acks="all",
                     batch_size=32768)
    try:
        meta = kp3.produce_all(p, topic, sent)
    finally:
        p.close()
    assert [m.offset for m in meta] == list(range(len(sent)))
    assert [m.partition for m in meta] == [0] * len(sent)
    got = kp3.read_partition(bootstrap, topic, 0, len(sent))
    assert_records_equal(sent, got, f"codec {codec}")
    assert got[0]["offset"] == 0
    assert kp3.end_offset(bootstrap, topic, 0) == len(sent)


def _consume(members, consumed, want_total, timeout_s, what):
    """Polls the members in turn and commits what each got (synchronously,
    before its next poll) until `consumed` holds want_total records."""
    deadline = time.monotonic() + timeout_s
    while len(consumed) < want_total:
        assert time.monotonic() < deadline, f"{what}: {len(consumed)} of {want_total} after {timeout_s} s"
        for name, c in members:
            batch = c.poll(timeout_ms=200, max_records=25)
            for recs in batch.values():
                consumed.extend((r.partition, r.offset, name) for r in recs)
            if batch:
                c.commit()


def _settle(members, partitions, timeout_s, what):
    """py_common.settle, polling for 0.2 s."""
    return settle(members, partitions, timeout_s, what,
                  lambda c: [(recs[0].partition, recs[0].offset) for recs in c.poll(timeout_ms=200).values()])


def test_group_rebalance_exactly_once(bootstrap, topic, rnd):
    """a alone reads batch 1; b joins; both read batch 2; a reads part of
    batch 3 and leaves; b reads the rest from a's commits."""
    parts = 4
    kp3.create_topic(bootstrap, topic, partitions=parts)
    sent = make_records(rnd, 800, null_header_values=False, null_key_and_value=False,
                        partitions=parts)
    prod = kp3.producer(bootstrap, acks="all")
    group = f"g-{topic}"
    consumed = []
    try:
        kp3.produce_all(prod, topic, sent[:200])
        a = kp3.member(bootstrap, group, topic, "member-a")
        _consume([("a", a)], consumed, 200, 30, "a alone")
        assert {tp.partition for tp in a.assignment()} == set(range(parts))

        b = kp3.member(bootstrap, group, topic, "member-b")
        both = [("a", a), ("b", b)]
        sets = _settle(both, parts, 60, "b joining")
        kp3.produce_all(prod, topic, sent[200:600])
        _consume(both, consumed, 600, 60, "a and b")
        assert {p for p, _, n in consumed[200:] if n == "b"} == sets["b"]
        assert {p for p, _, n in consumed[200:] if n == "a"} == sets["a"]

        kp3.produce_all(prod, topic, sent[600:])
        _consume([("a", a)], consumed, 620, 30, "a reading batch 3")
        a.close(autocommit=False)  # LeaveGroup
        _consume([("b", b)], consumed, 800, 60, "b alone after a left")
        assert {tp.partition for tp in b.assignment()} == set(range(parts))
        committed = {p: b.committed(TopicPartition(topic, p)) for p in range(parts)}
        b.close(autocommit=False)
    finally:
        prod.close()
    ends = {p: sum(1 for r in sent if r["partition"] == p) for p in range(parts)}
    assert_exactly_once([(p, o) for p, o, _ in consumed], ends, "group run")
    assert committed == ends


def test_committed_offsets_survive_restart(broker, bootstrap, topic, rnd):
    kp3.create_topic(bootstrap, topic, partitions=2)
    sent = make_records(rnd, 120, null_header_values=False, null_key_and_value=False, partitions=2)
    p = kp3.producer(bootstrap, acks="all")
    kp3.produce_all(p, topic, sent)
    p.close()
    group = f"g-{topic}"
    tp0, tp1 = TopicPartition(topic, 0), TopicPartition(topic, 1)
    c = kp3.consumer(bootstrap, group)
    c.assign([tp0, tp1])
    c.commit({tp0: OffsetAndMetadata(17, "m0", -1), tp1: OffsetAndMetadata(41, "", -1)})
    c.close(autocommit=False)

    broker.restart()

    c = kp3.consumer(bootstrap, group)
    try:
        assert (c.committed(tp0), c.committed(tp1)) == (17, 41)
        assert c.committed(tp0, metadata=True).metadata == "m0"
        kp3.subscribe(c, topic, 2)
        recs = kp3.poll_until(c, (60 - 17) + (60 - 41), 60, "resumed group")
        kp3.poll_nothing(c, 0.5, "after the resumed records")
        by_part = {q: sorted(r.offset for r in recs if r.partition == q) for q in (0, 1)}
        assert by_part == {0: list(range(17, 60)), 1: list(range(41, 60))}
        want = [r for r in sent if r["partition"] == 1][41:]
        assert_records_equal(want, [kp3.to_record(r) for r in recs if r.partition == 1], "resumed p1")
    finally:
        c.close(autocommit=False)


def _txn_producer(bootstrap, txn_id):
    p = kp3.producer(bootstrap, transactional_id=txn_id, transaction_timeout_ms=60000)
    p.init_transactions()
    return p


def _txn_send(p, topic, values, commit):
    p.begin_transaction()
    for v in values:
        p.send(topic, value=v, key=b"k", partition=0)
    p.flush()
    (p.commit_transaction if commit else p.abort_transaction)()


def test_transactions_commit_abort(bootstrap, topic):
    kp3.create_topic(bootstrap, topic)
    p = _txn_producer(bootstrap, f"tx-{topic}")
    try:
        _txn_send(p, topic, [f"c1-{i}".encode() for i in range(10)], True)
        _txn_send(p, topic, [f"ab-{i}".encode() for i in range(10)], False)
        _txn_send(p, topic, [f"c2-{i}".encode() for i in range(10)], True)
    finally:
        p.close()
    # 3 x (10 records + 1 control marker); the last marker is written after
    # EndTxn is answered (in Kafka too): wait for it.
    wait_until(lambda: kp3.end_offset(bootstrap, topic, 0) >= 33, 10, "the last commit marker")
    assert kp3.end_offset(bootstrap, topic, 0) == 33
    assert_commit_abort_commit_log(kp3.read_partition, bootstrap, topic)


def test_read_committed_stops_at_open_transaction(bootstrap, topic):
    kp3.create_topic(bootstrap, topic)
    p = _txn_producer(bootstrap, f"tx-{topic}")
    plain = kp3.producer(bootstrap, acks="all")
    c = kp3.consumer(bootstrap, isolation_level="read_committed")
    try:
        p.begin_transaction()
        for i in range(5):
            p.send(topic, value=f"open-{i}".encode(), partition=0)
        p.flush()
        plain.send(topic, value=b"after", partition=0).get(timeout=30)
        tp = TopicPartition(topic, 0)
        c.assign([tp])
        c.seek_to_beginning(tp)
        kp3.poll_nothing(c, 1.5, "read_committed while the transaction is open")
        p.commit_transaction()
        recs = kp3.poll_until(c, 6, 30, "read_committed after the commit")
        assert [(r.offset, r.value) for r in recs] == \
            [(i, f"open-{i}".encode()) for i in range(5)] + [(5, b"after")]
    finally:
        c.close()
        plain.close()
        p.close()


def test_send_offsets_to_transaction(bootstrap, topic):
    src, dst = f"{topic}-in", f"{topic}-out"
    kp3.create_topic(bootstrap, src)
    kp3.create_topic(bootstrap, dst)
    plain = kp3.producer(bootstrap, acks="all")
    for i in range(30):
        plain.send(src, value=f"in-{i}".encode(), partition=0)
    plain.flush()
    plain.close()
    group = f"g-{topic}"
    tp = TopicPartition(src, 0)
    p = _txn_producer(bootstrap, f"tx-{topic}")
    c = kp3.subscribe(kp3.consumer(bootstrap, group, isolation_level="read_committed"), src, 1)
    try:
        for batch, commit in ((0, True), (1, False), (2, True)):
            recs = kp3.poll_until(c, 10, 30, f"input batch {batch}")
            first = 0 if batch == 0 else 10  # batch 2 re-reads what batch 1 aborted
            assert [r.offset for r in recs] == list(range(first, first + 10))
            p.begin_transaction()
            for r in recs:
                p.send(dst, value=r.value.replace(b"in-", b"out-"), partition=0)
            p.flush()  # an abort drops unsent records: these must reach the log first
            p.send_offsets_to_transaction({tp: OffsetAndMetadata(recs[-1].offset + 1, "", -1)},
                                          c.group_metadata())
            (p.commit_transaction if commit else p.abort_transaction)()
            if not commit:  # rewind to the committed position, as an application must
                assert c.committed(tp) == 10, "the aborted transaction's offsets were committed"
                c.seek(tp, 10)
        assert c.committed(tp) == 20
    finally:
        c.close(autocommit=False)
        p.close()
    out = kp3.read_partition(bootstrap, dst, 0, 20, isolation="read_committed")
    assert [r["value"] for r in out] == [f"out-{i}".encode() for i in range(20)]
    assert [r["offset"] for r in out] == list(range(10)) + list(range(22, 32))
