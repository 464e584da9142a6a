"""Consumer-group APIs over raw frames (issue 5): FindCoordinator, the
JoinGroup v4 MEMBER_ID_REQUIRED round trip, join + sync + heartbeat + leave of
one member, OffsetCommit/OffsetFetch round trips and their errors, offsets
surviving a broker restart, __consumer_offsets refusing produce and delete,
and undecodable group frames closing only their own connection. After every
test the broker must still answer a group round trip on a new connection."""

import os
import re
import struct
import time

import pytest
from confluent_kafka.admin import AdminClient

import ck_util
import group_wire as g
import kafka_wire as w

BROKER_OVERRIDES = {"group.initial.rebalance.delay.ms": "0", "offsets.topic.num.partitions": "5"}
RETRY_S = 30


def roundtrip(port, frame):
    with w.connect(port, timeout=30) as s:
        return w.roundtrip(s, frame)


def group_name(request):
    return f"g-{re.sub(r'[^A-Za-z0-9._-]', '_', request.node.name)[:50]}-{os.urandom(3).hex()}"


def commit(port, group, offsets, version=2, **kw):
    corr, parts = g.parse_offset_commit(roundtrip(port, g.offset_commit(5, group, offsets, version, **kw)), version)
    assert corr == 5
    return parts


def fetch(port, group, topics, version=1):
    resp = g.parse_offset_fetch(roundtrip(port, g.offset_fetch(6, group, topics, version)), version)
    assert resp["corr"] == 6
    return resp


def fetch_when_loaded(port, group, topics, version=2):
    """OffsetFetch, retried while the coordinator is still loading after a start."""
    deadline = time.time() + RETRY_S
    while True:
        resp = fetch(port, group, topics, version)
        if resp["error"] not in (g.COORDINATOR_LOAD_IN_PROGRESS, g.NOT_COORDINATOR) or time.time() > deadline:
            return resp
        time.sleep(0.1)


@pytest.fixture(autouse=True)
def still_healthy(broker, request):
    yield
    assert broker.alive(), f"broker died after {request.node.name}:\n{broker.log()[-5000:]}"
    grp = f"health-{os.urandom(4).hex()}"
    fc = g.parse_find_coordinator(roundtrip(broker.port, g.find_coordinator(1, grp, 2)), 2)
    assert fc["error"] == g.NONE, fc
    resp = fetch(broker.port, grp, [("whatever", [0])], 2)
    assert resp["error"] == g.NONE and resp["partitions"] == [("whatever", 0, -1, "", g.NONE)], resp


@pytest.fixture
def seeded_topic(bootstrap, topic):
    """A topic with two partitions' worth of existence (auto-created by metadata)."""
    p = ck_util.producer(bootstrap, acks="all")
    r = ck_util.produce_all(p, topic, [{"key": b"seed", "value": b"seed"}])
    assert r[0][0] is None
    return topic


def test_find_coordinator_v0_and_v2(broker, request):
    grp = group_name(request)
    v0 = g.parse_find_coordinator(roundtrip(broker.port, g.find_coordinator(11, grp, 0)), 0)
    assert v0["corr"] == 11 and v0["error"] == g.NONE, v0
    assert (v0["host"], v0["port"]) == ("127.0.0.1", broker.port)
    assert v0["node_id"] >= 0
    v2 = g.parse_find_coordinator(roundtrip(broker.port, g.find_coordinator(12, grp, 2, key_type=0)), 2)
    assert v2["error"] == g.NONE and (v2["node_id"], v2["host"], v2["port"]) == (v0["node_id"], v0["host"], v0["port"])
    # Key type 1 is the transaction coordinator, on this same node; unknown
    # key types are a bad request.
    txn = g.parse_find_coordinator(roundtrip(broker.port, g.find_coordinator(13, "tx", 2, key_type=1)), 2)
    assert txn["error"] == g.NONE and (txn["node_id"], txn["host"], txn["port"]) == (v0["node_id"], v0["host"], v0["port"]), txn
    bad = g.parse_find_coordinator(roundtrip(broker.port, g.find_coordinator(14, grp, 1, key_type=7)), 1)
    assert bad["error"] == g.INVALID_REQUEST and (bad["node_id"], bad["host"], bad["port"]) == (-1, "", -1), bad


def test_consumer_offsets_is_internal_and_protected(broker, seeded_topic):
    # The first FindCoordinator of the module created it.
    roundtrip(broker.port, g.find_coordinator(1, "any", 0))
    records = w.record_batch([(b"k", b"v", ())], int(time.time() * 1000))
    with w.connect(broker.port, timeout=30) as s:
        corr, parts = w.parse_produce_v3(w.roundtrip(s, w.produce_v3(21, "__consumer_offsets", 0, records)))
    assert corr == 21 and parts[("__consumer_offsets", 0)][0] == g.INVALID_TOPIC_EXCEPTION, parts
    corr, res = g.parse_delete_topics(roundtrip(broker.port, g.delete_topics(22, ["__consumer_offsets"])))
    assert res == {"__consumer_offsets": g.INVALID_TOPIC_EXCEPTION}, res
    md = AdminClient({"bootstrap.servers": broker.bootstrap}).list_topics(timeout=30)
    assert "__consumer_offsets" in md.topics
    assert len(md.topics["__consumer_offsets"].partitions) == 5  # offsets.topic.num.partitions


def test_join_v4_member_id_required_then_sync_heartbeat_leave(broker, request):
    grp = group_name(request)
    meta = g.subscription(["t1"])
    first = g.parse_join_group(roundtrip(broker.port, g.join_group(31, grp, "", 4, protocols=[("range", meta)])), 4)
    assert first["corr"] == 31 and first["error"] == g.MEMBER_ID_REQUIRED, first
    member = first["member_id"]
    assert member, "MEMBER_ID_REQUIRED must hand out the member id to use"

    join = g.parse_join_group(roundtrip(broker.port, g.join_group(32, grp, member, 4, protocols=[("range", meta)])), 4)
    assert join["error"] == g.NONE, join
    assert join["member_id"] == member and join["leader"] == member
    assert join["protocol"] == "range" and join["generation"] >= 1
    assert join["members"] == [(member, None, meta)], join["members"]
    gen = join["generation"]

    plan = g.assignment({"t1": [0, 1]})
    corr, err, got = g.parse_sync_group(roundtrip(broker.port, g.sync_group(33, grp, gen, member, [(member, plan)], 2)), 2)
    assert (corr, err, got) == (33, g.NONE, plan)

    assert g.parse_heartbeat(roundtrip(broker.port, g.heartbeat(34, grp, gen, member, 2)), 2) == (34, g.NONE)
    assert g.parse_heartbeat(roundtrip(broker.port, g.heartbeat(35, grp, gen + 5, member, 2)), 2) == (35, g.ILLEGAL_GENERATION)
    assert g.parse_heartbeat(roundtrip(broker.port, g.heartbeat(36, grp, gen, "nobody", 2)), 2)[1] == g.UNKNOWN_MEMBER_ID

    corr, groups = g.parse_describe_groups(roundtrip(broker.port, g.describe_groups(51, [grp])))
    assert corr == 51 and len(groups) == 1, groups
    d = groups[0]
    assert (d["error"], d["group"], d["state"], d["protocol_type"], d["protocol"]) == \
        (g.NONE, grp, "Stable", "consumer", "range"), d
    assert [(m[0], m[2], m[3], m[4]) for m in d["members"]] == [(member, "/127.0.0.1", meta, plan)], d["members"]
    corr, err, listed = g.parse_list_groups(roundtrip(broker.port, g.list_groups(52)))
    assert err == g.NONE and listed.get(grp) == "consumer", listed
    corr, deleted = g.parse_delete_groups(roundtrip(broker.port, g.delete_groups(53, [grp])))
    assert deleted == {grp: 68}, deleted  # NON_EMPTY_GROUP while the member is in

    corr, err, members = g.parse_leave_group(roundtrip(broker.port, g.leave_group(37, grp, [(member, None)], 3)), 3)
    assert (corr, err) == (37, g.NONE) and members == [(member, None, g.NONE)], members
    # v0-2 carry a single member's error at the top level.
    corr, err, _ = g.parse_leave_group(roundtrip(broker.port, g.leave_group(38, grp, [member], 1)), 1)
    assert err == g.UNKNOWN_MEMBER_ID
    assert g.parse_heartbeat(roundtrip(broker.port, g.heartbeat(39, grp, gen, member, 2)), 2)[1] == g.UNKNOWN_MEMBER_ID
    corr, deleted = g.parse_delete_groups(roundtrip(broker.port, g.delete_groups(54, [grp])))
    assert deleted == {grp: g.NONE}, deleted
    corr, groups = g.parse_describe_groups(roundtrip(broker.port, g.describe_groups(55, [grp])))
    assert groups[0]["state"] == "Dead" and groups[0]["members"] == [], groups


def test_join_v0_answers_without_member_id_round_trip(broker, request):
    grp = group_name(request)
    join = g.parse_join_group(roundtrip(broker.port, g.join_group(41, grp, "", 0, session_timeout_ms=10000)), 0)
    assert join["error"] == g.NONE and join["member_id"] and join["leader"] == join["member_id"], join
    corr, err, _ = g.parse_leave_group(roundtrip(broker.port, g.leave_group(42, grp, [join["member_id"]], 0)), 0)
    assert err == g.NONE


def test_offset_commit_fetch_round_trip(broker, request, seeded_topic):
    grp = group_name(request)
    t = seeded_topic
    assert commit(broker.port, grp, [(t, 0, 17, "m17")], 2) == [((t, 0), g.NONE)]
    resp = fetch(broker.port, grp, [(t, [0])], 1)
    assert resp["partitions"] == [(t, 0, 17, "m17", g.NONE)], resp
    # v7 (no retention, group.instance.id null), null metadata reads back as "".
    assert commit(broker.port, grp, [(t, 0, 18, None)], 7) == [((t, 0), g.NONE)]
    resp = fetch(broker.port, grp, [(t, [0])], 5)
    assert resp["error"] == g.NONE and resp["partitions"] == [(t, 0, 18, "", g.NONE)], resp
    # v2+: a null topic list means every committed partition of the group.
    resp = fetch(broker.port, grp, None, 2)
    assert resp["error"] == g.NONE and resp["partitions"] == [(t, 0, 18, "", g.NONE)], resp


def test_offset_commit_unknown_topic_or_partition(broker, request, seeded_topic):
    grp = group_name(request)
    t = seeded_topic
    parts = commit(broker.port, grp, [("no-such-topic-xyz", 0, 1, ""), (t, 99, 1, ""), (t, 0, 5, "")], 5)
    assert parts == [(("no-such-topic-xyz", 0), g.UNKNOWN_TOPIC_OR_PARTITION),
                     ((t, 99), g.UNKNOWN_TOPIC_OR_PARTITION), ((t, 0), g.NONE)], parts
    resp = fetch(broker.port, grp, [(t, [0])], 3)
    assert resp["partitions"] == [(t, 0, 5, "", g.NONE)]


def test_offset_fetch_unknown_group(broker, request, seeded_topic):
    grp = group_name(request)
    for v in (1, 2, 5):
        resp = fetch(broker.port, grp, [(seeded_topic, [0, 1])], v)
        assert resp["partitions"] == [(seeded_topic, 0, -1, "", g.NONE), (seeded_topic, 1, -1, "", g.NONE)], (v, resp)
        assert resp["error"] == (None if v < 2 else g.NONE)
    resp = fetch(broker.port, grp, None, 2)
    assert resp["error"] == g.NONE and resp["partitions"] == []


BAD_FRAMES = [
    (10, 0, b"\x00"),                         # FindCoordinator: truncated key length
    (10, 2, b"\x00\x01g"),                    # FindCoordinator v2: missing key type
    (11, 4, b"\x00\x01g\x00\x00"),            # JoinGroup: truncated
    (11, 5, b"\x7f\xff" + b"x" * 10),         # JoinGroup: key longer than the frame
    (14, 3, b"\x00\x01g\x00\x00\x00\x01"),    # SyncGroup: truncated
    (12, 3, b"\x00"),                         # Heartbeat
    (13, 3, b"\x00\x01g\x7f\xff\xff\xff"),    # LeaveGroup v3: absurd member count
    (8, 7, b"\x00\x01g\x00\x00\x00\x01"),     # OffsetCommit
    (9, 5, b"\x00\x01g\x00\x00\x00\x01\x00"), # OffsetFetch
    (9, 6, b"\xff\xff\xff"),                  # OffsetFetch v6 (flexible): bad compact string
    (15, 4, b"\x00\x00\x00\x05"),             # DescribeGroups: 5 ids, none there
    (16, 4, b"\x80"),                         # ListGroups v4 (flexible): unterminated varint
    (42, 1, b"\x00\x00\x00\x01\x00"),         # DeleteGroups
    (47, 0, b"\x00\x01g\x00"),                # OffsetDelete
    (11, 4, b"\x00\x01g" + b"\x00" * 40 + b"trailing"),  # JoinGroup with trailing garbage
]


@pytest.mark.parametrize("api_key,version,body", BAD_FRAMES)
def test_undecodable_group_frames_close_only_their_connection(broker, api_key, version, body):
    with w.connect(broker.port, timeout=15) as bystander, w.connect(broker.port, timeout=15) as s:
        if version >= 6 and api_key == 9 or api_key == 16 and version >= 3:
            frame = w.request_flexible(api_key, version, 99, body)
        else:
            frame = w.request(api_key, version, 99, body)
        s.sendall(frame)
        assert w.closed_by_peer(s), f"api {api_key} v{version}: an undecodable body must close the connection"
        # The other connection is unaffected.
        fc = g.parse_find_coordinator(w.roundtrip(bystander, g.find_coordinator(100, "bystander", 0)), 0)
        assert fc["corr"] == 100 and fc["error"] == g.NONE


def test_committed_offsets_survive_restart(broker_factory, request):
    b = broker_factory({"group.initial.rebalance.delay.ms": "0"})
    grp = group_name(request)
    topic = f"restart-{os.urandom(3).hex()}"
    p = ck_util.producer(b.bootstrap, acks="all")
    assert ck_util.produce_all(p, topic, [{"value": b"x"}])[0][0] is None
    fc = g.parse_find_coordinator(roundtrip(b.port, g.find_coordinator(1, grp, 0)), 0)
    assert fc["error"] == g.NONE
    assert commit(b.port, grp, [(topic, 0, 1234, "before-restart")], 2) == [((topic, 0), g.NONE)]
    b.restart()
    resp = fetch_when_loaded(b.port, grp, [(topic, [0])], 2)
    assert resp["error"] == g.NONE and resp["partitions"] == [(topic, 0, 1234, "before-restart", g.NONE)], resp
    # A second restart replays what the first one loaded.
    b.restart()
    resp = fetch_when_loaded(b.port, grp, None, 2)
    assert resp["partitions"] == [(topic, 0, 1234, "before-restart", g.NONE)], resp


def test_before_the_offsets_topic_exists(broker_factory, request):
    """Until a FindCoordinator creates __consumer_offsets this broker
    coordinates nothing: group requests answer NOT_COORDINATOR, each in its
    version's shape (OffsetFetch v1 per partition, v2+ at the top)."""
    b = broker_factory({"group.initial.rebalance.delay.ms": "0"})
    grp = group_name(request)
    topic = f"early-{os.urandom(3).hex()}"
    p = ck_util.producer(b.bootstrap, acks="all")
    assert ck_util.produce_all(p, topic, [{"value": b"x"}])[0][0] is None
    v1 = fetch(b.port, grp, [(topic, [0])], 1)
    assert v1["partitions"] == [(topic, 0, -1, "", g.NOT_COORDINATOR)], v1
    v2 = fetch(b.port, grp, [(topic, [0])], 2)
    assert v2["error"] == g.NOT_COORDINATOR and v2["partitions"] == [], v2
    assert commit(b.port, grp, [(topic, 0, 3, "")], 2) == [((topic, 0), g.NOT_COORDINATOR)]
    join = g.parse_join_group(roundtrip(b.port, g.join_group(61, grp, "", 4)), 4)
    assert join["error"] == g.NOT_COORDINATOR, join
    assert g.parse_heartbeat(roundtrip(b.port, g.heartbeat(62, grp, 1, "m", 2)), 2)[1] == g.NOT_COORDINATOR
    assert "__consumer_offsets" not in AdminClient({"bootstrap.servers": b.bootstrap}).list_topics(timeout=30).topics
    fc = g.parse_find_coordinator(roundtrip(b.port, g.find_coordinator(63, grp, 0)), 0)
    assert fc["error"] == g.NONE
    # Created with the default 50 partitions, already loaded: the next request works.
    md = AdminClient({"bootstrap.servers": b.bootstrap}).list_topics(timeout=30)
    assert len(md.topics["__consumer_offsets"].partitions) == 50
    assert commit(b.port, grp, [(topic, 0, 3, "")], 2) == [((topic, 0), g.NONE)]
