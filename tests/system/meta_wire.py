"""A small schema-driven Kafka wire codec for the metadata-API version tests
(test_meta_versions.py): Metadata, ListOffsets, OffsetForLeaderEpoch,
DescribeTopicPartitions, ApiVersions, DescribeCluster, DeleteTopics and
CreateTopics/Produce helpers they need. Schemas are written here from the
public protocol description, independent of the broker's own definitions, so
a wrong definition in the broker cannot hide behind the same mistake here.

A schema is a list of fields (name, type, lo, hi): the field is on the wire
in versions lo..hi (hi None = open). Types: i8 i16 i32 i64 bool uuid str
(nullable where the value is None), [T] arrays (T a type or a schema; None
value = null array), ("struct", schema), ("nstruct", schema) (int8 marker -1
null / 1 present). Flexible versions use compact types and tag sections;
tagged fields are returned raw as {"_tags": {tag: bytes}}."""

import socket
import struct
import uuid as uuidlib

from kafka_wire import read_frame, uvarint


def _on(f, v):
    _, _, lo, hi = f
    return v >= lo and (hi is None or v <= hi)


class Codec:
    def __init__(self, version, flexible):
        self.v = version
        self.flex = flexible

    # ---- encode ----
    def enc_len(self, n, nullable_null=False):
        if self.flex:
            return uvarint(0 if nullable_null else n + 1)
        return struct.pack(">i", -1 if nullable_null else n)

    def enc_str(self, s):
        if s is None:
            return uvarint(0) if self.flex else struct.pack(">h", -1)
        b = s.encode()
        return (uvarint(len(b) + 1) if self.flex else struct.pack(">h", len(b))) + b

    def enc_value(self, t, x):
        if t == "i8":
            return struct.pack(">b", x)
        if t == "i16":
            return struct.pack(">h", x)
        if t == "i32":
            return struct.pack(">i", x)
        if t == "i64":
            return struct.pack(">q", x)
        if t == "bool":
            return b"\x01" if x else b"\x00"
        if t == "uuid":
            return (x or uuidlib.UUID(int=0)).bytes
        if t == "str":
            return self.enc_str(x)
        if isinstance(t, list) and len(t) == 1 and not isinstance(t[0], tuple):  # array
            if x is None:
                return self.enc_len(0, nullable_null=True)
            return self.enc_len(len(x)) + b"".join(self.enc_value(t[0], e) for e in x)
        if isinstance(t, tuple) and t[0] == "struct":
            return self.encode(t[1], x)
        if isinstance(t, tuple) and t[0] == "nstruct":
            if x is None:
                return b"\xff"
            return b"\x01" + self.encode(t[1], x)
        if isinstance(t, list):  # an inline schema (array element)
            return self.encode(t, x)
        raise ValueError(f"bad type {t}")

    def encode(self, schema, values):
        out = b""
        for f in schema:
            if not _on(f, self.v):
                continue
            name, t = f[0], f[1]
            out += self.enc_value(t, values.get(name, _default(t)))
        if self.flex:
            out += uvarint(0)
        return out

    # ---- decode ----
    def dec_uvarint(self, r):
        shift = n = 0
        while True:
            b = r.take(1)[0]
            n |= (b & 0x7F) << shift
            if not b & 0x80:
                return n
            shift += 7

    def dec_len(self, r):
        if self.flex:
            return self.dec_uvarint(r) - 1
        return struct.unpack(">i", r.take(4))[0]

    def dec_value(self, t, r):
        if isinstance(t, str) and t in _FIXED:
            fmt = _FIXED[t]
            return struct.unpack(fmt, r.take(struct.calcsize(fmt)))[0]
        if t == "bool":
            return r.take(1) != b"\x00"
        if t == "uuid":
            return uuidlib.UUID(bytes=r.take(16))
        if t == "str":
            n = self.dec_uvarint(r) - 1 if self.flex else struct.unpack(">h", r.take(2))[0]
            return None if n < 0 else r.take(n).decode()
        if isinstance(t, tuple) and t[0] == "struct":
            return self.decode(t[1], r)
        if isinstance(t, tuple) and t[0] == "nstruct":
            return None if struct.unpack(">b", r.take(1))[0] < 0 else self.decode(t[1], r)
        if isinstance(t, list) and len(t) == 1 and not isinstance(t[0], tuple):
            n = self.dec_len(r)
            if n < 0:
                return None
            return [self.dec_value(t[0], r) for _ in range(n)]
        if isinstance(t, list):
            return self.decode(t, r)
        raise ValueError(f"bad type {t}")

    def decode(self, schema, r):
        out = {}
        for f in schema:
            if _on(f, self.v):
                out[f[0]] = self.dec_value(f[1], r)
        if self.flex:
            tags = {}
            for _ in range(self.dec_uvarint(r)):
                tag = self.dec_uvarint(r)
                tags[tag] = r.take(self.dec_uvarint(r))
            if tags:
                out["_tags"] = tags
        return out


_FIXED = {"i8": ">b", "i16": ">h", "i32": ">i", "i64": ">q"}


def _default(t):
    if t in ("i8", "i16", "i32", "i64"):
        return 0
    if t == "bool":
        return False
    if t == "str":
        return ""
    if t == "uuid":
        return None
    if isinstance(t, tuple) and t[0] == "nstruct":
        return None
    if isinstance(t, tuple):
        return {}
    return []


class Buf:
    def __init__(self, data):
        self.data = data
        self.pos = 0

    def take(self, n):
        assert self.pos + n <= len(self.data), "response truncated"
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b


def A(schema):
    """An array of structs with this schema."""
    return [schema]


# ---- schemas (Kafka 4.4's message layouts) -----------------------------------

METADATA = {
    "key": 3, "flex": 9,
    "req": [("Topics", A([("TopicId", "uuid", 10, None), ("Name", "str", 0, None)]), 0, None),
            ("AllowAutoTopicCreation", "bool", 4, None),
            ("IncludeClusterAuthorizedOperations", "bool", 8, 10),
            ("IncludeTopicAuthorizedOperations", "bool", 8, None)],
    "resp": [("ThrottleTimeMs", "i32", 3, None),
             ("Brokers", A([("NodeId", "i32", 0, None), ("Host", "str", 0, None), ("Port", "i32", 0, None),
                            ("Rack", "str", 1, None)]), 0, None),
             ("ClusterId", "str", 2, None), ("ControllerId", "i32", 1, None),
             ("Topics", A([("ErrorCode", "i16", 0, None), ("Name", "str", 0, None),
                           ("TopicId", "uuid", 10, None), ("IsInternal", "bool", 1, None),
                           ("Partitions", A([("ErrorCode", "i16", 0, None), ("PartitionIndex", "i32", 0, None),
                                             ("LeaderId", "i32", 0, None), ("LeaderEpoch", "i32", 7, None),
                                             ("ReplicaNodes", ["i32"], 0, None), ("IsrNodes", ["i32"], 0, None),
                                             ("OfflineReplicas", ["i32"], 5, None)]), 0, None),
                           ("TopicAuthorizedOperations", "i32", 8, None)]), 0, None),
             ("ClusterAuthorizedOperations", "i32", 8, 10),
             ("ErrorCode", "i16", 13, None)],
}

LIST_OFFSETS = {
    "key": 2, "flex": 6,
    "req": [("ReplicaId", "i32", 0, None), ("IsolationLevel", "i8", 2, None),
            ("Topics", A([("Name", "str", 0, None),
                          ("Partitions", A([("PartitionIndex", "i32", 0, None),
                                            ("CurrentLeaderEpoch", "i32", 4, None),
                                            ("Timestamp", "i64", 0, None)]), 0, None)]), 0, None),
            ("TimeoutMs", "i32", 10, None)],
    "resp": [("ThrottleTimeMs", "i32", 2, None),
             ("Topics", A([("Name", "str", 0, None),
                           ("Partitions", A([("PartitionIndex", "i32", 0, None), ("ErrorCode", "i16", 0, None),
                                             ("Timestamp", "i64", 1, None), ("Offset", "i64", 1, None),
                                             ("LeaderEpoch", "i32", 4, None)]), 0, None)]), 0, None)],
}

OFFSET_FOR_LEADER_EPOCH = {
    "key": 23, "flex": 4,
    "req": [("ReplicaId", "i32", 3, None),
            ("Topics", A([("Topic", "str", 0, None),
                          ("Partitions", A([("Partition", "i32", 0, None), ("CurrentLeaderEpoch", "i32", 2, None),
                                            ("LeaderEpoch", "i32", 0, None)]), 0, None)]), 0, None)],
    "resp": [("ThrottleTimeMs", "i32", 2, None),
             ("Topics", A([("Topic", "str", 0, None),
                           ("Partitions", A([("ErrorCode", "i16", 0, None), ("Partition", "i32", 0, None),
                                             ("LeaderEpoch", "i32", 1, None), ("EndOffset", "i64", 0, None)]),
                            0, None)]), 0, None)],
}

_CURSOR = [("TopicName", "str", 0, None), ("PartitionIndex", "i32", 0, None)]
DESCRIBE_TOPIC_PARTITIONS = {
    "key": 75, "flex": 0,
    "req": [("Topics", A([("Name", "str", 0, None)]), 0, None),
            ("ResponsePartitionLimit", "i32", 0, None),
            ("Cursor", ("nstruct", _CURSOR), 0, None)],
    "resp": [("ThrottleTimeMs", "i32", 0, None),
             ("Topics", A([("ErrorCode", "i16", 0, None), ("Name", "str", 0, None), ("TopicId", "uuid", 0, None),
                           ("IsInternal", "bool", 0, None),
                           ("Partitions", A([("ErrorCode", "i16", 0, None), ("PartitionIndex", "i32", 0, None),
                                             ("LeaderId", "i32", 0, None), ("LeaderEpoch", "i32", 0, None),
                                             ("ReplicaNodes", ["i32"], 0, None), ("IsrNodes", ["i32"], 0, None),
                                             ("EligibleLeaderReplicas", ["i32"], 0, None),
                                             ("LastKnownElr", ["i32"], 0, None),
                                             ("OfflineReplicas", ["i32"], 0, None)]), 0, None),
                           ("TopicAuthorizedOperations", "i32", 0, None)]), 0, None),
             ("NextCursor", ("nstruct", _CURSOR), 0, None)],
}

API_VERSIONS = {
    "key": 18, "flex": 3,
    "req": [("ClientSoftwareName", "str", 3, None), ("ClientSoftwareVersion", "str", 3, None),
            ("ClusterId", "str", 5, None), ("NodeId", "i32", 5, None)],
    "resp": [("ErrorCode", "i16", 0, None),
             ("ApiKeys", A([("ApiKey", "i16", 0, None), ("MinVersion", "i16", 0, None),
                            ("MaxVersion", "i16", 0, None)]), 0, None),
             ("ThrottleTimeMs", "i32", 1, None)],
}

DESCRIBE_CLUSTER = {
    "key": 60, "flex": 0,
    "req": [("IncludeClusterAuthorizedOperations", "bool", 0, None), ("EndpointType", "i8", 1, None),
            ("IncludeFencedBrokers", "bool", 2, None)],
    "resp": [("ThrottleTimeMs", "i32", 0, None), ("ErrorCode", "i16", 0, None), ("ErrorMessage", "str", 0, None),
             ("EndpointType", "i8", 1, None), ("ClusterId", "str", 0, None), ("ControllerId", "i32", 0, None),
             ("Brokers", A([("BrokerId", "i32", 0, None), ("Host", "str", 0, None), ("Port", "i32", 0, None),
                            ("Rack", "str", 0, None), ("IsFenced", "bool", 2, None)]), 0, None),
             ("ClusterAuthorizedOperations", "i32", 0, None)],
}

DELETE_TOPICS = {
    "key": 20, "flex": 4,
    "req": [("Topics", A([("Name", "str", 6, None), ("TopicId", "uuid", 6, None)]), 6, None),
            ("TopicNames", ["str"], 0, 5), ("TimeoutMs", "i32", 0, None)],
    "resp": [("ThrottleTimeMs", "i32", 1, None),
             ("Responses", A([("Name", "str", 0, None), ("TopicId", "uuid", 6, None), ("ErrorCode", "i16", 0, None),
                              ("ErrorMessage", "str", 5, None)]), 0, None)],
}

CREATE_TOPICS = {
    "key": 19, "flex": 5,
    "req": [("Topics", A([("Name", "str", 0, None), ("NumPartitions", "i32", 0, None),
                          ("ReplicationFactor", "i16", 0, None),
                          ("Assignments", A([("PartitionIndex", "i32", 0, None), ("BrokerIds", ["i32"], 0, None)]),
                           0, None),
                          ("Configs", A([("Name", "str", 0, None), ("Value", "str", 0, None)]), 0, None)]), 0, None),
            ("TimeoutMs", "i32", 0, None), ("ValidateOnly", "bool", 1, None)],
    "resp": [("ThrottleTimeMs", "i32", 2, None),
             ("Topics", A([("Name", "str", 0, None), ("ErrorCode", "i16", 0, None), ("ErrorMessage", "str", 1, None)]),
              0, 4)],
}


# ---- round trips ---------------------------------------------------------------

class Conn:
    """One connection; call(api, version, values) -> decoded response body."""

    def __init__(self, port, timeout=10.0):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.s.settimeout(timeout)
        self.corr = 0

    def close(self):
        self.s.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send(self, api, version, values, client_id="spool-meta-test"):
        self.corr += 1
        flex = version >= api["flex"]
        cid = client_id.encode()
        head = struct.pack(">hhi", api["key"], version, self.corr) + struct.pack(">h", len(cid)) + cid
        if flex:
            head += b"\x00"
        payload = head + Codec(version, flex).encode(api["req"], values)
        self.s.sendall(struct.pack(">i", len(payload)) + payload)
        return self.corr

    def recv(self, api, version):
        frame = read_frame(self.s)
        if frame is None:
            return None
        r = Buf(frame)
        (corr,) = struct.unpack(">i", r.take(4))
        assert corr == self.corr, f"correlation id {corr}, expected {self.corr}"
        flex = version >= api["flex"]
        if flex and api["key"] != 18:  # ApiVersions answers with header v0
            Codec(version, True).decode([], r)
        body = Codec(version, flex).decode(api["resp"], r)
        if api["key"] != 18:
            assert r.pos == len(frame), f"{len(frame) - r.pos} trailing bytes"
        return body

    def call(self, api, version, values):
        self.send(api, version, values)
        out = self.recv(api, version)
        assert out is not None, "connection closed instead of an answer"
        return out


# ---- producing test data --------------------------------------------------------

def batch(base_ts, ts_deltas, values=None, log_append_time=False):
    """An uncompressed record batch v2 whose records carry base_ts + delta
    each (so the max timestamp can sit inside the batch)."""
    from kafka_wire import crc32c, record
    values = values or [b"v%d" % i for i in range(len(ts_deltas))]
    recs = b"".join(record(i, d, None, v) for i, (d, v) in enumerate(zip(ts_deltas, values)))
    attributes = 0x08 if log_append_time else 0
    after_crc = struct.pack(">hiqqqhii", attributes, len(ts_deltas) - 1, base_ts, base_ts + max(ts_deltas),
                            -1, -1, -1, len(ts_deltas)) + recs
    after_len = struct.pack(">ibI", -1, 2, crc32c(after_crc)) + after_crc
    return struct.pack(">qi", 0, len(after_len)) + after_len


def produce(port, topic, partition, batch_bytes, acks=-1):
    """Produce v3 of one batch; -> (error_code, base_offset)."""
    from kafka_wire import connect, parse_produce_v3, produce_v3, roundtrip
    s = connect(port)
    try:
        _, out = parse_produce_v3(roundtrip(s, produce_v3(1, topic, partition, batch_bytes, acks=acks)))
        return out[(topic, partition)]
    finally:
        s.close()
