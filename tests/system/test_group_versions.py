"""The group APIs at the versions Kafka 4.4 added (issue 12), over raw
frames with exact values checked, for classic groups:
  * FindCoordinator v4-6 batched CoordinatorKeys (KIP-699): one answer per
    key in request order, null error messages; key type 2 (share) and an
    unknown key type answered INVALID_REQUEST.
  * JoinGroup v9 / SyncGroup v5 / Heartbeat v4 / LeaveGroup v5: ProtocolType
    in the join answer, SyncGroup's protocol check (INCONSISTENT_GROUP_PROTOCOL)
    and echo, and KIP-814's SkipAssignment for a static leader that rejoins
    a Stable group (v9) against the pre-v9 answer (v8).
  * OffsetCommit / OffsetFetch v10 with topics named by id (UNKNOWN_TOPIC_ID
    for an unknown id), OffsetFetch v8 batched groups, OffsetCommit v9's
    GROUP_ID_NOT_FOUND against v8's ILLEGAL_GENERATION.
  * ListGroups v5 TypesFilter/StatesFilter and GroupType; DescribeGroups v6
    GROUP_ID_NOT_FOUND + ErrorMessage against v5's "Dead"; DeleteGroups v3.
Runs against Spool, or the Kafka 4.4 peer with SPOOL_TEST_PEER=kafka."""

import os
import re
import struct
import time

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

import data_wire as dw
import group_wire as g
import kafka_wire as w
from kafka_wire import FlexReader, compact_array, compact_string, request_flexible, uvarint

BROKER_OVERRIDES = {"group.initial.rebalance.delay.ms": "0", "offsets.topic.num.partitions": "3"}
RETRY_S = 30

GROUP_ID_NOT_FOUND = 69
INCONSISTENT_GROUP_PROTOCOL = 23
UNKNOWN_TOPIC_ID = 100
FENCED_INSTANCE_ID = 82
NON_EMPTY_GROUP = 68
INVALID_REQUEST_MESSAGE = ("This most likely occurs because of a request being malformed by the client library "
                           "or the message was sent to an incompatible broker. See the broker logs for more details.")


def compact_bytes(b):
    return uvarint(len(b) + 1) + b


def read_compact_bytes(r):
    n = r.compact_len()
    b = bytes(r.data[r.pos:r.pos + n])
    r.pos += n
    return b


def roundtrip(port, api_key, version, body, corr=7):
    with w.connect(port, timeout=30) as s:
        frame = w.roundtrip(s, request_flexible(api_key, version, corr, body + b"\x00", client_id="gv-test"))
    r = FlexReader(frame)
    assert r.take(">i") == corr
    r.tags()  # response header v1
    return r


def done(r):
    r.tags()
    assert r.pos == len(r.data), f"{len(r.data) - r.pos} trailing bytes"


def name(request, prefix="gv"):
    return f"{prefix}-{re.sub(r'[^A-Za-z0-9._-]', '_', request.node.name)[:40]}-{os.urandom(3).hex()}"


# --- FindCoordinator v4+ -------------------------------------------------------

def find_coordinators(port, keys, key_type=0, version=4):
    r = roundtrip(port, 10, version, struct.pack(">b", key_type) + compact_array(keys, compact_string))
    r.take(">i")  # throttle
    out = []
    for _ in range(r.compact_len()):
        key = r.compact_string()
        node, host, port_, err, msg = r.take(">i"), r.compact_string(), r.take(">i"), r.take(">h"), r.compact_string()
        r.tags()
        out.append({"key": key, "node": node, "host": host, "port": port_, "error": err, "message": msg})
    done(r)
    return out


def find_group_coordinator_ready(port, group):
    deadline = time.time() + RETRY_S
    while True:
        [c] = find_coordinators(port, [group])
        if c["error"] == g.NONE or time.time() > deadline:
            return c
        time.sleep(0.1)


def test_find_coordinator_v4_batched_keys(broker, request):
    k1, k2 = name(request, "a"), name(request, "b")
    find_group_coordinator_ready(broker.port, k1)
    for version in (4, 5, 6):
        got = find_coordinators(broker.port, [k1, k2], 0, version)
        assert [c["key"] for c in got] == [k1, k2], got
        for c in got:  # Kafka leaves the per-key message at its default, ""
            assert c["error"] == g.NONE and c["message"] == "", c
            assert (c["host"], c["port"]) == ("127.0.0.1", broker.port) and c["node"] >= 0, c
    assert find_coordinators(broker.port, [], 0, 4) == []
    # An unknown key type fails the whole request: every key INVALID_REQUEST
    # with the error's default message.
    bad = find_coordinators(broker.port, [k1, k2], 3, 6)
    assert [(c["key"], c["error"], c["node"], c["host"], c["port"], c["message"]) for c in bad] == [
        (k, g.INVALID_REQUEST, -1, "", -1, INVALID_REQUEST_MESSAGE) for k in (k1, k2)], bad


def test_find_coordinator_share_key(broker, request, peer):
    key = name(request, "share")
    # Before v6 the share key type does not exist.
    [c] = find_coordinators(broker.port, [key], 2, 5)
    assert (c["error"], c["node"], c["host"], c["port"]) == (g.INVALID_REQUEST, -1, "", -1), c
    [c] = find_coordinators(broker.port, [key], 2, 6)
    if peer is None:
        # Spool has no share groups: Kafka's answer with share groups off.
        assert (c["error"], c["node"], c["host"], c["port"], c["message"]) == (g.INVALID_REQUEST, -1, "", -1, "")
    else:
        # Kafka 4.4's default: share groups off, the same answer.
        assert (c["error"], c["node"], c["host"], c["port"], c["message"]) == (g.INVALID_REQUEST, -1, "", -1, ""), c


# --- JoinGroup v9 / SyncGroup v5 / Heartbeat v4 / LeaveGroup v5 ------------------

def join(port, group, member_id, instance, version=9, reason=None, protocols=None):
    protocols = protocols or [("range", g.subscription(["t"]))]
    body = compact_string(group) + struct.pack(">ii", 10000, 30000) + compact_string(member_id)
    body += compact_string(instance) + compact_string("consumer")
    body += compact_array(protocols, lambda p: compact_string(p[0]) + compact_bytes(p[1]) + b"\x00")
    if version >= 8:
        body += compact_string(reason)
    r = roundtrip(port, 11, version, body)
    r.take(">i")
    out = {"error": r.take(">h"), "generation": r.take(">i")}
    out["protocol_type"] = r.compact_string() if version >= 7 else None
    out["protocol_name"] = r.compact_string()
    out["leader"] = r.compact_string()
    out["skip"] = bool(r.take(">b")) if version >= 9 else False
    out["member_id"] = r.compact_string()
    members = []
    for _ in range(r.compact_len()):
        mid, inst, meta = r.compact_string(), r.compact_string(), read_compact_bytes(r)
        r.tags()
        members.append((mid, inst, meta))
    out["members"] = members
    done(r)
    return out


def join_ready(port, group, member_id, instance, **kw):
    deadline = time.time() + RETRY_S
    while True:
        resp = join(port, group, member_id, instance, **kw)
        if resp["error"] not in (g.COORDINATOR_LOAD_IN_PROGRESS, g.NOT_COORDINATOR) or time.time() > deadline:
            return resp
        time.sleep(0.1)


def sync(port, group, generation, member_id, instance, assignments=(), ptype="consumer", pname="range", version=5):
    body = compact_string(group) + struct.pack(">i", generation) + compact_string(member_id) + compact_string(instance)
    if version >= 5:
        body += compact_string(ptype) + compact_string(pname)
    body += compact_array(list(assignments), lambda a: compact_string(a[0]) + compact_bytes(a[1]) + b"\x00")
    r = roundtrip(port, 14, version, body)
    r.take(">i")
    out = {"error": r.take(">h")}
    if version >= 5:
        out["protocol_type"], out["protocol_name"] = r.compact_string(), r.compact_string()
    out["assignment"] = read_compact_bytes(r)
    done(r)
    return out


def heartbeat_v4(port, group, generation, member_id, instance):
    r = roundtrip(port, 12, 4, compact_string(group) + struct.pack(">i", generation) + compact_string(member_id)
                  + compact_string(instance))
    r.take(">i")
    err = r.take(">h")
    done(r)
    return err


def leave_v5(port, group, members):
    body = compact_string(group) + compact_array(
        members, lambda m: compact_string(m[0]) + compact_string(m[1]) + compact_string(m[2]) + b"\x00")
    r = roundtrip(port, 13, 5, body)
    r.take(">i")
    err = r.take(">h")
    out = []
    for _ in range(r.compact_len()):
        out.append((r.compact_string(), r.compact_string(), r.take(">h")))
        r.tags()
    done(r)
    return err, out


def test_join_sync_v9_static_leader_skip_assignment(broker, request):
    group = name(request)
    port = broker.port
    find_group_coordinator_ready(port, group)
    sub = g.subscription(["t"])
    first = join_ready(port, group, "", "inst-1", reason="first join")
    assert first["error"] == g.NONE, first
    m1 = first["member_id"]
    assert m1.startswith("inst-1-"), first
    assert (first["generation"], first["protocol_type"], first["protocol_name"], first["leader"], first["skip"]) == (
        1, "consumer", "range", m1, False), first
    assert first["members"] == [(m1, "inst-1", sub)], first

    plan = g.assignment({"t": [0, 1]})
    # KIP-559: a protocol name or type other than the group's is refused.
    bad = sync(port, group, 1, m1, "inst-1", [(m1, plan)], pname="roundrobin")
    assert bad == {"error": INCONSISTENT_GROUP_PROTOCOL, "protocol_type": None, "protocol_name": None,
                   "assignment": b""}, bad
    bad = sync(port, group, 1, m1, "inst-1", [(m1, plan)], ptype="connect")
    assert bad["error"] == INCONSISTENT_GROUP_PROTOCOL, bad
    ok = sync(port, group, 1, m1, "inst-1", [(m1, plan)])
    assert ok == {"error": g.NONE, "protocol_type": "consumer", "protocol_name": "range", "assignment": plan}, ok
    # From v5 both fields are mandatory (Kafka refuses nulls before any group lookup).
    for ptype, pname in ((None, "range"), ("consumer", None)):
        bad = sync(port, group, 1, m1, "inst-1", ptype=ptype, pname=pname)
        assert bad == {"error": INCONSISTENT_GROUP_PROTOCOL, "protocol_type": None, "protocol_name": None,
                       "assignment": b""}, bad
    again = sync(port, group, 1, m1, "inst-1")
    assert again == ok, again
    assert heartbeat_v4(port, group, 1, m1, "inst-1") == g.NONE

    # v8: the restarted static leader gets the pre-KIP-814 answer: the old
    # leader id, no members, no SkipAssignment.
    old = join(port, group, "", "inst-1", version=8, reason="restart")
    m2 = old["member_id"]
    assert m2 != m1 and m2.startswith("inst-1-"), old
    assert (old["error"], old["generation"], old["leader"], old["skip"], old["members"]) == (
        g.NONE, 1, m1, False, []), old
    # v9: it learns it leads, with the members, and need not assign.
    new = join(port, group, "", "inst-1", version=9, reason="restart again")
    m3 = new["member_id"]
    assert m3 not in (m1, m2) and m3.startswith("inst-1-"), new
    assert (new["error"], new["generation"], new["protocol_type"], new["protocol_name"], new["leader"],
            new["skip"]) == (g.NONE, 1, "consumer", "range", m3, True), new
    assert new["members"] == [(m3, "inst-1", sub)], new
    # No rebalance happened: the assignment is still there.
    kept = sync(port, group, 1, m3, "inst-1")
    assert kept == ok, kept
    # The first incarnation is fenced by the rejoins.
    assert heartbeat_v4(port, group, 1, m1, "inst-1") == FENCED_INSTANCE_ID

    err, members = leave_v5(port, group, [(m3, "inst-1", "test done")])
    assert (err, members) == (g.NONE, [(m3, "inst-1", g.NONE)])
    deadline = time.time() + RETRY_S
    while True:  # the last member's leave ends in Empty once the rebalance completes
        [d] = describe(port, [group], 6)
        if d["state"] == "Empty" or time.time() > deadline:
            break
        time.sleep(0.1)
    assert (d["error"], d["state"], d["members"]) == (g.NONE, "Empty", []), d


# --- OffsetCommit / OffsetFetch by topic id ---------------------------------------

def create_topic(bootstrap, topic, partitions):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    fs = admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1)],
                             operation_timeout=10)
    fs[topic].result(timeout=30)


def topic_id(broker, topic):
    """The topic's id through Metadata v12."""
    with w.connect(broker.port, timeout=30) as s:
        err, tid, _parts = dw.parse_metadata_v12(w.roundtrip(s, dw.metadata_v12(7, [topic])))[topic]
    assert err == 0, err
    return tid


def commit_v10(port, group, by_id, generation=-1, member_id=""):
    """by_id: [(topic_id, [(partition, offset, epoch, metadata)])] -> [(id, [(partition, error)])]"""
    body = compact_string(group) + struct.pack(">i", generation) + compact_string(member_id) + compact_string(None)
    body += compact_array(by_id, lambda t: t[0] + compact_array(
        t[1], lambda p: struct.pack(">iqi", p[0], p[1], p[2]) + compact_string(p[3]) + b"\x00") + b"\x00")
    r = roundtrip(port, 8, 10, body)
    r.take(">i")
    out = []
    for _ in range(r.compact_len()):
        tid = bytes(r.data[r.pos:r.pos + 16])
        r.pos += 16
        parts = []
        for _ in range(r.compact_len()):
            parts.append(r.take(">ih"))
            r.tags()
        r.tags()
        out.append((tid, parts))
    done(r)
    return out


def commit_named_ready(port, group, topic, partition, offset, version):
    """commit_named, retried while the coordinator still loads the group's
    offsets partition (Kafka 4.4 loads it on first use after FindCoordinator)."""
    deadline = time.time() + RETRY_S
    while True:
        got = commit_named(port, group, topic, partition, offset, version)
        if all(e not in (g.COORDINATOR_LOAD_IN_PROGRESS, g.NOT_COORDINATOR) for _t, _p, e in got) \
                or time.time() > deadline:
            return got
        time.sleep(0.1)


def commit_named(port, group, topic, partition, offset, version, generation=-1, member_id=""):
    body = compact_string(group) + struct.pack(">i", generation) + compact_string(member_id) + compact_string(None)
    body += compact_array([0], lambda _: compact_string(topic) + compact_array(
        [0], lambda _p: struct.pack(">iqi", partition, offset, -1) + compact_string("") + b"\x00") + b"\x00")
    r = roundtrip(port, 8, version, body)
    r.take(">i")
    out = []
    for _ in range(r.compact_len()):
        tname = r.compact_string()
        for _ in range(r.compact_len()):
            out.append((tname,) + r.take(">ih"))
            r.tags()
        r.tags()
    done(r)
    return out


def fetch_groups(port, groups, version, require_stable=False):
    """groups: [(group, topics or None)], topics [(name or id, [partitions])] -> per group
    (group, error, [(name or id, [(partition, offset, epoch, metadata, error)])])"""
    def topic(t):
        ref = t[0] if version >= 10 else compact_string(t[0])
        return ref + compact_array(t[1], lambda p: struct.pack(">i", p)) + b"\x00"

    def group(gr):
        out = compact_string(gr[0])
        if version >= 9:
            out += compact_string(None) + struct.pack(">i", -1)
        return out + compact_array(gr[1], topic) + b"\x00"

    r = roundtrip(port, 9, version, compact_array(groups, group) + struct.pack(">b", require_stable))
    r.take(">i")
    out = []
    for _ in range(r.compact_len()):
        gid = r.compact_string()
        topics = []
        for _ in range(r.compact_len()):
            if version >= 10:
                ref = bytes(r.data[r.pos:r.pos + 16])
                r.pos += 16
            else:
                ref = r.compact_string()
            parts = []
            for _ in range(r.compact_len()):
                p, off, ep = r.take(">iqi")
                meta, err = r.compact_string(), r.take(">h")
                r.tags()
                parts.append((p, off, ep, meta, err))
            r.tags()
            topics.append((ref, parts))
        err = r.take(">h")
        r.tags()
        out.append((gid, err, topics))
    done(r)
    return out


def test_offset_commit_fetch_v10_by_topic_id(broker, bootstrap, topic, request):
    port = broker.port
    create_topic(bootstrap, topic, 2)
    tid = topic_id(broker, topic)
    unknown = os.urandom(16)
    group, other = name(request, "c"), name(request, "d")
    find_group_coordinator_ready(port, group)
    find_group_coordinator_ready(port, other)
    got = commit_v10(port, group, [(tid, [(0, 5, 3, "m0"), (1, 7, -1, None)]), (unknown, [(0, 1, -1, "")])])
    # Kafka lists the refused topics first, Spool keeps request order: compare as a map.
    assert len(got) == 2 and dict(got) == {tid: [(0, g.NONE), (1, g.NONE)], unknown: [(0, UNKNOWN_TOPIC_ID)]}, got
    assert commit_named(port, other, topic, 1, 42, 9) == [(topic, 1, g.NONE)]

    resp = fetch_groups(port, [(group, [(tid, [1, 0]), (unknown, [0])]), (other, None)], 10)
    assert resp == [
        (group, g.NONE, [(tid, [(1, 7, -1, "", g.NONE), (0, 5, 3, "m0", g.NONE)]),
                         (unknown, [(0, -1, -1, "", UNKNOWN_TOPIC_ID)])]),
        (other, g.NONE, [(tid, [(1, 42, -1, "", g.NONE)])]),
    ], resp
    # The same offsets by name (v8 batched groups, v9 with member fields).
    for version in (8, 9):
        resp = fetch_groups(port, [(other, [(topic, [1, 0])]), (group, None)], version, require_stable=True)
        # The all-partitions form has no defined order.
        resp[1][2][0][1].sort()
        assert resp == [
            (other, g.NONE, [(topic, [(1, 42, -1, "", g.NONE), (0, -1, -1, "", g.NONE)])]),
            (group, g.NONE, [(topic, [(0, 5, 3, "m0", g.NONE), (1, 7, -1, "", g.NONE)])]),
        ], (version, resp)


def test_offset_commit_v9_group_id_not_found(broker, bootstrap, topic, request):
    port = broker.port
    create_topic(bootstrap, topic, 1)
    group = name(request)
    find_group_coordinator_ready(port, group)
    # A member's commit (generation >= 0) for a group that does not exist.
    assert commit_named(port, group, topic, 0, 1, 9, generation=1, member_id="m") == [
        (topic, 0, GROUP_ID_NOT_FOUND)]
    assert commit_named(port, group, topic, 0, 1, 8, generation=1, member_id="m") == [
        (topic, 0, g.ILLEGAL_GENERATION)]


# --- DescribeGroups v5-6 / ListGroups v5 / DeleteGroups v3 -------------------------

def describe(port, groups, version):
    r = roundtrip(port, 15, version, compact_array(groups, compact_string) + struct.pack(">b", 1))
    r.take(">i")
    out = []
    for _ in range(r.compact_len()):
        d = {"error": r.take(">h")}
        d["message"] = r.compact_string() if version >= 6 else None
        d["group"], d["state"], d["protocol_type"], d["protocol"] = (r.compact_string(), r.compact_string(),
                                                                    r.compact_string(), r.compact_string())
        members = []
        for _ in range(r.compact_len()):
            mid, inst, cid, host = r.compact_string(), r.compact_string(), r.compact_string(), r.compact_string()
            read_compact_bytes(r), read_compact_bytes(r)
            r.tags()
            members.append((mid, inst, cid, host))
        d["members"] = members
        d["ops"] = r.take(">i")
        r.tags()
        out.append(d)
    done(r)
    return out


def list_groups(port, states=(), types=(), version=5):
    body = compact_array(list(states), compact_string)
    if version >= 5:
        body += compact_array(list(types), compact_string)
    r = roundtrip(port, 16, version, body)
    r.take(">i")
    err = r.take(">h")
    out = {}
    for _ in range(r.compact_len()):
        gid, ptype, state = r.compact_string(), r.compact_string(), r.compact_string()
        gtype = r.compact_string() if version >= 5 else None
        r.tags()
        out[gid] = (ptype, state, gtype)
    done(r)
    assert err == g.NONE
    return out


def delete_groups_v3(port, groups):
    r = roundtrip(port, 42, 3, compact_array(groups, compact_string))
    r.take(">i")
    out = []
    for _ in range(r.compact_len()):
        out.append((r.compact_string(), r.take(">h"), r.compact_string()))
        r.tags()
    done(r)
    return out


def test_list_describe_delete_groups(broker, bootstrap, topic, request):
    port = broker.port
    create_topic(bootstrap, topic, 1)
    empty, stable, missing = name(request, "e"), name(request, "s"), name(request, "x")
    for grp in (empty, stable, missing):
        find_group_coordinator_ready(port, grp)
    assert commit_named_ready(port, empty, topic, 0, 3, 9) == [(topic, 0, g.NONE)]
    j = join_ready(port, stable, "", "inst-s")
    assert j["error"] == g.NONE, j
    s = sync(port, stable, j["generation"], j["member_id"], "inst-s", [(j["member_id"], g.assignment({topic: [0]}))])
    assert s["error"] == g.NONE, s
    ours = {empty, stable, missing}

    def listed(**kw):
        return {k: v for k, v in list_groups(port, **kw).items() if k in ours}

    assert listed() == {empty: ("", "Empty", "classic"), stable: ("consumer", "Stable", "classic")}
    assert listed(types=["classic"]) == listed(types=["CLASSIC", "share"]) == listed()
    assert listed(types=["consumer"]) == {} and listed(types=["share", "streams"]) == {}
    assert listed(states=["stable"]) == {stable: ("consumer", "Stable", "classic")}
    assert listed(states=["Empty"], types=["classic"]) == {empty: ("", "Empty", "classic")}
    assert {k: v for k, v in list_groups(port, states=["STABLE"], version=4).items() if k in ours} == {
        stable: ("consumer", "Stable", None)}

    d_missing, d_stable = describe(port, [missing, stable], 6)
    assert (d_missing["error"], d_missing["message"], d_missing["group"], d_missing["state"], d_missing["members"]) == (
        GROUP_ID_NOT_FOUND, f"Group {missing} not found.", missing, "Dead", []), d_missing
    assert (d_stable["error"], d_stable["message"], d_stable["state"], d_stable["protocol_type"],
            d_stable["protocol"]) == (g.NONE, None, "Stable", "consumer", "range"), d_stable
    assert [m[0] for m in d_stable["members"]] == [j["member_id"]] and d_stable["members"][0][1] == "inst-s"
    [old] = describe(port, [missing], 5)
    assert (old["error"], old["group"], old["state"]) == (g.NONE, missing, "Dead"), old

    # Kafka answers per coordinator shard, so the order is not the request's.
    assert sorted(delete_groups_v3(port, [missing, stable, empty])) == sorted([
        (missing, GROUP_ID_NOT_FOUND, None), (stable, NON_EMPTY_GROUP, None), (empty, g.NONE, None)])
    assert listed() == {stable: ("consumer", "Stable", "classic")}
