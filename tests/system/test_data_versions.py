"""Produce v9-13 and Fetch v12-18 on the wire, against a real broker (and, with
SPOOL_TEST_PEER=kafka, against Apache Kafka 4.4 with the same expectations):
Produce v13 by topic id, unknown ids, Fetch v13-18 by id (sessionless and in
an id-keyed fetch session, FETCH_SESSION_TOPIC_ID_ERROR across v13), a topic
deleted and re-created under the same name never serving its new data to the
old id, LastFetchedEpoch divergence (DivergingEpoch), CurrentLeaderEpoch
fencing at v11 and v18, and a v18 round trip (follower tags sent and ignored)
with the exact records back. Frames are built by data_wire.py.

Topic ids come from Metadata v12 when the broker serves it; a Spool build
without Metadata v10+ has them read from the partition's partition.metadata
(Kafka's format, same file on both), with the leader epoch Spool's single
node uses (0, as stored in its batches; checked below)."""

import base64
import glob
import itertools
import os
import random
import time

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

import data_wire as dw
import kafka_wire as w

NONE = 0
OFFSET_OUT_OF_RANGE = 1
UNKNOWN_TOPIC_OR_PARTITION = 3
FENCED_LEADER_EPOCH = 74
UNKNOWN_LEADER_EPOCH = 75
UNKNOWN_TOPIC_ID = 100
INCONSISTENT_TOPIC_ID = 103
FETCH_SESSION_TOPIC_ID_ERROR = 106
PMAX = 1 << 20

SEED = int(os.environ.get("SPOOL_TEST_SEED", random.randrange(1 << 30)))
print(f"test_data_versions seed={SEED}")
RNG = random.Random(SEED)


class Conn:
    def __init__(self, port):
        self.sock = w.connect(port, timeout=20)
        self.corr = itertools.count(1)

    def produce(self, version, topic, partitions, acks=-1):
        corr = next(self.corr)
        resp = dw.parse_produce(w.roundtrip(self.sock, dw.produce(corr, version, topic, partitions, acks)), version)
        assert resp["corr"] == corr
        return resp

    def produce_ok(self, version, topic, partitions, deadline_s=20):
        """Produces until every partition is accepted (a just-created topic's
        leader may still be starting on Kafka: NOT_LEADER_OR_FOLLOWER or
        UNKNOWN_TOPIC_OR_PARTITION for a moment); -> {partition: base offset}."""
        end = time.monotonic() + deadline_s
        todo = list(partitions)
        out = {}
        while todo:
            resp = self.produce(version, topic, todo)
            for p in resp["topics"][0]["partitions"]:
                if p["error"] == NONE:
                    out[p["index"]] = p["base_offset"]
                else:
                    assert p["error"] in (3, 5, 6) and time.monotonic() < end, resp
                    print(f"produce to partition {p['index']} answered {p['error']}, retrying")
            todo = [x for x in todo if x[0] not in out]
            if todo:
                time.sleep(0.2)
        return out

    def fetch(self, version, partitions, **kw):
        corr = next(self.corr)
        resp = dw.parse_fetch(w.roundtrip(self.sock, dw.fetch(corr, version, partitions, **kw)), version)
        assert resp["corr"] == corr
        return resp

    def close(self):
        self.sock.close()


@pytest.fixture
def conn(broker):
    c = Conn(broker.port)
    yield c
    c.close()


def admin(bootstrap):
    return AdminClient({"bootstrap.servers": bootstrap})


def create_topic(bootstrap, topic, partitions=1, deadline_s=60):
    """Creates `topic`, retrying while a deletion of the same name completes."""
    end = time.monotonic() + deadline_s
    a = admin(bootstrap)  # kept alive until the result is in
    while True:
        f = a.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1)],
                                           operation_timeout=15)
        try:
            f[topic].result(timeout=30)
            return
        except Exception as e:  # noqa: BLE001 - TOPIC_ALREADY_EXISTS while a delete is finishing
            if "exists" not in str(e).lower() or time.monotonic() > end:
                raise
            time.sleep(0.2)


def delete_topic(bootstrap, topic):
    a = admin(bootstrap)
    a.delete_topics([topic], operation_timeout=15)[topic].result(timeout=30)


def topic_info(broker, topic, partitions=1, deadline_s=30):
    """(topic id bytes, {partition: leader epoch}) once the broker knows every partition."""
    c = Conn(broker.port)
    try:
        metadata_max = dw.api_versions(c.sock).get(3, (0, 0))[1]
        end = time.monotonic() + deadline_s
        while metadata_max >= 12:
            got = dw.parse_metadata_v12(w.roundtrip(c.sock, dw.metadata_v12(next(c.corr), [topic])))
            err, tid, parts = got.get(topic, (-1, None, {}))
            if err == NONE and len(parts) == partitions and tid != b"\x00" * 16:
                return tid, parts
            assert time.monotonic() < end, f"metadata for {topic} never complete: {got}"
            time.sleep(0.1)
    finally:
        c.close()
    # Spool without Metadata v10+: its partition.metadata names the id.
    path = os.path.join(broker.log_dir, f"{topic}-0", "partition.metadata")
    lines = dict(line.split(": ", 1) for line in open(path).read().splitlines() if ": " in line)
    tid = base64.urlsafe_b64decode(lines["topic_id"] + "==")
    assert len(tid) == 16
    return tid, {p: 0 for p in range(partitions)}


def batch(values, keys=None, headers=None):
    keys = keys or [None] * len(values)
    headers = headers or [()] * len(values)
    return w.record_batch(list(zip(keys, values, headers)), int(time.time() * 1000))


def values_of(part):
    recs, _ = dw.decode_records(part["records"])
    return [(off, v) for off, _k, v, _h in recs]


def random_id():
    return bytes(RNG.randrange(256) for _ in range(16))


# ---------------------------------------------------------------- Produce

def test_produce_flexible_versions_by_name_then_v13_by_id(broker, conn, topic):
    create_topic(broker.bootstrap, topic, partitions=2)
    tid, _ = topic_info(broker, topic, partitions=2)
    # Both partitions ready (on Kafka, a new topic's leader may take a moment).
    assert conn.produce_ok(9, topic, [(0, batch([b"v9"])), (1, batch([b"p1"]))]) == {0: 0, 1: 0}
    offset = 1
    for v in range(10, 13):
        resp = conn.produce(v, topic, [(0, batch([b"v%d" % v]))])
        assert resp["topics"][0]["topic"] == topic
        p = resp["topics"][0]["partitions"][0]
        assert (p["index"], p["error"], p["base_offset"]) == (0, NONE, offset), (v, resp)
        assert p["current_leader"] is None and resp["node_endpoints"] is None
        offset += 1
    resp = conn.produce(13, tid, [(0, batch([b"a", b"b"])), (1, batch([b"c"]))])
    assert [t["topic"] for t in resp["topics"]] == [tid], "v13 answers carry the topic id"
    parts = {p["index"]: p for p in resp["topics"][0]["partitions"]}
    assert (parts[0]["error"], parts[0]["base_offset"]) == (NONE, offset)
    assert (parts[1]["error"], parts[1]["base_offset"]) == (NONE, 1)
    assert parts[0]["log_start_offset"] == 0
    # Everything landed where the names say.
    got = conn.fetch(12, [(topic, 0, 0, -1, -1, PMAX), (topic, 1, 0, -1, -1, PMAX)])
    by = {p["partition"]: values_of(p) for p in got["partitions"]}
    assert by[0] == [(0, b"v9"), (1, b"v10"), (2, b"v11"), (3, b"v12"), (4, b"a"), (5, b"b")]
    assert by[1] == [(0, b"p1"), (1, b"c")]


def test_produce_v13_unknown_or_zero_topic_id(broker, conn, topic):
    create_topic(broker.bootstrap, topic)
    tid, _ = topic_info(broker, topic)
    unknown = random_id()
    for bad in (unknown, b"\x00" * 16):
        resp = conn.produce(13, bad, [(0, batch([b"x"])), (1, batch([b"y"]))])
        assert [t["topic"] for t in resp["topics"]] == [bad]
        # (Kafka answers these partitions in hash order.)
        assert sorted((p["index"], p["error"], p["base_offset"]) for p in resp["topics"][0]["partitions"]) == \
            [(0, UNKNOWN_TOPIC_ID, -1), (1, UNKNOWN_TOPIC_ID, -1)]
    # Nothing was written anywhere: the real topic is still empty.
    got = conn.fetch(13, [(tid, 0, 0, -1, -1, PMAX)])
    assert got["partitions"][0]["error"] == NONE and got["partitions"][0]["high_watermark"] == 0


# ---------------------------------------------------------------- Fetch by id

def test_fetch_v13_to_v18_by_id_and_unknown_id(broker, conn, topic):
    create_topic(broker.bootstrap, topic)
    tid, epochs = topic_info(broker, topic)
    values = [b"m%d" % i for i in range(5)]
    assert conn.produce_ok(13, tid, [(0, batch(values))]) == {0: 0}
    unknown = random_id()
    for v in range(13, 19):
        got = conn.fetch(v, [(tid, 0, 0, epochs[0], -1, PMAX), (unknown, 0, 0, -1, -1, PMAX),
                             (unknown, 1, 0, -1, -1, PMAX)])
        assert got["error"] == NONE and got["session_id"] == 0
        parts = [(p["topic"], p["partition"], p["error"]) for p in got["partitions"]]
        assert parts == [(tid, 0, NONE), (unknown, 0, UNKNOWN_TOPIC_ID), (unknown, 1, UNKNOWN_TOPIC_ID)], v
        p = got["partitions"][0]
        assert values_of(p) == list(enumerate(values)), v
        assert (p["high_watermark"], p["log_start_offset"]) == (5, 0)
        assert all(not q["records"] for q in got["partitions"][1:]), "no data for an unknown id"
        assert p["diverging_epoch"] is None and p["current_leader"] is None
        _, batch_epochs = dw.decode_records(p["records"])
        assert batch_epochs == [epochs[0]], "batches carry the partition's leader epoch"


def test_v18_round_trip_with_follower_tags_ignored(broker, conn, topic):
    create_topic(broker.bootstrap, topic)
    tid, epochs = topic_info(broker, topic)
    n = RNG.randrange(3, 12)
    keys = [b"key-%d" % i if i % 3 else None for i in range(n)]
    values = [bytes(RNG.randrange(256) for _ in range(RNG.randrange(0, 300))) for _ in range(n)]
    headers = [(("h", b"%d" % i),) if i % 2 else () for i in range(n)]
    assert conn.produce_ok(13, tid, [(0, batch(values[:2], keys[:2], headers[:2]))]) == {0: 0}
    assert conn.produce_ok(13, tid, [(0, batch(values[2:], keys[2:], headers[2:]))]) == {0: 2}
    # A consumer's v18 fetch with every tag present: ReplicaState (-1, -1), a
    # directory id and a high watermark (KIP-1166) that a leader ignores for consumers.
    got = conn.fetch(18, [(tid, 0, 0, epochs[0], -1, PMAX)], replica_state=(-1, -1), high_watermark=1,
                     directory_id=random_id(), cluster_id=None)
    p = got["partitions"][0]
    assert (p["error"], p["high_watermark"], p["last_stable_offset"]) == (NONE, n, n)
    recs, _ = dw.decode_records(p["records"])
    assert recs == [(i, keys[i], values[i], [(h, v) for h, v in headers[i]]) for i in range(n)]
    # From the middle of the second batch: whole batches, starting at the one holding it.
    got = conn.fetch(18, [(tid, 0, n - 1, -1, epochs[0], PMAX)])
    assert got["partitions"][0]["error"] == NONE
    assert [off for off, _ in values_of(got["partitions"][0])] == list(range(2, n))


# ---------------------------------------------------------------- re-created topic

def test_recreated_topic_never_serves_new_data_to_the_old_id(broker, topic):
    create_topic(broker.bootstrap, topic)
    old_id, _ = topic_info(broker, topic)
    c = Conn(broker.port)
    assert c.produce_ok(13, old_id, [(0, batch([b"old-0", b"old-1"]))]) == {0: 0}
    # An id-keyed session over the old topic, caught up.
    full = c.fetch(18, [(old_id, 0, 0, -1, -1, PMAX)], session_epoch=0)
    assert full["error"] == NONE and full["session_id"] > 0, full
    assert values_of(full["partitions"][0]) == [(0, b"old-0"), (1, b"old-1")]
    sid = full["session_id"]
    inc = c.fetch(18, [(old_id, 0, 2, -1, -1, PMAX)], session_id=sid, session_epoch=1)
    assert inc["error"] == NONE and inc["partitions"] == []

    delete_topic(broker.bootstrap, topic)
    create_topic(broker.bootstrap, topic)
    new_id, _ = topic_info(broker, topic)
    assert new_id != old_id, "a re-created topic gets a new id"
    assert c.produce_ok(13, new_id, [(0, batch([b"new-0", b"new-1", b"new-2"]))]) == {0: 0}
    # Producing to the old id no longer lands anywhere.
    assert c.produce(13, old_id, [(0, batch([b"stale"]))])["topics"][0]["partitions"][0]["error"] == \
        UNKNOWN_TOPIC_ID

    # Sessionless: the old id is unknown.
    for v in (13, 18):
        got = c.fetch(v, [(old_id, 0, 0, -1, -1, PMAX)])
        assert [(p["topic"], p["error"]) for p in got["partitions"]] == [(old_id, UNKNOWN_TOPIC_ID)]
        assert not got["partitions"][0]["records"]
    # In the session made for the old topic: an error, never the new records.
    # (The session keeps the name the id resolved to; that name's partition
    # now belongs to another id: INCONSISTENT_TOPIC_ID, as Kafka answers.)
    epoch = 2
    end = time.monotonic() + 10
    while True:
        inc = c.fetch(18, [(old_id, 0, 0, -1, -1, PMAX)], session_id=sid, session_epoch=epoch)
        epoch += 1
        assert inc["error"] == NONE, inc
        errs = {p["error"] for p in inc["partitions"]}
        assert all(not p["records"] for p in inc["partitions"]), "the old id's session got records"
        if errs:
            print(f"session over the old id answered {sorted(errs)}")
            assert errs == {INCONSISTENT_TOPIC_ID}, inc
            break
        assert time.monotonic() < end, "the session never reported the re-created topic"
        time.sleep(0.2)
    # The new id reads exactly the new data.
    got = c.fetch(18, [(new_id, 0, 0, -1, -1, PMAX)])
    assert values_of(got["partitions"][0]) == [(0, b"new-0"), (1, b"new-1"), (2, b"new-2")]
    c.close()


# ---------------------------------------------------------------- sessions by id

def test_id_keyed_fetch_session(broker, conn, topic):
    create_topic(broker.bootstrap, topic, partitions=2)
    tid, _ = topic_info(broker, topic, partitions=2)
    assert conn.produce_ok(13, tid, [(0, batch([b"a0", b"a1"])), (1, batch([b"b0"]))]) == {0: 0, 1: 0}
    full = conn.fetch(17, [(tid, 0, 0, -1, -1, PMAX), (tid, 1, 0, -1, -1, PMAX)], session_epoch=0)
    sid = full["session_id"]
    assert full["error"] == NONE and sid > 0
    assert [(p["topic"], p["partition"], len(values_of(p))) for p in full["partitions"]] == [(tid, 0, 2), (tid, 1, 1)]
    # Move both offsets: nothing changed, nothing sent.
    inc = conn.fetch(17, [(tid, 0, 2, -1, -1, PMAX), (tid, 1, 1, -1, -1, PMAX)], session_id=sid, session_epoch=1)
    assert inc["error"] == NONE and inc["partitions"] == []
    # New data on partition 1 only: only it comes back, named by id.
    assert conn.produce_ok(13, tid, [(1, batch([b"b1"]))]) == {1: 1}
    inc = conn.fetch(17, [], session_id=sid, session_epoch=2)
    assert [(p["topic"], p["partition"], values_of(p)) for p in inc["partitions"]] == [(tid, 1, [(1, b"b1")])]
    # Forget partition 0 by id; then new data there is not sent.
    inc = conn.fetch(17, [(tid, 1, 2, -1, -1, PMAX)], session_id=sid, session_epoch=3, forgotten=[(tid, [0])])
    assert inc["error"] == NONE and inc["partitions"] == []
    assert conn.produce_ok(13, tid, [(0, batch([b"a2"]))]) == {0: 2}
    inc = conn.fetch(17, [], session_id=sid, session_epoch=4)
    assert inc["error"] == NONE and inc["partitions"] == [], "a forgotten partition is not followed"
    # A v12 (name-based) request cannot continue an id-based session.
    wrong = conn.fetch(12, [], session_id=sid, session_epoch=5)
    assert (wrong["error"], wrong["session_id"], wrong["partitions"]) == (FETCH_SESSION_TOPIC_ID_ERROR, 0, [])
    # ...and the other way round: a session opened at v12 refuses v13+.
    full = conn.fetch(12, [(topic, 0, 0, -1, -1, PMAX)], session_epoch=0)
    assert full["session_id"] > 0
    wrong = conn.fetch(13, [], session_id=full["session_id"], session_epoch=1)
    assert wrong["error"] == FETCH_SESSION_TOPIC_ID_ERROR


# ---------------------------------------------------------------- epochs

def test_diverging_epoch_from_last_fetched_epoch(broker, conn, topic):
    create_topic(broker.bootstrap, topic)
    tid, epochs = topic_info(broker, topic)
    le = epochs[0]
    assert conn.produce_ok(13, tid, [(0, batch([b"x", b"y", b"z"]))]) == {0: 0}
    for v, t in ((12, topic), (13, tid), (18, tid)):
        # The epoch ends at the log end (3): a fetch past it diverges, at once, no records.
        got = conn.fetch(v, [(t, 0, 10, -1, le, PMAX)], max_wait_ms=5000, min_bytes=1 << 20)
        p = got["partitions"][0]
        assert (p["error"], p["diverging_epoch"]) == (NONE, (le, 3)), (v, got)
        assert not p["records"] and p["high_watermark"] == 3
        # Within the epoch: a normal read.
        got = conn.fetch(v, [(t, 0, 1, -1, le, PMAX)])
        p = got["partitions"][0]
        assert p["error"] == NONE and p["diverging_epoch"] is None
        assert values_of(p) == [(0, b"x"), (1, b"y"), (2, b"z")]
        # At the end of the epoch: nothing to read, no divergence.
        got = conn.fetch(v, [(t, 0, 3, -1, le, PMAX)])
        assert (got["partitions"][0]["error"], got["partitions"][0]["diverging_epoch"]) == (NONE, None)
        # An epoch newer than any the log has: its end is unknown, OFFSET_OUT_OF_RANGE.
        got = conn.fetch(v, [(t, 0, 1, -1, le + 1, PMAX)])
        assert got["partitions"][0]["error"] == OFFSET_OUT_OF_RANGE, (v, got)
    # Divergence is always sent in a session, even when nothing else changed.
    full = conn.fetch(18, [(tid, 0, 3, -1, le, PMAX)], session_epoch=0)
    sid = full["session_id"]
    assert sid > 0 and full["partitions"][0]["diverging_epoch"] is None
    inc = conn.fetch(18, [(tid, 0, 7, -1, le, PMAX)], session_id=sid, session_epoch=1)
    assert [(p["partition"], p["diverging_epoch"]) for p in inc["partitions"]] == [(0, (le, 3))]


def test_current_leader_epoch_fencing(broker, conn, topic):
    create_topic(broker.bootstrap, topic)
    tid, epochs = topic_info(broker, topic)
    le = epochs[0]
    assert conn.produce_ok(13, tid, [(0, batch([b"x"]))]) == {0: 0}
    # v11 (non-flexible) already carries CurrentLeaderEpoch (v9+).
    for epoch, want in ((le, NONE), (le + 1, UNKNOWN_LEADER_EPOCH), (-1, NONE)):
        corr = next(conn.corr)
        got = w.parse_fetch(w.roundtrip(conn.sock, dw.fetch_v11(corr, [(topic, 0, 0, epoch)])), 11)
        assert got["partitions"][0]["error"] == want, (epoch, got)
        assert bool(got["partitions"][0]["records"]) == (want == NONE)
    for v in (12, 16, 18):
        t = topic if v < 13 else tid
        got = conn.fetch(v, [(t, 0, 0, le + 1, -1, PMAX)])
        p = got["partitions"][0]
        assert (p["error"], p["current_leader"]) == (UNKNOWN_LEADER_EPOCH, None), (v, got)
        assert got["node_endpoints"] is None, "NodeEndpoints only name leaders of NOT_LEADER/FENCED partitions"
        if le > 0:  # an older epoch than the partition's is fenced (Spool's single node stays at 0)
            got = conn.fetch(v, [(t, 0, 0, le - 1, -1, PMAX)])
            assert got["partitions"][0]["error"] == FENCED_LEADER_EPOCH
        got = conn.fetch(v, [(t, 0, 0, le, -1, PMAX)])
        assert got["partitions"][0]["error"] == NONE and values_of(got["partitions"][0]) == [(0, b"x")]


def test_leader_epoch_of_spool_partitions_is_the_stored_one(broker, conn, topic, peer):
    """The epoch the fallback above assumes for Spool is the one its batches carry."""
    create_topic(broker.bootstrap, topic)
    tid, epochs = topic_info(broker, topic)
    assert conn.produce_ok(13, tid, [(0, batch([b"e"]))]) == {0: 0}
    got = conn.fetch(18, [(tid, 0, 0, -1, -1, PMAX)])
    _, batch_epochs = dw.decode_records(got["partitions"][0]["records"])
    assert batch_epochs == [epochs[0]]
    if peer is None:
        assert epochs[0] == 0
    files = glob.glob(os.path.join(broker.log_dir, f"{topic}-0", "partition.metadata"))
    assert len(files) == 1, "both brokers keep partition.metadata"
