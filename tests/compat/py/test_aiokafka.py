"""aiokafka 0.14 against a real broker: every codec byte for byte with keys,
headers and timestamps; a consumer group through two rebalances with every
record consumed exactly once; committed offsets across a broker restart; its
transactional producer (commit, abort, the last stable offset,
send_offsets_to_transaction) seen by read_committed and read_uncommitted.
Each test runs its own event loop (asyncio.run); every await is bounded."""

import asyncio
import time

import pytest
from aiokafka import ConsumerRebalanceListener, TopicPartition

from aio import (STEP_S, consumer, create_topic, end_offset, get_n, get_nothing, producer, read_partition,
                 run, send_all, to_record)
from py_common import (BASE_OVERRIDES, CODECS, assert_exactly_once, assert_records_equal, assignment_sets,
                       assignments_settled, make_records)

BROKER_OVERRIDES = dict(BASE_OVERRIDES)


@pytest.mark.parametrize("codec", CODECS)
def test_codec_roundtrip(bootstrap, topic, rnd, codec):
    sent = make_records(rnd, 400, null_key_and_value=False, partitions=1)

    async def go():
        await create_topic(bootstrap, topic)
        p = producer(bootstrap, compression_type=None if codec == "none" else codec, acks="all",
                     max_batch_size=32768)
        await p.start()
        try:
            meta = await send_all(p, topic, sent)
        finally:
            await p.stop()
        assert [m.offset for m in meta] == list(range(len(sent)))
        got = await read_partition(bootstrap, topic, 0, len(sent))
        assert_records_equal(sent, got, f"codec {codec}")
        assert got[0]["offset"] == 0
        assert await end_offset(bootstrap, topic, 0) == len(sent)

    run(go())


class CommitOnRevoke(ConsumerRebalanceListener):
    """Commits the consumer's position (everything handed out so far was
    recorded synchronously) before its partitions go to another member."""

    def __init__(self):
        self.consumer = None

    async def on_partitions_revoked(self, revoked):
        if revoked:
            await self.consumer.commit()

    async def on_partitions_assigned(self, assigned):
        pass


async def _member(bootstrap, group, topic, name):
    listener = CommitOnRevoke()
    c = consumer(bootstrap, group_id=group, client_id=name)
    listener.consumer = c
    c.subscribe([topic], listener=listener)
    await c.start()
    return c


async def _consume(members, consumed, want_total, timeout_s, what):
    deadline = time.monotonic() + timeout_s
    while len(consumed) < want_total:
        assert time.monotonic() < deadline, f"{what}: {len(consumed)} of {want_total} after {timeout_s} s"
        for name, c in members:
            batch = await c.getmany(timeout_ms=200, max_records=25)
            for recs in batch.values():
                consumed.extend((r.partition, r.offset, name) for r in recs)
            if batch:
                await c.commit()


async def _settle(members, partitions, timeout_s, what):
    deadline = time.monotonic() + timeout_s
    while True:
        sets = assignment_sets(members)
        if assignments_settled(sets, partitions):
            return sets
        assert time.monotonic() < deadline, f"{what}: assignments {sets} after {timeout_s} s"
        for _, c in members:
            for recs in (await c.getmany(timeout_ms=200)).values():
                raise AssertionError(f"{what}: unexpected record {recs[0].partition}/{recs[0].offset}")


def test_group_rebalance_exactly_once(bootstrap, topic, rnd):
    parts = 4
    sent = make_records(rnd, 800, null_key_and_value=False, partitions=parts)
    group = f"g-{topic}"
    consumed = []

    async def go():
        await create_topic(bootstrap, topic, parts)
        prod = producer(bootstrap, acks="all")
        await prod.start()
        try:
            await send_all(prod, topic, sent[:200])
            a = await _member(bootstrap, group, topic, "member-a")
            await _consume([("a", a)], consumed, 200, 30, "a alone")
            assert {tp.partition for tp in a.assignment()} == set(range(parts))
            b = await _member(bootstrap, group, topic, "member-b")
            both = [("a", a), ("b", b)]
            sets = await _settle(both, parts, 60, "b joining")
            await send_all(prod, topic, sent[200:600])
            await _consume(both, consumed, 600, 60, "a and b")
            assert {p for p, _, n in consumed[200:] if n == "b"} == sets["b"]
            assert {p for p, _, n in consumed[200:] if n == "a"} == sets["a"]
            await send_all(prod, topic, sent[600:])
            await _consume([("a", a)], consumed, 620, 30, "a reading batch 3")
            await a.stop()  # LeaveGroup
            await _consume([("b", b)], consumed, 800, 60, "b alone after a left")
            assert {tp.partition for tp in b.assignment()} == set(range(parts))
            committed = {p: await b.committed(TopicPartition(topic, p)) for p in range(parts)}
            await b.stop()
        finally:
            await prod.stop()
        return committed

    committed = run(go(), 240)
    ends = {p: sum(1 for r in sent if r["partition"] == p) for p in range(parts)}
    assert_exactly_once([(p, o) for p, o, _ in consumed], ends, "group run")
    assert committed == ends


def test_committed_offsets_survive_restart(broker, bootstrap, topic, rnd):
    sent = make_records(rnd, 120, null_key_and_value=False, partitions=2)
    group = f"g-{topic}"
    tp0, tp1 = TopicPartition(topic, 0), TopicPartition(topic, 1)

    async def before():
        await create_topic(bootstrap, topic, 2)
        p = producer(bootstrap, acks="all")
        await p.start()
        await send_all(p, topic, sent)
        await p.stop()
        c = consumer(bootstrap, group_id=group)
        await c.start()
        c.assign([tp0, tp1])
        await c.commit({tp0: 17, tp1: 41})
        await c.stop()

    async def after():
        c = consumer(bootstrap, topic, group_id=group)
        await c.start()
        try:
            assert (await c.committed(tp0), await c.committed(tp1)) == (17, 41)
            recs = await get_n(c, (60 - 17) + (60 - 41), 60, "resumed group")
            await get_nothing(c, 0.5, "after the resumed records")
            by_part = {q: sorted(r.offset for r in recs if r.partition == q) for q in (0, 1)}
            assert by_part == {0: list(range(17, 60)), 1: list(range(41, 60))}
            want = [r for r in sent if r["partition"] == 0][17:]
            assert_records_equal(want, [to_record(r) for r in recs if r.partition == 0], "resumed p0")
        finally:
            await c.stop()

    run(before())
    broker.restart()
    run(after())


async def _txn_producer(bootstrap, txn_id):
    p = producer(bootstrap, transactional_id=txn_id, enable_idempotence=True)
    await p.start()
    return p


def test_transactions_commit_abort(bootstrap, topic):
    async def go():
        await create_topic(bootstrap, topic)
        p = await _txn_producer(bootstrap, f"tx-{topic}")
        try:
            for tag, commit in (("c1", True), ("ab", False), ("c2", True)):
                await p.begin_transaction()
                for i in range(10):
                    await p.send(topic, value=f"{tag}-{i}".encode(), key=b"k", partition=0)
                await p.flush()
                await (p.commit_transaction() if commit else p.abort_transaction())
        finally:
            await p.stop()
        # 3 x (10 records + 1 control marker); the last marker is written after
        # EndTxn is answered (in Kafka too): wait for it.
        deadline = time.monotonic() + 10
        while await end_offset(bootstrap, topic, 0) < 33 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert await end_offset(bootstrap, topic, 0) == 33
        rc = await read_partition(bootstrap, topic, 0, 20, isolation="read_committed")
        assert [r["value"] for r in rc] == [f"c1-{i}".encode() for i in range(10)] + \
            [f"c2-{i}".encode() for i in range(10)]
        assert [r["offset"] for r in rc] == list(range(10)) + list(range(22, 32))
        ru = await read_partition(bootstrap, topic, 0, 30)
        assert [r["offset"] for r in ru] == list(range(10)) + list(range(11, 21)) + list(range(22, 32))
        assert [r["value"] for r in ru][10:20] == [f"ab-{i}".encode() for i in range(10)]

    run(go())


def test_read_committed_stops_at_open_transaction(bootstrap, topic):
    async def go():
        await create_topic(bootstrap, topic)
        p = await _txn_producer(bootstrap, f"tx-{topic}")
        plain = producer(bootstrap, acks="all")
        await plain.start()
        c = consumer(bootstrap, isolation_level="read_committed")
        await c.start()
        try:
            await p.begin_transaction()
            futs = [await p.send(topic, value=f"open-{i}".encode(), partition=0) for i in range(5)]
            for f in futs:
                await asyncio.wait_for(f, STEP_S)
            await plain.send_and_wait(topic, value=b"after", partition=0)
            tp = TopicPartition(topic, 0)
            c.assign([tp])
            await c.seek_to_beginning(tp)
            await get_nothing(c, 1.5, "read_committed while the transaction is open")
            await p.commit_transaction()
            recs = await get_n(c, 6, STEP_S, "read_committed after the commit")
            assert [(r.offset, r.value) for r in recs] == \
                [(i, f"open-{i}".encode()) for i in range(5)] + [(5, b"after")]
        finally:
            await c.stop()
            await plain.stop()
            await p.stop()

    run(go())


async def committed_becomes(c, tp, want, timeout_s=10):
    """The group's committed offset, polled until it is `want` (or the
    deadline): Kafka writes the transaction markers (and so makes
    transactional offsets visible to OffsetFetch) after answering EndTxn."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = await c.committed(tp)
        if got == want or time.monotonic() >= deadline:
            return got
        await asyncio.sleep(0.05)


def test_send_offsets_to_transaction(bootstrap, topic):
    src, dst = f"{topic}-in", f"{topic}-out"
    group = f"g-{topic}"
    tp = TopicPartition(src, 0)

    async def go():
        await create_topic(bootstrap, src)
        await create_topic(bootstrap, dst)
        plain = producer(bootstrap, acks="all")
        await plain.start()
        await send_all(plain, src, [{"key": None, "value": f"in-{i}".encode(), "headers": [],
                                     "timestamp": None, "partition": 0} for i in range(30)])
        await plain.stop()
        p = await _txn_producer(bootstrap, f"tx-{topic}")
        c = consumer(bootstrap, src, group_id=group, isolation_level="read_committed")
        await c.start()
        try:
            for batch, commit in ((0, True), (1, False), (2, True)):
                recs = await get_n(c, 10, STEP_S, f"input batch {batch}")
                first = 0 if batch == 0 else 10  # batch 2 re-reads what batch 1 aborted
                assert [r.offset for r in recs] == list(range(first, first + 10))
                await p.begin_transaction()
                for r in recs:
                    await p.send(dst, value=r.value.replace(b"in-", b"out-"), partition=0)
                await p.flush()  # an abort drops unsent records: these must reach the log first
                await p.send_offsets_to_transaction({tp: recs[-1].offset + 1}, group)
                await (p.commit_transaction() if commit else p.abort_transaction())
                if not commit:
                    assert await committed_becomes(c, tp, 10) == 10
                    c.seek(tp, 10)  # rewind to the committed position, as an application must
            assert await committed_becomes(c, tp, 20) == 20
        finally:
            await c.stop()
            await p.stop()
        out = await read_partition(bootstrap, dst, 0, 20, isolation="read_committed")
        assert [r["value"] for r in out] == [f"out-{i}".encode() for i in range(20)]
        assert [r["offset"] for r in out] == list(range(10)) + list(range(22, 32))

    run(go())
