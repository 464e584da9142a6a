"""Wire tests for the metadata-area versions Kafka 4.4 serves: Metadata
v10-13 (topic ids, null names, top-level error), ListOffsets v6-11 (every
special timestamp, fencing), OffsetForLeaderEpoch v2-4, DescribeTopicPartitions
v0 paging with a cursor across topics, ApiVersions v4-5 (KIP-1242 checks),
DescribeCluster v1-2 and DeleteTopics v4-6 (by id; a re-created topic gets a
new id). Raw frames through meta_wire.py; exact values checked. Passes against
Spool and against the Apache Kafka 4.4 peer (SPOOL_TEST_PEER=kafka); the node
id and cluster id are read from the broker, not assumed."""

import time
import uuid

import pytest

from meta_wire import (API_VERSIONS, CREATE_TOPICS, DELETE_TOPICS, DESCRIBE_CLUSTER, DESCRIBE_TOPIC_PARTITIONS,
                       LIST_OFFSETS, METADATA, OFFSET_FOR_LEADER_EPOCH, Conn, batch, produce)

INT_MIN = -2147483648
TOPIC_OPS = 3576     # every topic operation (no authorizer)
CLUSTER_OPS = 8096   # every cluster operation
NONE, UNKNOWN_SERVER_ERROR, UNKNOWN_TOPIC, UNSUPPORTED_VERSION = 0, -1, 3, 35
INVALID_TOPIC, INVALID_REQUEST, FENCED_EPOCH, UNKNOWN_EPOCH = 17, 42, 74, 75
UNKNOWN_TOPIC_ID, MISMATCHED_ENDPOINT, UNSUPPORTED_ENDPOINT, REBOOTSTRAP = 100, 114, 115, 129
ZERO_ID = uuid.UUID(int=0)


def port_of(broker):
    return int(broker.bootstrap.rsplit(":", 1)[1])


def metadata(port, version, topics, **kw):
    vals = {"Topics": topics, "AllowAutoTopicCreation": False}
    vals.update(kw)
    with Conn(port) as c:
        return c.call(METADATA, version, vals)


def create(port, name, partitions):
    with Conn(port) as c:
        r = c.call(CREATE_TOPICS, 4, {"Topics": [{"Name": name, "NumPartitions": partitions, "ReplicationFactor": 1}],
                                      "TimeoutMs": 15000})
    assert r["Topics"][0]["ErrorCode"] == NONE, r
    deadline = time.monotonic() + 30
    while True:  # Kafka publishes new topics asynchronously
        t = metadata(port, 12, [{"Name": name}])["Topics"][0]
        if t["ErrorCode"] == NONE and len(t["Partitions"]) == partitions and \
                all(p["LeaderId"] >= 0 for p in t["Partitions"]):
            return t["TopicId"]
        assert time.monotonic() < deadline, f"topic {name} not ready: {t}"
        time.sleep(0.1)


def summary(resp):
    return [(t["ErrorCode"], t["Name"], t["TopicId"], len(t["Partitions"]), t["TopicAuthorizedOperations"])
            for t in resp["Topics"]]


# ---------------------------------------------------------------- Metadata

def test_metadata_v12_by_id_v13_error_code(broker, topic):
    port = port_of(broker)
    tid = create(port, topic, 2)
    other = topic + "-b"
    create(port, other, 1)
    assert tid != ZERO_ID
    # v12 by id: the topic with its name; an unknown id first, without a name;
    # once ids are given, names in the request are ignored (as Kafka).
    unknown = uuid.uuid4()
    r = metadata(port, 12, [{"Name": None, "TopicId": tid}, {"Name": None, "TopicId": unknown}, {"Name": other}])
    assert summary(r) == [(UNKNOWN_TOPIC_ID, None, unknown, 0, INT_MIN), (NONE, topic, tid, 2, INT_MIN)]
    # Names: deduplicated, with topic ids; authorized operations on request.
    r = metadata(port, 13, [{"Name": topic}, {"Name": topic}, {"Name": "no-such-" + topic}],
                 IncludeTopicAuthorizedOperations=True)
    assert r["ErrorCode"] == NONE
    assert summary(r) == [(NONE, topic, tid, 2, TOPIC_OPS), (UNKNOWN_TOPIC, "no-such-" + topic, ZERO_ID, 0, TOPIC_OPS)]
    parts = r["Topics"][0]["Partitions"]
    nodes = [b["NodeId"] for b in r["Brokers"]]
    assert len(nodes) == 1
    assert [(p["PartitionIndex"], p["LeaderId"], p["ReplicaNodes"], p["IsrNodes"], p["OfflineReplicas"])
            for p in parts] == [(0, nodes[0], nodes, nodes, []), (1, nodes[0], nodes, nodes, [])]
    assert summary(metadata(port, 13, [{"Name": "bad name!"}]))[0][0] == INVALID_TOPIC
    # v10-11 must not use ids or null names: the whole request is INVALID_REQUEST.
    r = metadata(port, 10, [{"Name": topic, "TopicId": tid}, {"Name": other}])
    assert summary(r) == [(INVALID_REQUEST, topic, tid, 0, INT_MIN), (INVALID_REQUEST, other, ZERO_ID, 0, INT_MIN)]
    r = metadata(port, 11, [{"Name": None}])
    assert summary(r) == [(INVALID_REQUEST, "", ZERO_ID, 0, INT_MIN)]
    # v12+: a null name without an id fails the whole request (Kafka's
    # UNKNOWN_SERVER_ERROR), at top level too in v13.
    r = metadata(port, 13, [{"Name": None}, {"Name": topic}])
    assert r["ErrorCode"] == UNKNOWN_SERVER_ERROR
    assert summary(r) == [(UNKNOWN_SERVER_ERROR, "", ZERO_ID, 0, INT_MIN), (UNKNOWN_SERVER_ERROR, topic, ZERO_ID, 0,
                                                                           INT_MIN)]
    # Cluster operations up to v10 only.
    r = metadata(port, 10, [{"Name": topic}], IncludeClusterAuthorizedOperations=True)
    assert r["ClusterAuthorizedOperations"] == CLUSTER_OPS
    assert "ClusterAuthorizedOperations" not in metadata(port, 11, [{"Name": topic}])
    # All topics (null list) includes both, each once.
    names = [t["Name"] for t in metadata(port, 13, None)["Topics"]]
    assert names.count(topic) == 1 and names.count(other) == 1


# ---------------------------------------------------------------- ListOffsets

def list_offsets(port, version, topic, ts, partition=0, isolation=0, current_epoch=-1, replica_id=-1):
    vals = {"ReplicaId": replica_id, "IsolationLevel": isolation, "TimeoutMs": 5000,
            "Topics": [{"Name": topic, "Partitions": [{"PartitionIndex": partition, "CurrentLeaderEpoch": current_epoch,
                                                       "Timestamp": ts}]}]}
    with Conn(port) as c:
        p = c.call(LIST_OFFSETS, version, vals)["Topics"][0]["Partitions"][0]
    return (p["ErrorCode"], p["Timestamp"], p["Offset"], p.get("LeaderEpoch"))


def fill(port, topic):
    """Offsets 0-2 at 1000/1300/1100, 3-4 at 2000/2005, 5-6 at 1200/1500 on
    partition 0; partition 1 stays empty. Waits until all 7 are visible."""
    deadline = time.monotonic() + 30
    while True:  # Kafka: the new leader may not take writes for a moment
        got = produce(port, topic, 0, batch(1000, [0, 300, 100]))
        if got[0] not in (5, 6):  # LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER
            break
        assert time.monotonic() < deadline, f"produce kept failing: {got}"
        time.sleep(0.1)
    assert got == (NONE, 0)
    assert produce(port, topic, 0, batch(2000, [0, 5])) == (NONE, 3)
    assert produce(port, topic, 0, batch(1200, [0, 300])) == (NONE, 5)
    deadline = time.monotonic() + 10
    while list_offsets(port, 11, topic, -1)[2] != 7:  # Spool: visible after its fsync
        assert time.monotonic() < deadline, "high watermark did not reach 7"
        time.sleep(0.05)


def test_list_offsets_special_timestamps(broker, topic):
    port = port_of(broker)
    create(port, topic, 2)
    fill(port, topic)
    epoch = list_offsets(port, 11, topic, -1)[3]
    assert epoch >= 0
    assert list_offsets(port, 11, topic, -2) == (NONE, -1, 0, epoch)       # EARLIEST
    assert list_offsets(port, 11, topic, -3) == (NONE, 2005, 4, epoch)     # MAX_TIMESTAMP
    assert list_offsets(port, 11, topic, -4) == (NONE, -1, 0, epoch)       # EARLIEST_LOCAL
    assert list_offsets(port, 11, topic, -5) == (NONE, -1, -1, -1)         # LATEST_TIERED: nothing tiered
    assert list_offsets(port, 11, topic, -6) == (NONE, -1, -1, -1)         # EARLIEST_PENDING_UPLOAD
    assert list_offsets(port, 11, topic, 1150) == (NONE, 1300, 1, epoch)   # a record inside its batch
    assert list_offsets(port, 11, topic, 2001) == (NONE, 2005, 4, epoch)
    assert list_offsets(port, 11, topic, 99999) == (NONE, -1, -1, -1)
    # Each special timestamp from the version that introduced it; before it
    # (and any other negative value) UNSUPPORTED_VERSION.
    for ts, first in ((-3, 7), (-4, 8), (-5, 9), (-6, 11)):
        assert list_offsets(port, first - 1, topic, ts) == (UNSUPPORTED_VERSION, -1, -1, -1), ts
    assert list_offsets(port, 7, topic, -3) == (NONE, 2005, 4, epoch)
    assert list_offsets(port, 8, topic, -4) == (NONE, -1, 0, epoch)
    assert list_offsets(port, 9, topic, -5) == (NONE, -1, -1, -1)
    assert list_offsets(port, 11, topic, -7) == (UNSUPPORTED_VERSION, -1, -1, -1)
    # v6 (first flexible) and v10 (TimeoutMs) answer the classic ones.
    assert list_offsets(port, 6, topic, -1) == (NONE, -1, 7, epoch)
    assert list_offsets(port, 10, topic, -2) == (NONE, -1, 0, epoch)
    # The empty partition.
    assert list_offsets(port, 11, topic, -3, partition=1) == (NONE, -1, -1, -1)
    assert list_offsets(port, 11, topic, -1, partition=1) == (NONE, -1, 0, epoch)
    assert list_offsets(port, 11, topic, -4, partition=1) == (NONE, -1, 0, epoch)
    # Fencing (v4+): a newer current epoch is unknown; the right one passes.
    assert list_offsets(port, 11, topic, -1, current_epoch=epoch + 1) == (UNKNOWN_EPOCH, -1, -1, -1)
    assert list_offsets(port, 11, topic, -1, current_epoch=epoch) == (NONE, -1, 7, epoch)
    if epoch > 0:
        assert list_offsets(port, 11, topic, -1, current_epoch=epoch - 1)[0] == FENCED_EPOCH
    assert list_offsets(port, 11, topic, -3, partition=9) == (UNKNOWN_TOPIC, -1, -1, -1)
    # A partition listed twice: answered once, INVALID_REQUEST.
    with Conn(port) as conn:
        r = conn.call(LIST_OFFSETS, 11, {"ReplicaId": -1, "IsolationLevel": 0, "TimeoutMs": 5000, "Topics": [
            {"Name": topic, "Partitions": [{"PartitionIndex": 0, "CurrentLeaderEpoch": -1, "Timestamp": -1},
                                           {"PartitionIndex": 0, "CurrentLeaderEpoch": -1, "Timestamp": -2},
                                           {"PartitionIndex": 1, "CurrentLeaderEpoch": -1, "Timestamp": -1}]}]})
    # (Kafka orders the answers its own way.)
    assert sorted((p["PartitionIndex"], p["ErrorCode"], p["Offset"]) for t in r["Topics"] for p in t["Partitions"]) == \
        [(0, INVALID_REQUEST, -1), (1, NONE, 0)]
    # Followers and debug consumers (ReplicaId != -1) read up to the log end.
    assert list_offsets(port, 11, topic, -1, replica_id=-2)[:3] == (NONE, -1, 7)


# ---------------------------------------------------------------- OffsetForLeaderEpoch

def ofle(port, version, topic, leader_epoch, current_epoch=-1, partition=0, replica_id=-1):
    vals = {"ReplicaId": replica_id, "Topics": [{"Topic": topic, "Partitions": [
        {"Partition": partition, "CurrentLeaderEpoch": current_epoch, "LeaderEpoch": leader_epoch}]}]}
    with Conn(port) as c:
        p = c.call(OFFSET_FOR_LEADER_EPOCH, version, vals)["Topics"][0]["Partitions"][0]
    assert p["Partition"] == partition
    return (p["ErrorCode"], p["LeaderEpoch"], p["EndOffset"])


def test_offset_for_leader_epoch(broker, topic):
    port = port_of(broker)
    create(port, topic, 2)
    fill(port, topic)
    epoch = list_offsets(port, 11, topic, -1)[3]
    # The current epoch ends at the log end offset (for consumers too: not
    # bounded by the high watermark), in every served version.
    for v, rid in ((2, -1), (3, -2), (3, -1), (4, -1), (4, 5)):
        assert ofle(port, v, topic, epoch, replica_id=rid) == (NONE, epoch, 7), (v, rid)
    assert ofle(port, 4, topic, epoch, current_epoch=epoch) == (NONE, epoch, 7)
    # An epoch newer than any known, or -1: -1/-1 without error.
    assert ofle(port, 4, topic, epoch + 1) == (NONE, -1, -1)
    assert ofle(port, 4, topic, -1) == (NONE, -1, -1)
    # An empty partition still knows its current epoch.
    assert ofle(port, 4, topic, epoch, partition=1) == (NONE, epoch, 0)
    # Fencing on CurrentLeaderEpoch.
    assert ofle(port, 4, topic, epoch, current_epoch=epoch + 1) == (UNKNOWN_EPOCH, -1, -1)
    if epoch > 0:
        assert ofle(port, 4, topic, epoch, current_epoch=epoch - 1) == (FENCED_EPOCH, -1, -1)
    assert ofle(port, 4, topic, epoch, partition=9) == (UNKNOWN_TOPIC, -1, -1)
    assert ofle(port, 4, "no-such-" + topic, epoch) == (UNKNOWN_TOPIC, -1, -1)


# ---------------------------------------------------------------- DescribeTopicPartitions

def dtp(port, names, limit=2000, cursor=None):
    with Conn(port) as c:
        r = c.call(DESCRIBE_TOPIC_PARTITIONS, 0, {"Topics": [{"Name": n} for n in names],
                                                  "ResponsePartitionLimit": limit, "Cursor": cursor})
    return r


def pages(r):
    return [(t["ErrorCode"], t["Name"], [p["PartitionIndex"] for p in t["Partitions"]]) for t in r["Topics"]]


def test_describe_topic_partitions_paging(broker, topic):
    port = port_of(broker)
    a, b, c = topic + "-a", topic + "-b", topic + "-c"
    ids = {a: create(port, a, 3), b: create(port, b, 1), c: create(port, c, 2)}
    missing = topic + "-x"
    names = [c, missing, a, b]  # answered in name order
    r = dtp(port, names)
    assert pages(r) == [(NONE, a, [0, 1, 2]), (NONE, b, [0]), (NONE, c, [0, 1]), (UNKNOWN_TOPIC, missing, [])]
    assert r["NextCursor"] is None
    t0 = r["Topics"][0]
    assert (t0["TopicId"], t0["IsInternal"], t0["TopicAuthorizedOperations"]) == (ids[a], False, TOPIC_OPS)
    node = metadata(port, 12, [])["Brokers"][0]["NodeId"]
    p0 = t0["Partitions"][0]
    assert (p0["LeaderId"], p0["ReplicaNodes"], p0["IsrNodes"], p0["EligibleLeaderReplicas"], p0["LastKnownElr"],
            p0["OfflineReplicas"]) == (node, [node], [node], [], [], [])
    # Paging by 2 partitions, following NextCursor across topics.
    seen, cursors, cursor = [], [], None
    for _ in range(10):
        r = dtp(port, [a, b, c], limit=2, cursor=cursor)
        seen += [(t["Name"], p["PartitionIndex"]) for t in r["Topics"] for p in t["Partitions"]]
        cursor = r["NextCursor"]
        if cursor is None:
            break
        cursors.append((cursor["TopicName"], cursor["PartitionIndex"]))
    assert seen == [(a, 0), (a, 1), (a, 2), (b, 0), (c, 0), (c, 1)]
    assert cursors == [(a, 2), (c, 0)]
    # Filling the limit exactly at a topic's end points at the next topic.
    assert dtp(port, [a, b, c], limit=3)["NextCursor"] == {"TopicName": b, "PartitionIndex": 0}
    r = dtp(port, [a, b, c], limit=3, cursor={"TopicName": b, "PartitionIndex": 0})
    assert pages(r) == [(NONE, b, [0]), (NONE, c, [0, 1])] and r["NextCursor"] is None
    # A cursor past the topic's partitions: that topic with none.
    r = dtp(port, [a, b, c], limit=1, cursor={"TopicName": a, "PartitionIndex": 5})
    assert pages(r) == [(NONE, a, []), (NONE, b, [0])]
    assert r["NextCursor"] == {"TopicName": c, "PartitionIndex": 0}
    # A limit below 1 is 1.
    r = dtp(port, [a], limit=0)
    assert pages(r) == [(NONE, a, [0])] and r["NextCursor"] == {"TopicName": a, "PartitionIndex": 1}
    # A cursor topic not among the names, or a negative partition: every
    # requested topic is INVALID_REQUEST.
    for bad in ({"TopicName": topic + "-aa", "PartitionIndex": 0}, {"TopicName": a, "PartitionIndex": -1}):
        r = dtp(port, [a, c], limit=2, cursor=bad)
        assert [(t["ErrorCode"], t["Name"], t["Partitions"], t["TopicAuthorizedOperations"]) for t in r["Topics"]] == \
            [(INVALID_REQUEST, a, [], INT_MIN), (INVALID_REQUEST, c, [], INT_MIN)]
        assert r["NextCursor"] is None
    assert pages(dtp(port, ["bad name!"])) == [(INVALID_TOPIC, "bad name!", [])]
    # Every topic (empty list) from a cursor: ours in order, then others.
    r = dtp(port, [], limit=2000, cursor={"TopicName": a, "PartitionIndex": 1})
    listed = [x for x in pages(r) if x[1] in (a, b, c)]
    assert listed == [(NONE, a, [1, 2]), (NONE, b, [0]), (NONE, c, [0, 1])]
    assert all(t["Name"] >= a for t in r["Topics"])


# ---------------------------------------------------------------- DeleteTopics

def delete(port, version, **kw):
    vals = {"TimeoutMs": 15000}
    vals.update(kw)
    with Conn(port) as c:
        return c.call(DELETE_TOPICS, version, vals)["Responses"]


def wait_gone(port, name):
    deadline = time.monotonic() + 30
    while metadata(port, 12, [{"Name": name}])["Topics"][0]["ErrorCode"] != UNKNOWN_TOPIC:
        assert time.monotonic() < deadline, f"{name} still listed"
        time.sleep(0.1)


def test_delete_topics_by_id_and_recreate(broker, topic):
    port = port_of(broker)
    by_id, by_name = topic + "-i", topic + "-n"
    old_id = create(port, by_id, 1)
    name_id = create(port, by_name, 1)
    unknown = uuid.uuid4()
    r = delete(port, 6, Topics=[{"Name": None, "TopicId": old_id}, {"Name": None, "TopicId": unknown},
                                {"Name": by_name, "TopicId": None}, {"Name": "no-such-" + topic, "TopicId": None}])
    # Kafka's controller answers in no particular order.
    got = {(x["Name"], x["TopicId"]): (x["ErrorCode"], x["ErrorMessage"]) for x in r}
    assert len(r) == 4
    assert got == {(by_id, old_id): (NONE, None), (None, unknown): (UNKNOWN_TOPIC_ID, "This server does not host this topic ID."),
                   (by_name, name_id): (NONE, None),
                   ("no-such-" + topic, ZERO_ID): (UNKNOWN_TOPIC, "This server does not host this topic-partition.")}
    wait_gone(port, by_id)
    assert delete(port, 6, Topics=[{"Name": by_name, "TopicId": name_id}]) == [
        {"Name": by_name, "TopicId": name_id, "ErrorCode": INVALID_REQUEST,
         "ErrorMessage": "You may not specify both topic name and topic id."}]
    assert delete(port, 6, Topics=[{"Name": None, "TopicId": None}]) == [
        {"Name": None, "TopicId": ZERO_ID, "ErrorCode": INVALID_REQUEST,
         "ErrorMessage": "Neither topic name nor id were specified."}]
    # Re-created: a new id; the old one finds nothing, for Metadata and DeleteTopics.
    new_id = create(port, by_id, 1)
    assert new_id not in (old_id, ZERO_ID)
    assert summary(metadata(port, 12, [{"Name": None, "TopicId": old_id}])) == [(UNKNOWN_TOPIC_ID, None, old_id, 0, INT_MIN)]
    assert delete(port, 6, Topics=[{"Name": None, "TopicId": old_id}]) == [
        {"Name": None, "TopicId": old_id, "ErrorCode": UNKNOWN_TOPIC_ID,
         "ErrorMessage": "This server does not host this topic ID."}]
    # v5: ErrorMessage; v4: none on the wire.
    assert delete(port, 5, TopicNames=["no-such-" + topic]) == [
        {"Name": "no-such-" + topic, "ErrorCode": UNKNOWN_TOPIC,
         "ErrorMessage": "This server does not host this topic-partition."}]
    assert delete(port, 4, TopicNames=[by_id]) == [{"Name": by_id, "ErrorCode": NONE}]
    wait_gone(port, by_id)


# ---------------------------------------------------------------- ApiVersions, DescribeCluster

def api_versions(port, version, **kw):
    vals = {"ClientSoftwareName": "spool-test", "ClientSoftwareVersion": "1.0", "ClusterId": None, "NodeId": -1}
    vals.update(kw)
    with Conn(port) as c:
        r = c.call(API_VERSIONS, version, vals)
    return r["ErrorCode"], {a["ApiKey"]: (a["MinVersion"], a["MaxVersion"]) for a in r["ApiKeys"]}


def test_api_versions_v4_v5(broker):
    port = port_of(broker)
    md = metadata(port, 12, [])
    cluster, node = md["ClusterId"], md["Brokers"][0]["NodeId"]
    err, apis = api_versions(port, 4)
    assert err == NONE
    # The ranges of this area's APIs are Kafka 4.4's.
    assert {k: apis[k] for k in (2, 3, 18, 20, 23, 60, 75)} == {
        2: (1, 11), 3: (0, 13), 18: (0, 5), 20: (1, 6), 23: (2, 4), 60: (0, 2), 75: (0, 0)}
    assert api_versions(port, 5)[1] == apis  # no ClusterId/NodeId: no check
    assert api_versions(port, 5, ClusterId=cluster, NodeId=node) == (NONE, apis)
    assert api_versions(port, 5, ClusterId=cluster, NodeId=node + 1) == (REBOOTSTRAP, {})
    assert api_versions(port, 5, ClusterId="not-" + cluster, NodeId=node) == (REBOOTSTRAP, {})
    assert api_versions(port, 5, ClusterId=cluster, NodeId=-1) == (INVALID_REQUEST, {})
    assert api_versions(port, 5, ClusterId=None, NodeId=node) == (INVALID_REQUEST, {})
    for bad in ("", "-x", "a b", "x-"):
        assert api_versions(port, 3, ClientSoftwareName=bad) == (INVALID_REQUEST, {}), bad


def describe_cluster(port, version, **kw):
    with Conn(port) as c:
        return c.call(DESCRIBE_CLUSTER, version, kw)


def test_describe_cluster_v1_v2(broker):
    port = port_of(broker)
    md = metadata(port, 12, [])
    node = md["Brokers"][0]
    r = describe_cluster(port, 2, IncludeClusterAuthorizedOperations=True, EndpointType=1, IncludeFencedBrokers=True)
    assert (r["ErrorCode"], r["EndpointType"], r["ClusterId"], r["ClusterAuthorizedOperations"]) == \
        (NONE, 1, md["ClusterId"], CLUSTER_OPS)
    assert [(b["BrokerId"], b["Host"], b["Port"], b["IsFenced"]) for b in r["Brokers"]] == \
        [(node["NodeId"], node["Host"], node["Port"], False)]
    r = describe_cluster(port, 1, EndpointType=1)
    assert (r["ErrorCode"], r["ClusterAuthorizedOperations"], len(r["Brokers"])) == (NONE, INT_MIN, 1)
    r = describe_cluster(port, 1, EndpointType=2)
    assert (r["ErrorCode"], r["ErrorMessage"], r["EndpointType"], r["ClusterId"], r["ControllerId"], r["Brokers"]) == (
        MISMATCHED_ENDPOINT,
        "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER",
        1, "", -1, [])
    for t in (0, 3):
        r = describe_cluster(port, 2, EndpointType=t)
        assert (r["ErrorCode"], r["ErrorMessage"], r["Brokers"]) == (UNSUPPORTED_ENDPOINT,
                                                                     f"Unsupported endpoint type {t}", [])


@pytest.mark.parametrize("version", [0, 9, 13])
def test_metadata_lists_this_broker(broker, version):
    port = port_of(broker)
    r = metadata(port, version, [] if version == 0 else None)
    assert len(r["Brokers"]) == 1 and r["Brokers"][0]["Port"] == port
    if version >= 13:
        assert r["ErrorCode"] == NONE


def test_metadata_v13_librdkafka_all_topics_frame(broker, topic):
    """librdkafka 2.16 asks for all topics at v9+ with a 4-byte placeholder
    for the compact array count (00 00 00 00, then allow=1, ops=0, tags);
    Kafka reads a null array and ignores the three bytes left over."""
    import struct
    from kafka_wire import connect, read_frame
    port = port_of(broker)
    create(port, topic, 1)
    head = struct.pack(">hhi", 3, 13, 77) + struct.pack(">h", 7) + b"rdkafka" + b"\x00"
    payload = head + bytes.fromhex("00000000010000")
    s = connect(port)
    try:
        s.sendall(struct.pack(">i", len(payload)) + payload)
        frame = read_frame(s)
    finally:
        s.close()
    assert frame is not None, "connection closed instead of an answer"
    assert struct.unpack(">i", frame[:4])[0] == 77
    assert topic.encode() in frame  # every topic listed
