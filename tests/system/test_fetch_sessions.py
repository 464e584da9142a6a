"""Fetch sessions (KIP-227) at the protocol level. No client shipped on this
machine uses incremental fetch sessions, so these tests speak Fetch v11 over a
raw socket (kafka_wire.fetch_request) against a real broker: a full fetch
opens a session, incremental fetches answer only changed partitions,
forgotten_topics_data drops partitions, epochs are checked, epoch -1 closes,
and max.incremental.fetch.session.cache.slots bounds the cache."""

import itertools
import threading
import time

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

import ck_util
import kafka_wire as w

NONE = 0
FETCH_SESSION_ID_NOT_FOUND = 70
INVALID_FETCH_SESSION_EPOCH = 71
PMAX = 1024 * 1024


def create_topic(bootstrap, topic, partitions=2):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1)],
                                  operation_timeout=15)
    futures[topic].result(timeout=30)


def produce(bootstrap, topic, partition, n, tag):
    p = ck_util.producer(bootstrap, acks="all")
    msgs = [{"key": b"k", "value": b"%s-%d" % (tag.encode(), i)} for i in range(n)]
    reports = ck_util.produce_all(p, topic, msgs, partition=partition)
    assert all(r[0] is None for r in reports), reports


class Session:
    """One connection speaking Fetch v11; tracks the session id and epoch the
    way a client's fetch session handler would."""

    def __init__(self, port, version=11):
        self.sock = w.connect(port, timeout=15)
        self.version = version
        self.corr = itertools.count(1)
        self.id = 0
        self.epoch = 0

    def fetch(self, partitions=(), forgotten=(), session_id=None, epoch=None, max_wait_ms=0, min_bytes=1):
        corr = next(self.corr)
        sid = self.id if session_id is None else session_id
        ep = self.epoch if epoch is None else epoch
        self.sock.sendall(w.fetch_request(corr, sid, ep, [(t, p, off, PMAX) for t, p, off in partitions],
                                          forgotten, max_wait_ms=max_wait_ms, min_bytes=min_bytes,
                                          version=self.version))
        frame = w.read_frame(self.sock)
        assert frame is not None, "broker closed the connection instead of answering Fetch"
        resp = w.parse_fetch(frame, self.version)
        assert resp["corr"] == corr
        return resp

    def advance(self, resp):
        """Accepts a successful response as a client would: next epoch."""
        assert resp["error"] == NONE, resp
        if resp["session_id"] != 0:
            self.id = resp["session_id"]
            self.epoch = 1 if self.epoch == 0 else self.epoch + 1
        return resp

    def close(self):
        self.sock.close()


def by_partition(resp):
    return {(p["topic"], p["partition"]): p for p in resp["partitions"]}


def record_count(part):
    return sum(n for _, n in w.batches(part["records"] or b""))


@pytest.fixture
def two_partitions(bootstrap, topic):
    """A topic with 3 messages in partition 0 and 2 in partition 1."""
    create_topic(bootstrap, topic)
    produce(bootstrap, topic, 0, 3, "a")
    produce(bootstrap, topic, 1, 2, "b")
    return topic


@pytest.fixture
def session(broker):
    s = Session(broker.port)
    yield s
    s.close()


def open_session(s, topic):
    """Full fetch of both partitions from 0, then an incremental fetch moving
    the offsets past what was read. Returns the offsets (hw) per partition."""
    resp = s.fetch([(topic, 0, 0), (topic, 1, 0)])
    assert resp["error"] == NONE
    assert resp["session_id"] > 0, "a full fetch with epoch 0 should open a session"
    s.advance(resp)
    parts = by_partition(resp)
    assert set(parts) == {(topic, 0), (topic, 1)}
    assert record_count(parts[(topic, 0)]) == 3 and parts[(topic, 0)]["high_watermark"] == 3
    assert record_count(parts[(topic, 1)]) == 2 and parts[(topic, 1)]["high_watermark"] == 2
    resp = s.advance(s.fetch([(topic, 0, 3), (topic, 1, 2)]))
    assert resp["session_id"] == s.id
    assert resp["partitions"] == [], "offsets moved but nothing else changed: nothing to send"
    return {0: 3, 1: 2}


def test_full_fetch_opens_session_and_unchanged_partitions_are_omitted(session, two_partitions):
    open_session(session, two_partitions)
    for _ in range(3):
        resp = session.advance(session.fetch())  # no partitions listed: the session's are read
        assert resp["session_id"] == session.id
        assert resp["partitions"] == []


def test_incremental_fetch_returns_only_the_changed_partition(broker, session, two_partitions):
    t = two_partitions
    open_session(session, t)
    produce(broker.bootstrap, t, 1, 1, "c")
    resp = session.advance(session.fetch())
    parts = by_partition(resp)
    assert list(parts) == [(t, 1)], resp
    assert parts[(t, 1)]["high_watermark"] == 3
    assert w.batches(parts[(t, 1)]["records"])[0][0] == 2
    assert record_count(parts[(t, 1)]) == 1
    # Read it: after moving the offset, nothing is sent again.
    resp = session.advance(session.fetch([(t, 1, 3)]))
    assert resp["partitions"] == []


def test_incremental_fetch_adds_partitions(broker, session, two_partitions):
    t = two_partitions
    resp = session.advance(session.fetch([(t, 0, 3)]))  # session over partition 0 only
    assert resp["session_id"] > 0
    resp = session.advance(session.fetch([(t, 1, 0)]))
    parts = by_partition(resp)
    assert list(parts) == [(t, 1)], "a newly added partition is always sent"
    assert record_count(parts[(t, 1)]) == 2


def test_forgotten_partition_is_no_longer_fetched(broker, session, two_partitions):
    t = two_partitions
    open_session(session, t)
    resp = session.advance(session.fetch(forgotten=[(t, [0])]))
    assert resp["partitions"] == []
    produce(broker.bootstrap, t, 0, 2, "d")
    resp = session.advance(session.fetch())
    assert resp["partitions"] == [], "partition 0 was forgotten; its new data must not be sent"
    produce(broker.bootstrap, t, 1, 1, "e")
    resp = session.advance(session.fetch())
    assert [(p["topic"], p["partition"]) for p in resp["partitions"]] == [(t, 1)]


def test_forgetting_every_partition_closes_the_session(session, two_partitions):
    t = two_partitions
    open_session(session, t)
    resp = session.fetch(forgotten=[(t, [0, 1])])
    assert resp["error"] == NONE and resp["session_id"] == 0 and resp["partitions"] == []
    resp = session.fetch(epoch=session.epoch + 1)
    assert resp["error"] == FETCH_SESSION_ID_NOT_FOUND


def test_wrong_epoch_is_refused_and_leaves_the_session_usable(broker, session, two_partitions):
    t = two_partitions
    open_session(session, t)
    for bad in (session.epoch + 1, session.epoch - 1, 1000):
        resp = session.fetch([(t, 0, 0)], epoch=bad)
        assert resp["error"] == INVALID_FETCH_SESSION_EPOCH, resp
        assert resp["partitions"] == []
    produce(broker.bootstrap, t, 0, 1, "f")
    resp = session.advance(session.fetch())
    assert [(p["topic"], p["partition"]) for p in resp["partitions"]] == [(t, 0)]
    # Replaying the epoch just used is refused too.
    resp = session.fetch(epoch=session.epoch - 1)
    assert resp["error"] == INVALID_FETCH_SESSION_EPOCH


def test_unknown_session_id(session, two_partitions):
    resp = session.fetch([(two_partitions, 0, 0)], session_id=123456789, epoch=1)
    assert resp["error"] == FETCH_SESSION_ID_NOT_FOUND
    assert resp["partitions"] == [] and resp["session_id"] == 0


def test_final_epoch_closes_the_session(broker, session, two_partitions):
    t = two_partitions
    open_session(session, t)
    resp = session.fetch([(t, 0, 0)], epoch=-1)
    assert resp["error"] == NONE
    assert resp["session_id"] == 0, "epoch -1 answers sessionless"
    parts = by_partition(resp)
    assert list(parts) == [(t, 0)] and record_count(parts[(t, 0)]) == 3
    resp = session.fetch(epoch=session.epoch)
    assert resp["error"] == FETCH_SESSION_ID_NOT_FOUND
    # The same id on another connection is gone too.
    other = Session(broker.port)
    try:
        assert other.fetch(session_id=session.id, epoch=session.epoch)["error"] == FETCH_SESSION_ID_NOT_FOUND
    finally:
        other.close()


def test_sessions_survive_across_connections(broker, session, two_partitions):
    t = two_partitions
    open_session(session, t)
    other = Session(broker.port)
    try:
        other.id, other.epoch = session.id, session.epoch
        produce(broker.bootstrap, t, 0, 1, "g")
        resp = other.advance(other.fetch())
        assert [(p["topic"], p["partition"]) for p in resp["partitions"]] == [(t, 0)]
    finally:
        other.close()


def test_incremental_fetch_waits_for_new_data(broker, session, two_partitions):
    t = two_partitions
    open_session(session, t)
    timer = threading.Timer(0.3, produce, args=(broker.bootstrap, t, 1, 1, "h"))
    timer.start()
    try:
        start = time.monotonic()
        resp = session.advance(session.fetch(max_wait_ms=10000, min_bytes=1))
        elapsed = time.monotonic() - start
    finally:
        timer.join()
    assert [(p["topic"], p["partition"]) for p in resp["partitions"]] == [(t, 1)]
    assert elapsed < 8, f"long-poll fetch took {elapsed:.1f}s although data arrived after 0.3s"


def test_sessionless_fetches_still_work(broker, two_partitions):
    t = two_partitions
    for version in (7, 11):
        s = Session(broker.port, version=version)
        try:
            resp = s.fetch([(t, 0, 0), (t, 1, 0)], session_id=0, epoch=-1)
            assert resp["error"] == NONE and resp["session_id"] == 0
            parts = by_partition(resp)
            assert record_count(parts[(t, 0)]) == 3 and record_count(parts[(t, 1)]) == 2
        finally:
            s.close()


def test_cache_slots_limit(broker_factory, topic):
    b = broker_factory({"max.incremental.fetch.session.cache.slots": "1"})
    create_topic(b.bootstrap, topic)
    produce(b.bootstrap, topic, 0, 1, "x")
    first, second = Session(b.port), Session(b.port)
    try:
        r1 = first.fetch([(topic, 0, 0)])
        assert r1["error"] == NONE and r1["session_id"] > 0
        r2 = second.fetch([(topic, 0, 0), (topic, 1, 0)])
        assert r2["error"] == NONE
        assert r2["session_id"] == 0, "the only slot is taken by a young session: answer sessionless"
        assert record_count(by_partition(r2)[(topic, 0)]) == 1
        # Closing the first session frees the slot.
        assert first.fetch([(topic, 0, 0)], session_id=r1["session_id"], epoch=-1)["session_id"] == 0
        assert second.fetch([(topic, 0, 1)])["session_id"] > 0
    finally:
        first.close()
        second.close()
