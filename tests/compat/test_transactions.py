"""Transactions with confluent-kafka-python (librdkafka 2.0.x) against a real
spool broker: the commit and abort paths, read_committed vs read_uncommitted
visibility (control records never surface, each marker takes one offset),
the last stable offset holding read_committed consumers behind an open
transaction, send_offsets_to_transaction committing group offsets only on
commit, fencing of an older producer with the same transactional.id, and the
coordinator aborting a transaction left open past transaction.timeout.ms.

Checks are exact: a read_committed reader is taken to the end with a
non-transactional sentinel written last (txn_util.read_until_sentinels), so
no test sleeps to be sure nothing more arrives. No timing asserts."""

import uuid

import pytest
from confluent_kafka import Consumer, KafkaException, TopicPartition

from txn_util import (WAIT_S, create_topic, kafka_error, one_txn, parse, payload, produce,
                      read_to_end, read_until_sentinels, txn_producer, wait_until, watermarks,
                      write_sentinels)

BROKER_OVERRIDES = {
    "group.initial.rebalance.delay.ms": "0",
    # The coordinator's sweep for timed-out transactions (Kafka default 10 s).
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": "1000",
}

NPARTS = 3


def txn_id(tag):
    return f"{tag}-{uuid.uuid4().hex[:8]}"


def records(tag, n, nparts=NPARTS):
    """n records "tag:i", record i to partition i % nparts."""
    return [(i % nparts, payload(tag, i)) for i in range(n)]


def values(recs):
    """Sorted values of (partition, value) or (partition, offset, value) tuples."""
    return sorted(r[-1] for r in recs)


def by_partition(recs):
    out = {}
    for part, off, v in recs:
        out.setdefault(part, []).append((off, v))
    return out


@pytest.mark.parametrize("compression", ["none", "lz4"])
def test_commit_path(bootstrap, topic, compression):
    """One committed transaction over 3 partitions: both isolation levels see
    exactly its records at offsets 0..n-1 of each partition; the commit marker
    takes offset n (high watermark n+1) and is never delivered as a record."""
    create_topic(bootstrap, topic, NPARTS)
    p = txn_producer(bootstrap, txn_id("commit"), **{"compression.type": compression})
    p.init_transactions(WAIT_S)
    sent = records("c", 30)
    one_txn(p, topic, sent, commit=True)

    for iso in ("read_committed", "read_uncommitted"):
        got = read_to_end(bootstrap, topic, NPARTS, isolation=iso)
        assert values(got) == values(sent), f"{iso}: records differ from the committed ones"
        for part, recs in by_partition(got).items():
            assert [o for o, _ in recs] == list(range(10)), \
                f"{iso}: partition {part} offsets {[o for o, _ in recs]} (markers surfaced?)"
    for part in range(NPARTS):
        low, high = watermarks(bootstrap, topic, part)
        assert (low, high) == (0, 11), \
            f"partition {part}: watermarks {(low, high)}, expected (0, 11): 10 records + 1 marker"
        assert watermarks(bootstrap, topic, part, "read_committed")[1] == 11, \
            "last stable offset after the commit should equal the high watermark"


def test_abort_path(bootstrap, topic):
    """An aborted transaction is invisible to read_committed and visible to
    read_uncommitted; its abort marker takes one offset per partition."""
    create_topic(bootstrap, topic, NPARTS)
    p = txn_producer(bootstrap, txn_id("abort"))
    p.init_transactions(WAIT_S)
    aborted = records("a", 21)
    # Make sure the records reached the log before the abort, so the abort
    # really has data to hide.
    p.begin_transaction()
    errs = produce(p, topic, aborted)
    assert p.flush(WAIT_S) == 0 and not errs, errs
    p.abort_transaction(WAIT_S)
    write_sentinels(bootstrap, topic, NPARTS)

    assert read_until_sentinels(bootstrap, topic, NPARTS, "read_committed") == [], \
        "read_committed consumer saw aborted records"
    dirty = read_until_sentinels(bootstrap, topic, NPARTS, "read_uncommitted")
    assert values(dirty) == values(aborted), "read_uncommitted must see the aborted records"
    for part in range(NPARTS):
        # 7 aborted records, 1 abort marker, 1 sentinel.
        assert watermarks(bootstrap, topic, part)[1] == 9, \
            f"partition {part}: high watermark {watermarks(bootstrap, topic, part)}"


def test_interleaved_commits_and_aborts(bootstrap, topic):
    """Ten transactions alternating commit/abort on one producer: a
    read_committed consumer sees exactly the committed ones, in order, and a
    read_uncommitted one sees everything that was written."""
    create_topic(bootstrap, topic, NPARTS)
    p = txn_producer(bootstrap, txn_id("mixed"))
    p.init_transactions(WAIT_S)
    committed, written = [], []
    for t in range(10):
        recs = records(f"t{t}", 9)
        commit = t % 2 == 0
        p.begin_transaction()
        errs = produce(p, topic, recs)
        assert p.flush(WAIT_S) == 0 and not errs, errs
        (p.commit_transaction if commit else p.abort_transaction)(WAIT_S)
        written += recs
        if commit:
            committed += recs
    write_sentinels(bootstrap, topic, NPARTS)

    clean = read_until_sentinels(bootstrap, topic, NPARTS, "read_committed")
    assert values(clean) == values(committed)
    for part, recs in by_partition(clean).items():
        order = [parse(v) for _, v in recs]
        assert order == sorted(order, key=lambda x: (int(x[0][1:]), x[1])), \
            f"partition {part}: committed records out of order"
    dirty = read_until_sentinels(bootstrap, topic, NPARTS, "read_uncommitted")
    assert values(dirty) == values(written)


def test_open_transaction_holds_last_stable_offset(bootstrap, topic):
    """While a transaction is open, read_committed stops before its first
    record even for non-transactional records written after it; the
    high watermark is unaffected. After the commit all are visible."""
    create_topic(bootstrap, topic, 1)
    write_sentinels(bootstrap, topic, 1, tag="before")          # offset 0
    p = txn_producer(bootstrap, txn_id("lso"))
    p.init_transactions(WAIT_S)
    p.begin_transaction()
    errs = produce(p, topic, [(0, payload("open", i)) for i in range(5)])   # offsets 1..5
    assert p.flush(WAIT_S) == 0 and not errs, errs
    write_sentinels(bootstrap, topic, 1, tag="after")           # offset 6

    assert watermarks(bootstrap, topic, 0)[1] == 7
    assert watermarks(bootstrap, topic, 0, "read_committed")[1] == 1, \
        "last stable offset must be the first offset of the open transaction"
    seen = read_to_end(bootstrap, topic, 1, "read_committed")
    assert [v for _, _, v in seen] == [payload("before", 0)], \
        f"read_committed passed an open transaction: {seen}"
    assert len(read_to_end(bootstrap, topic, 1, "read_uncommitted")) == 7

    p.commit_transaction(WAIT_S)
    seen = read_to_end(bootstrap, topic, 1, "read_committed")
    assert [v for _, _, v in seen] == ([payload("before", 0)] +
                                       [payload("open", i) for i in range(5)] +
                                       [payload("after", 0)])
    assert [o for _, o, _ in seen] == [0, 1, 2, 3, 4, 5, 6]
    assert watermarks(bootstrap, topic, 0, "read_committed")[1] == 8


def _group_consumer(bootstrap, group, **conf):
    c = {"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False,
         "auto.offset.reset": "earliest", "isolation.level": "read_committed"}
    c.update(conf)
    return Consumer(c)


def _committed(bootstrap, group, topic, nparts):
    c = _group_consumer(bootstrap, group)
    try:
        res = c.committed([TopicPartition(topic, i) for i in range(nparts)], timeout=30)
        return {tp.partition: tp.offset for tp in res}
    finally:
        c.close()


def test_send_offsets_to_transaction(bootstrap, topic):
    """Group offsets sent in a transaction become the group's committed
    offsets on commit, and are discarded on abort."""
    src = f"{topic}-in"
    create_topic(bootstrap, src, NPARTS)
    create_topic(bootstrap, topic, NPARTS)
    write_sentinels(bootstrap, src, NPARTS, tag="in")   # offset 0 of each input partition
    pp = txn_producer(bootstrap, "seed-" + txn_id("in"))
    pp.init_transactions(WAIT_S)
    one_txn(pp, src, records("in", 12))                  # offsets 1..4, marker 5
    group = txn_id("txn-group")

    consumer = _group_consumer(bootstrap, group)
    consumer.assign([TopicPartition(src, i, 0) for i in range(NPARTS)])
    got = []

    def poll_some():
        m = consumer.poll(0.2)
        if m is not None and not m.error():
            got.append(m)
        return len(got) >= NPARTS + 12

    wait_until(poll_some, what="15 input records", state=lambda: len(got))

    p = txn_producer(bootstrap, txn_id("sendoff"))
    p.init_transactions(WAIT_S)

    # Abort: committed offsets stay unset.
    p.begin_transaction()
    produce(p, topic, [(0, payload("aborted-out", 0))])
    p.send_offsets_to_transaction([TopicPartition(src, i, 3) for i in range(NPARTS)],
                                  consumer.consumer_group_metadata(), WAIT_S)
    p.abort_transaction(WAIT_S)
    assert all(o < 0 for o in _committed(bootstrap, group, src, NPARTS).values()), \
        "offsets of an aborted transaction were committed"

    # Commit: the consumer's positions are committed. librdkafka reports
    # either 5 (after the last record) or 6 (after the commit marker).
    positions = consumer.position([TopicPartition(src, i) for i in range(NPARTS)])
    want = {tp.partition: tp.offset for tp in positions}
    assert all(o in (5, 6) for o in want.values()), f"consumer positions {want}"
    p.begin_transaction()
    produce(p, topic, [(i, payload("out", i)) for i in range(NPARTS)])
    p.send_offsets_to_transaction(positions, consumer.consumer_group_metadata(), WAIT_S)
    p.commit_transaction(WAIT_S)
    consumer.close()
    wait_until(lambda: _committed(bootstrap, group, src, NPARTS) == want,
               what=f"committed offsets {want}",
               state=lambda: _committed(bootstrap, group, src, NPARTS))
    write_sentinels(bootstrap, topic, NPARTS)
    out = read_until_sentinels(bootstrap, topic, NPARTS)
    assert values(out) == sorted(payload("out", i) for i in range(NPARTS))


def test_older_producer_is_fenced(bootstrap, topic):
    """A second producer with the same transactional.id fences the first:
    the first's open transaction is aborted and its commit fails; the second
    commits normally."""
    create_topic(bootstrap, topic, NPARTS)
    tid = txn_id("fence")
    old = txn_producer(bootstrap, tid)
    old.init_transactions(WAIT_S)
    old.begin_transaction()
    errs = produce(old, topic, records("old", 6))
    assert old.flush(WAIT_S) == 0 and not errs, errs

    new = txn_producer(bootstrap, tid)
    new.init_transactions(WAIT_S)       # bumps the epoch, aborts old's transaction
    one_txn(new, topic, records("new", 6))

    with pytest.raises(KafkaException) as ei:
        produce(old, topic, records("old2", 3))
        old.commit_transaction(WAIT_S)
    err = kafka_error(ei.value)
    assert err is not None and (err.fatal() or err.txn_requires_abort()), \
        f"fenced producer's commit failed with an unexpected error: {ei.value}"
    assert "fenc" in str(err).lower() or "epoch" in str(err).lower(), \
        f"expected PRODUCER_FENCED / INVALID_PRODUCER_EPOCH, got {err}"

    write_sentinels(bootstrap, topic, NPARTS)
    clean = read_until_sentinels(bootstrap, topic, NPARTS)
    assert values(clean) == values(records("new", 6)), "fenced producer's records are visible"


def test_open_transaction_aborted_after_timeout(bootstrap, topic):
    """A transaction left open past transaction.timeout.ms is aborted by the
    coordinator: read_committed readers get past it without seeing its
    records, and the producer can no longer commit it."""
    create_topic(bootstrap, topic, NPARTS)
    p = txn_producer(bootstrap, txn_id("timeout"), **{"transaction.timeout.ms": 3000})
    p.init_transactions(WAIT_S)
    p.begin_transaction()
    errs = produce(p, topic, records("late", 9))
    assert p.flush(WAIT_S) == 0 and not errs, errs
    write_sentinels(bootstrap, topic, NPARTS)

    # Reaching the sentinels needs the LSO past the open transaction, i.e.
    # the coordinator must abort it on its own.
    assert read_until_sentinels(bootstrap, topic, NPARTS, timeout=WAIT_S) == [], \
        "records of the timed-out transaction are visible to read_committed"
    with pytest.raises(KafkaException):
        p.commit_transaction(WAIT_S)
