"""Hand-built frames for the consumer-group APIs (issue 5), written from the
public protocol description, on top of kafka_wire's header and reader:
FindCoordinator v0-2, JoinGroup v0-5, SyncGroup v0-3, Heartbeat v0-3,
LeaveGroup v0-3, OffsetCommit v2-7, OffsetFetch v1-5 and DeleteTopics v1
(all non-flexible), plus the consumer protocol's subscription/assignment
bytes."""

import struct

from kafka_wire import Reader, request, string

# Kafka error codes used by the group tests.
NONE = 0
COORDINATOR_LOAD_IN_PROGRESS = 14
COORDINATOR_NOT_AVAILABLE = 15
NOT_COORDINATOR = 16
INVALID_TOPIC_EXCEPTION = 17
ILLEGAL_GENERATION = 22
UNKNOWN_MEMBER_ID = 25
UNKNOWN_TOPIC_OR_PARTITION = 3
INVALID_REQUEST = 42
MEMBER_ID_REQUIRED = 79


def nbytes(b):
    if b is None:
        return struct.pack(">i", -1)
    return struct.pack(">i", len(b)) + b


def array(items, enc):
    if items is None:
        return struct.pack(">i", -1)
    return struct.pack(">i", len(items)) + b"".join(enc(x) for x in items)


def read_bytes(r):
    n = r.take(">i")
    if n < 0:
        return None
    b = r.data[r.pos:r.pos + n]
    r.pos += n
    return bytes(b)


def _done(r, frame, api):
    assert r.pos == len(frame), f"{len(frame) - r.pos} trailing bytes in {api} response"


# --- consumer protocol (embedded in JoinGroup / SyncGroup) --------------------

def subscription(topics, user_data=b""):
    return struct.pack(">h", 0) + array(topics, string) + nbytes(user_data)


def assignment(parts, user_data=b""):
    """parts: {topic: [partitions]}"""
    body = array(sorted(parts.items()),
                 lambda tp: string(tp[0]) + array(tp[1], lambda p: struct.pack(">i", p)))
    return struct.pack(">h", 0) + body + nbytes(user_data)


# --- FindCoordinator ----------------------------------------------------------

def find_coordinator(corr, key, version=0, key_type=0):
    body = string(key)
    if version >= 1:
        body += struct.pack(">b", key_type)
    return request(10, version, corr, body)


def parse_find_coordinator(frame, version=0):
    """-> dict(corr, error, message, node_id, host, port)"""
    r = Reader(frame)
    out = {"corr": r.take(">i"), "message": None}
    if version >= 1:
        r.take(">i")  # throttle
    out["error"] = r.take(">h")
    if version >= 1:
        out["message"] = r.string()
    out["node_id"] = r.take(">i")
    out["host"] = r.string()
    out["port"] = r.take(">i")
    _done(r, frame, "FindCoordinator")
    return out


# --- JoinGroup / SyncGroup / Heartbeat / LeaveGroup -------------------------

def join_group(corr, group, member_id="", version=4, session_timeout_ms=30000, rebalance_timeout_ms=30000,
               protocol_type="consumer", protocols=(("range", b""),), instance_id=None):
    body = string(group) + struct.pack(">i", session_timeout_ms)
    if version >= 1:
        body += struct.pack(">i", rebalance_timeout_ms)
    body += string(member_id)
    if version >= 5:
        body += string(instance_id)
    body += string(protocol_type)
    body += array(list(protocols), lambda p: string(p[0]) + nbytes(p[1]))
    return request(11, version, corr, body)


def parse_join_group(frame, version=4):
    """-> dict(corr, error, generation, protocol, leader, member_id, members=[(id, instance, metadata)])"""
    r = Reader(frame)
    out = {"corr": r.take(">i")}
    if version >= 2:
        r.take(">i")
    out["error"] = r.take(">h")
    out["generation"] = r.take(">i")
    out["protocol"] = r.string()
    out["leader"] = r.string()
    out["member_id"] = r.string()
    members = []
    for _ in range(r.take(">i")):
        mid = r.string()
        inst = r.string() if version >= 5 else None
        members.append((mid, inst, read_bytes(r)))
    out["members"] = members
    _done(r, frame, "JoinGroup")
    return out


def sync_group(corr, group, generation, member_id, assignments=(), version=2, instance_id=None):
    body = string(group) + struct.pack(">i", generation) + string(member_id)
    if version >= 3:
        body += string(instance_id)
    body += array(list(assignments), lambda a: string(a[0]) + nbytes(a[1]))
    return request(14, version, corr, body)


def parse_sync_group(frame, version=2):
    """-> (corr, error, assignment bytes)"""
    r = Reader(frame)
    corr = r.take(">i")
    if version >= 1:
        r.take(">i")
    err = r.take(">h")
    a = read_bytes(r)
    _done(r, frame, "SyncGroup")
    return corr, err, a


def heartbeat(corr, group, generation, member_id, version=2, instance_id=None):
    body = string(group) + struct.pack(">i", generation) + string(member_id)
    if version >= 3:
        body += string(instance_id)
    return request(12, version, corr, body)


def parse_heartbeat(frame, version=2):
    r = Reader(frame)
    corr = r.take(">i")
    if version >= 1:
        r.take(">i")
    err = r.take(">h")
    _done(r, frame, "Heartbeat")
    return corr, err


def leave_group(corr, group, members, version=3):
    """members: [member_id] (v0-2 sends the first only) or [(member_id, instance_id)]."""
    body = string(group)
    if version >= 3:
        body += array(members, lambda m: string(m[0]) + string(m[1]))
    else:
        body += string(members[0])
    return request(13, version, corr, body)


def parse_leave_group(frame, version=3):
    """-> (corr, error, [(member_id, instance_id, error)])"""
    r = Reader(frame)
    corr = r.take(">i")
    if version >= 1:
        r.take(">i")
    err = r.take(">h")
    members = []
    if version >= 3:
        for _ in range(r.take(">i")):
            members.append((r.string(), r.string(), r.take(">h")))
    _done(r, frame, "LeaveGroup")
    return corr, err, members


# --- OffsetCommit / OffsetFetch ------------------------------------------------

def offset_commit(corr, group, offsets, version=2, generation=-1, member_id="", retention_ms=-1,
                  instance_id=None):
    """offsets: [(topic, partition, offset, metadata)] grouped by consecutive topic."""
    assert 2 <= version <= 7
    body = string(group) + struct.pack(">i", generation) + string(member_id)
    if version >= 7:
        body += string(instance_id)
    if version <= 4:
        body += struct.pack(">q", retention_ms)
    topics = []
    for t, p, off, meta in offsets:
        if not topics or topics[-1][0] != t:
            topics.append((t, []))
        topics[-1][1].append((p, off, meta))

    def part(x):
        p, off, meta = x
        b = struct.pack(">iq", p, off)
        if version >= 6:
            b += struct.pack(">i", -1)
        return b + string(meta)

    body += array(topics, lambda t: string(t[0]) + array(t[1], part))
    return request(8, version, corr, body)


def parse_offset_commit(frame, version=2):
    """-> (corr, {(topic, partition): error}) plus the order as a list"""
    r = Reader(frame)
    corr = r.take(">i")
    if version >= 3:
        r.take(">i")
    out = []
    for _ in range(r.take(">i")):
        name = r.string()
        for _ in range(r.take(">i")):
            idx, err = r.take(">ih")
            out.append(((name, idx), err))
    _done(r, frame, "OffsetCommit")
    return corr, out


def offset_fetch(corr, group, topics, version=1):
    """topics: [(topic, [partitions])] or None (v2+: every committed partition)."""
    assert 1 <= version <= 5
    body = string(group) + array(topics, lambda t: string(t[0]) + array(t[1], lambda p: struct.pack(">i", p)))
    return request(9, version, corr, body)


def parse_offset_fetch(frame, version=1):
    """-> dict(corr, error (v2+, else None), partitions=[(topic, partition, offset, metadata, error)])"""
    r = Reader(frame)
    out = {"corr": r.take(">i"), "error": None, "partitions": []}
    if version >= 3:
        r.take(">i")
    for _ in range(r.take(">i")):
        name = r.string()
        for _ in range(r.take(">i")):
            idx, off = r.take(">iq")
            if version >= 5:
                r.take(">i")
            meta = r.string()
            err = r.take(">h")
            out["partitions"].append((name, idx, off, meta, err))
    if version >= 2:
        out["error"] = r.take(">h")
    _done(r, frame, "OffsetFetch")
    return out


# --- DeleteTopics v1 ---------------------------------------------------------

def delete_topics(corr, names, timeout_ms=10000):
    return request(20, 1, corr, array(names, string) + struct.pack(">i", timeout_ms))


def parse_delete_topics(frame):
    r = Reader(frame)
    corr = r.take(">i")
    r.take(">i")
    out = {}
    for _ in range(r.take(">i")):
        name = r.string()
        out[name] = r.take(">h")
    _done(r, frame, "DeleteTopics")
    return corr, out


# --- DescribeGroups v0 / ListGroups v0 / DeleteGroups v0 -----------------------

def describe_groups(corr, groups):
    return request(15, 0, corr, array(groups, string))


def parse_describe_groups(frame):
    """-> (corr, [dict(error, group, state, protocol_type, protocol, members=[(id, client_id, host, meta, assign)])])"""
    r = Reader(frame)
    corr = r.take(">i")
    out = []
    for _ in range(r.take(">i")):
        d = {"error": r.take(">h"), "group": r.string(), "state": r.string(), "protocol_type": r.string(),
             "protocol": r.string(), "members": []}
        for _ in range(r.take(">i")):
            d["members"].append((r.string(), r.string(), r.string(), read_bytes(r), read_bytes(r)))
        out.append(d)
    _done(r, frame, "DescribeGroups")
    return corr, out


def list_groups(corr):
    return request(16, 0, corr, b"")


def parse_list_groups(frame):
    """-> (corr, error, {group: protocol_type})"""
    r = Reader(frame)
    corr, err = r.take(">ih")
    groups = {}
    for _ in range(r.take(">i")):
        name = r.string()
        groups[name] = r.string()
    _done(r, frame, "ListGroups")
    return corr, err, groups


def delete_groups(corr, groups):
    return request(42, 0, corr, array(groups, string))


def parse_delete_groups(frame):
    """-> (corr, {group: error})"""
    r = Reader(frame)
    corr = r.take(">i")
    r.take(">i")
    out = {}
    for _ in range(r.take(">i")):
        name = r.string()
        out[name] = r.take(">h")
    _done(r, frame, "DeleteGroups")
    return corr, out
