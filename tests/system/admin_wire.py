"""Hand-built frames for the admin APIs at Kafka 4.4's newest versions, written
from the public protocol description (the JSON message definitions), on top
of kafka_wire's header, compact types and FlexReader: CreateTopics v2-7,
DescribeConfigs v1-4, DescribeLogDirs v1-5, CreatePartitions v0-3,
DeleteRecords v0-2, AlterConfigs v0-2 and IncrementalAlterConfigs v0-1.
Each parser checks that the whole frame was consumed."""

import struct

from kafka_wire import FlexReader, compact_array, compact_string, request, request_flexible, string

# Kafka error codes used by these tests.
NONE = 0
OFFSET_OUT_OF_RANGE = 1
UNKNOWN_TOPIC_OR_PARTITION = 3
TOPIC_ALREADY_EXISTS = 36
INVALID_PARTITIONS = 37
INVALID_REPLICATION_FACTOR = 38
INVALID_CONFIG = 40
INVALID_REQUEST = 42

# ConfigSource ids (DescribeConfigsResponse) and ConfigType ids.
DYNAMIC_TOPIC_CONFIG = 1
STATIC_BROKER_CONFIG = 4
DEFAULT_CONFIG = 5
TYPE_IDS = {"BOOLEAN": 1, "STRING": 2, "INT": 3, "SHORT": 4, "LONG": 5, "DOUBLE": 6, "LIST": 7,
            "CLASS": 8, "PASSWORD": 9}

CLIENT_ID = "spool-admin-versions"


class Enc:
    """Encoders for one version: compact (flexible) or classic types."""

    def __init__(self, flexible):
        self.flex = flexible

    def str(self, s):
        return compact_string(s) if self.flex else string(s)

    def array(self, items, enc):
        if self.flex:
            return compact_array(items, enc)
        if items is None:
            return struct.pack(">i", -1)
        return struct.pack(">i", len(items)) + b"".join(enc(x) for x in items)

    def tags(self):
        return b"\x00" if self.flex else b""

    def frame(self, api_key, version, corr, body):
        if self.flex:
            return request_flexible(api_key, version, corr, body + b"\x00", client_id=CLIENT_ID)
        return request(api_key, version, corr, body, client_id=CLIENT_ID)


class Dec:
    """The matching reader; checks the response header and the end of the frame."""

    def __init__(self, frame, corr, flexible):
        self.r = FlexReader(frame)
        self.flex = flexible
        assert self.r.take(">i") == corr, "correlation id"
        if flexible:
            self.tags()

    def take(self, fmt):
        return self.r.take(fmt)

    def str(self):
        return self.r.compact_string() if self.flex else self.r.string()

    def array(self, item):
        n = self.r.compact_len() if self.flex else self.r.take(">i")
        return None if n < 0 else [item() for _ in range(n)]

    def tags(self):
        """-> {tag: raw bytes} of one tagged-field section (empty if not flexible)."""
        out = {}
        if not self.flex:
            return out
        for _ in range(self.r.uvarint()):
            tag, size = self.r.uvarint(), self.r.uvarint()
            out[tag] = self.r.data[self.r.pos:self.r.pos + size]
            self.r.pos += size
        return out

    def uuid(self):
        b = self.r.data[self.r.pos:self.r.pos + 16]
        self.r.pos += 16
        return b

    def end(self, what):
        self.tags()
        assert self.r.pos == len(self.r.data), f"{len(self.r.data) - self.r.pos} trailing bytes in {what}"


# --- CreateTopics (19) -----------------------------------------------------------

def create_topics(corr, version, topics, validate_only=False, timeout_ms=30000):
    """topics: [(name, partitions, replication_factor, {config: value})]"""
    e = Enc(version >= 5)

    def topic(t):
        name, parts, rf, configs = t
        cfg = e.array(sorted(configs.items()), lambda kv: e.str(kv[0]) + e.str(kv[1]) + e.tags())
        return e.str(name) + struct.pack(">ih", parts, rf) + e.array([], None) + cfg + e.tags()
    body = e.array(topics, topic) + struct.pack(">i?", timeout_ms, validate_only)
    return e.frame(19, version, corr, body)


def parse_create_topics(frame, corr, version):
    """-> {name: {...}} with the version's fields; configs as {name: (value, read_only, source, sensitive)}."""
    d = Dec(frame, corr, version >= 5)
    assert d.take(">i") == 0, "throttle time"

    def config():
        c = (d.str(), d.str(), d.take(">?"), d.take(">b"), d.take(">?"))
        d.tags()
        return c

    def topic():
        t = {"name": d.str()}
        if version >= 7:
            t["topic_id"] = d.uuid()
        t["error"] = d.take(">h")
        t["message"] = d.str()
        if version >= 5:
            t["num_partitions"], t["replication_factor"] = d.take(">ih")
            cfgs = d.array(config)
            t["configs"] = None if cfgs is None else {c[0]: c[1:] for c in cfgs}
            t["config_list"] = cfgs
            tags = d.tags()
            t["tags"] = tags
        return t
    answers = d.array(topic)
    d.end("CreateTopics response")
    return Answers({t["name"]: t for t in answers}, len(answers))


class Answers(dict):
    """Answers by name, plus how many entries the response had."""

    def __init__(self, by_name, count):
        super().__init__(by_name)
        self.answers = count


# --- DescribeConfigs (32) --------------------------------------------------------

def describe_configs(corr, version, resources, synonyms=False, documentation=False):
    """resources: [(type, name, keys or None)]"""
    e = Enc(version >= 4)

    def res(r):
        rtype, name, keys = r
        return struct.pack(">b", rtype) + e.str(name) + e.array(keys, e.str) + e.tags()
    body = e.array(resources, res) + struct.pack(">?", synonyms)
    if version >= 3:
        body += struct.pack(">?", documentation)
    return e.frame(32, version, corr, body)


def parse_describe_configs(frame, corr, version):
    """-> [{error, message, type, name, configs: {name: {...}}}] in answer order."""
    d = Dec(frame, corr, version >= 4)
    assert d.take(">i") == 0, "throttle time"

    def synonym():
        s = (d.str(), d.str(), d.take(">b"))
        d.tags()
        return s

    def entry():
        c = {"name": d.str(), "value": d.str(), "read_only": d.take(">?"), "source": d.take(">b"),
             "sensitive": d.take(">?"), "synonyms": d.array(synonym)}
        if version >= 3:
            c["type"] = d.take(">b")
            c["documentation"] = d.str()
        d.tags()
        return c

    def result():
        r = {"error": d.take(">h"), "message": d.str(), "type": d.take(">b"), "name": d.str()}
        r["configs"] = {c["name"]: c for c in d.array(entry)}
        d.tags()
        return r
    out = d.array(result)
    d.end("DescribeConfigs response")
    return out


# --- DescribeLogDirs (35) --------------------------------------------------------

def describe_log_dirs(corr, version, topics=None):
    """topics: {name: [partition]} or None for every partition."""
    e = Enc(version >= 2)
    items = None if topics is None else sorted(topics.items())
    body = e.array(items, lambda t: e.str(t[0]) + e.array(t[1], lambda p: struct.pack(">i", p)) + e.tags())
    return e.frame(35, version, corr, body)


def parse_describe_log_dirs(frame, corr, version):
    """-> (top-level error or None before v3, {log_dir: {error, partitions, total, usable, cordoned}})"""
    d = Dec(frame, corr, version >= 2)
    assert d.take(">i") == 0, "throttle time"
    top = d.take(">h") if version >= 3 else None

    def partition():
        p = d.take(">iqq?")
        d.tags()
        return p

    def topic():
        name = d.str()
        parts = d.array(partition)
        d.tags()
        return name, parts

    def result():
        r = {"error": d.take(">h"), "dir": d.str(), "partitions": {}}
        for name, parts in d.array(topic):
            for idx, size, lag, future in parts:
                r["partitions"][(name, idx)] = (size, lag, future)
        if version >= 4:
            r["total"], r["usable"] = d.take(">qq")
        if version >= 5:
            r["cordoned"] = d.take(">?")
        d.tags()
        return r
    dirs = {r["dir"]: r for r in d.array(result)}
    d.end("DescribeLogDirs response")
    return top, dirs


# --- CreatePartitions (37) -------------------------------------------------------

def create_partitions(corr, version, topics, validate_only=False, timeout_ms=30000):
    """topics: [(name, count, assignments or None)] with assignments [[broker ids]]"""
    e = Enc(version >= 2)

    def assignment(ids):
        return e.array(ids, lambda i: struct.pack(">i", i)) + e.tags()

    def topic(t):
        name, count, assignments = t
        return e.str(name) + struct.pack(">i", count) + e.array(assignments, assignment) + e.tags()
    body = e.array(topics, topic) + struct.pack(">i?", timeout_ms, validate_only)
    return e.frame(37, version, corr, body)


def parse_create_partitions(frame, corr, version):
    """-> {name: (error, message)}"""
    d = Dec(frame, corr, version >= 2)
    assert d.take(">i") == 0, "throttle time"

    def result():
        r = (d.str(), d.take(">h"), d.str())
        d.tags()
        return r
    answers = d.array(result)
    d.end("CreatePartitions response")
    return Answers({name: (err, msg) for name, err, msg in answers}, len(answers))


# --- DeleteRecords (21) ----------------------------------------------------------

def delete_records(corr, version, offsets, timeout_ms=30000):
    """offsets: {(topic, partition): offset}"""
    e = Enc(version >= 2)
    by_topic = {}
    for (t, p), off in sorted(offsets.items()):
        by_topic.setdefault(t, []).append((p, off))

    def topic(t):
        return e.str(t[0]) + e.array(t[1], lambda po: struct.pack(">iq", *po) + e.tags()) + e.tags()
    body = e.array(sorted(by_topic.items()), topic) + struct.pack(">i", timeout_ms)
    return e.frame(21, version, corr, body)


def parse_delete_records(frame, corr, version):
    """-> {(topic, partition): (low_watermark, error)}"""
    d = Dec(frame, corr, version >= 2)
    assert d.take(">i") == 0, "throttle time"
    out = {}

    def partition():
        p = d.take(">iqh")
        d.tags()
        return p

    def topic():
        name = d.str()
        for idx, low, err in d.array(partition):
            out[(name, idx)] = (low, err)
        d.tags()
    d.array(topic)
    d.end("DeleteRecords response")
    return out


# --- AlterConfigs (33) and IncrementalAlterConfigs (44) ----------------------------

SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3


def alter_configs(corr, version, resources, validate_only=False):
    """resources: [(type, name, {key: value})]"""
    e = Enc(version >= 2)

    def res(r):
        rtype, name, configs = r
        cfg = e.array(sorted(configs.items()), lambda kv: e.str(kv[0]) + e.str(kv[1]) + e.tags())
        return struct.pack(">b", rtype) + e.str(name) + cfg + e.tags()
    return e.frame(33, version, corr, e.array(resources, res) + struct.pack(">?", validate_only))


def incremental_alter_configs(corr, version, resources, validate_only=False):
    """resources: [(type, name, [(key, op, value)])]"""
    e = Enc(version >= 1)

    def op(o):
        key, kind, value = o
        return e.str(key) + struct.pack(">b", kind) + e.str(value) + e.tags()

    def res(r):
        rtype, name, ops = r
        return struct.pack(">b", rtype) + e.str(name) + e.array(ops, op) + e.tags()
    return e.frame(44, version, corr, e.array(resources, res) + struct.pack(">?", validate_only))


def parse_alter_configs(frame, corr, flexible):
    """Both APIs' answers -> {(type, name): (error, message)}"""
    d = Dec(frame, corr, flexible)
    assert d.take(">i") == 0, "throttle time"

    def response():
        err, msg, rtype, name = d.take(">h"), d.str(), d.take(">b"), d.str()
        d.tags()
        return (rtype, name), (err, msg)
    out = dict(d.array(response))
    d.end("AlterConfigs response")
    return out
