"""Transactional offset commits over raw frames (issue 6, item 5).

TxnOffsetCommit writes offsets that OffsetFetch does not show until the
transaction commits: a plain fetch keeps answering the previous offset, and
OffsetFetch v7 with require_stable answers UNSTABLE_OFFSET_COMMIT for the
partition. The commits run inside a transaction holding the group's offsets
partition (TxnOffsetCommit is verified, KIP-890). A COMMIT marker written with
WriteTxnMarkers to the group's
__consumer_offsets partition makes the offset visible (an ABORT drops it), and
both the pending state and the committed result survive a broker restart."""

import os
import re
import time

import pytest

import ck_util
import group_wire as g
import kafka_wire as w

OFFSETS_PARTITIONS = 3
OVERRIDES = {"group.initial.rebalance.delay.ms": "0", "offsets.topic.num.partitions": str(OFFSETS_PARTITIONS),
             "num.partitions": "2"}
RETRY_S = 30
UNSTABLE_OFFSET_COMMIT = 88
INVALID_GROUP_ID = 24


def roundtrip(port, frame):
    with w.connect(port, timeout=30) as s:
        return w.roundtrip(s, frame)


def group_name(request):
    return f"tg-{re.sub(r'[^A-Za-z0-9._-]', '_', request.node.name)[:40]}-{os.urandom(3).hex()}"


def fetch_v7(port, group, topics, require_stable):
    """OffsetFetch v7, retried while the coordinator loads after a start."""
    deadline = time.time() + RETRY_S
    while True:
        resp = w.parse_offset_fetch_v7(roundtrip(port, w.offset_fetch_v7(7, group, topics, require_stable)))
        assert resp["corr"] == 7
        if resp["error"] not in (g.COORDINATOR_LOAD_IN_PROGRESS, g.NOT_COORDINATOR) or time.time() > deadline:
            return resp
        time.sleep(0.1)


def txn_commit(port, group, pid, epoch, offsets, version=3, **kw):
    corr, parts = w.parse_txn_offset_commit(
        roundtrip(port, w.txn_offset_commit(8, "tx-" + group, group, pid, epoch, offsets, version, **kw)), version)
    assert corr == 8
    return parts


def producer_id(port, group):
    """A transactional producer "tx-<group>" whose open transaction holds the
    group's offsets partition (AddOffsetsToTxn): TxnOffsetCommit is verified
    against the transaction coordinator, as in Kafka (KIP-890)."""
    tid = "tx-" + group
    deadline = time.time() + RETRY_S
    while True:
        with w.connect(port, timeout=30) as s:
            fc = w.parse_find_coordinator(w.roundtrip(s, w.find_coordinator(1, tid, key_type=1)))
            corr, err, pid, epoch = w.parse_init_producer_id(
                w.roundtrip(s, w.init_producer_id(9, 1, transactional_id=tid)), 1)
            if fc["error"] == g.NONE and err == g.NONE:
                add = w.parse_error_only(w.roundtrip(s, w.add_offsets_to_txn(10, tid, pid, epoch, group)))
                if add == g.NONE:
                    return pid, epoch
                err = add
        assert time.time() < deadline, (fc, err)
        time.sleep(0.1)


def serves(port, api_key):
    _, err, apis = w.parse_api_versions_v0(roundtrip(port, w.request(18, 0, 1)))
    assert err == 0
    return api_key in apis


def setup_group(b, request):
    """A topic with data and a group with plain offset 5 on partitions 0 and 1."""
    grp = group_name(request)
    topic = f"txo-{os.urandom(3).hex()}"
    p = ck_util.producer(b.bootstrap, acks="all")
    assert ck_util.produce_all(p, topic, [{"value": b"x"}])[0][0] is None
    fc = g.parse_find_coordinator(roundtrip(b.port, g.find_coordinator(1, grp, 0)), 0)
    assert fc["error"] == g.NONE, fc
    assert fetch_v7(b.port, grp, [(topic, [0])], False)["error"] == g.NONE
    corr, parts = g.parse_offset_commit(roundtrip(b.port, g.offset_commit(5, grp, [(topic, 0, 5, "plain")], 2)), 2)
    assert parts == [((topic, 0), g.NONE)], parts
    return grp, topic


def marker(b, group, pid, epoch, commit):
    part = w.offsets_partition_for(group, OFFSETS_PARTITIONS)
    corr, res = w.parse_write_txn_markers_v1(
        roundtrip(b.port, w.write_txn_markers_v1(10, [(pid, epoch, commit, [("__consumer_offsets", [part])], 0)])))
    assert corr == 10 and res == {(pid, "__consumer_offsets", part): g.NONE}, res


def test_pending_offsets_unstable_and_survive_restart(broker_factory, request):
    b = broker_factory(OVERRIDES)
    grp, topic = setup_group(b, request)
    pid, epoch = producer_id(b.port, grp)

    assert txn_commit(b.port, grp, pid, epoch, [(topic, 0, 42, "txn")]) == [((topic, 0), g.NONE)]
    # v0 (no leader epoch, no member identity) works too.
    assert txn_commit(b.port, grp, pid, epoch, [(topic, 1, 7, None)], version=0) == [((topic, 1), g.NONE)]

    loose = fetch_v7(b.port, grp, [(topic, [0, 1])], False)
    assert loose["error"] == g.NONE
    assert [(p[1], p[2], p[4]) for p in loose["partitions"]] == [(0, 5, g.NONE), (1, -1, g.NONE)], loose
    stable = fetch_v7(b.port, grp, [(topic, [0, 1])], True)
    assert [(p[1], p[2], p[4]) for p in stable["partitions"]] == \
        [(0, -1, UNSTABLE_OFFSET_COMMIT), (1, -1, UNSTABLE_OFFSET_COMMIT)], stable
    # The all-partitions form lists committed offsets only.
    every = fetch_v7(b.port, grp, None, True)
    assert [(p[0], p[1], p[2]) for p in every["partitions"]] == [(topic, 0, 5)], every

    # The transactional batch is in the log without a marker: still pending after a restart.
    b.restart()
    stable = fetch_v7(b.port, grp, [(topic, [0])], True)
    assert stable["error"] == g.NONE and stable["partitions"][0][4] == UNSTABLE_OFFSET_COMMIT, stable
    assert fetch_v7(b.port, grp, [(topic, [0])], False)["partitions"][0][2] == 5


def test_txn_offset_commit_errors(broker_factory, request):
    b = broker_factory(OVERRIDES)
    grp, topic = setup_group(b, request)
    pid, epoch = producer_id(b.port, grp)
    # Unknown topic / partition beyond the count: refused per partition, the rest accepted.
    parts = txn_commit(b.port, grp, pid, epoch, [("no-such-topic", 0, 1, ""), (topic, 0, 9, ""), (topic, 99, 1, "")])
    assert parts == [(("no-such-topic", 0), g.UNKNOWN_TOPIC_OR_PARTITION), ((topic, 0), g.NONE),
                     ((topic, 99), g.UNKNOWN_TOPIC_OR_PARTITION)], parts
    # KIP-447 member identity, checked when given (the group has no members).
    assert txn_commit(b.port, grp, pid, epoch, [(topic, 0, 1, "")], member_id="nobody") == \
        [((topic, 0), g.UNKNOWN_MEMBER_ID)]
    assert txn_commit(b.port, grp, pid, epoch, [(topic, 0, 1, "")], generation=5) == \
        [((topic, 0), g.ILLEGAL_GENERATION)]
    # TxnOffsetCommit needs a real group id.
    assert txn_commit(b.port, "", pid, epoch, [(topic, 0, 1, "")]) == [((topic, 0), INVALID_GROUP_ID)]
    # A truncated frame closes only its own connection.
    frame = w.txn_offset_commit(11, "tx", grp, pid, epoch, [(topic, 0, 1, "")])
    bad = frame[:4 + 30]  # header + the first bytes of the body
    bad = len(bad[4:]).to_bytes(4, "big") + bad[4:]
    with w.connect(b.port, timeout=30) as s:
        s.sendall(bad)
        assert w.closed_by_peer(s)
    assert fetch_v7(b.port, grp, [(topic, [0])], False)["partitions"][0][2] == 5


def test_commit_marker_makes_offsets_visible_and_durable(broker_factory, request):
    b = broker_factory(OVERRIDES)
    assert serves(b.port, 27), "WriteTxnMarkers is not advertised"
    grp, topic = setup_group(b, request)
    pid, epoch = producer_id(b.port, grp)
    assert txn_commit(b.port, grp, pid, epoch, [(topic, 0, 42, "txn")]) == [((topic, 0), g.NONE)]
    assert fetch_v7(b.port, grp, [(topic, [0])], True)["partitions"][0][4] == UNSTABLE_OFFSET_COMMIT

    marker(b, grp, pid, epoch, True)
    stable = fetch_v7(b.port, grp, [(topic, [0])], True)
    assert stable["partitions"] == [(topic, 0, 42, "txn", g.NONE)], stable

    b.restart()
    stable = fetch_v7(b.port, grp, [(topic, [0])], True)
    assert stable["error"] == g.NONE and stable["partitions"] == [(topic, 0, 42, "txn", g.NONE)], stable


def test_abort_marker_drops_offsets(broker_factory, request):
    b = broker_factory(OVERRIDES)
    assert serves(b.port, 27), "WriteTxnMarkers is not advertised"
    grp, topic = setup_group(b, request)
    pid, epoch = producer_id(b.port, grp)
    assert txn_commit(b.port, grp, pid, epoch, [(topic, 0, 42, "txn")]) == [((topic, 0), g.NONE)]
    marker(b, grp, pid, epoch, False)
    stable = fetch_v7(b.port, grp, [(topic, [0])], True)
    assert stable["partitions"] == [(topic, 0, 5, "plain", g.NONE)], stable

    # The next transaction of the same producer commits normally.
    assert txn_commit(b.port, grp, pid, epoch, [(topic, 0, 43, "txn2")]) == [((topic, 0), g.NONE)]
    marker(b, grp, pid, epoch, True)
    b.restart()
    stable = fetch_v7(b.port, grp, [(topic, [0])], True)
    assert stable["partitions"] == [(topic, 0, 43, "txn2", g.NONE)], stable
