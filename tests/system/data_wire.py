"""Flexible-version frames for Produce v9-13 and Fetch v12-18 (and the
Metadata v12 request that names topic ids), hand-built from Kafka 4.4's
message specs so tests/system/test_data_versions.py sends exactly the bytes
it means. Only the encodings those tests need; kafka_wire.py holds the
shared basics (record batches, the frame reader, request header v2)."""

import struct

import kafka_wire as w


def compact_bytes(b):
    if b is None:
        return w.uvarint(0)
    return w.uvarint(len(b) + 1) + b


def tags(fields=()):
    """fields: [(tag, payload bytes)] in tag order."""
    return w.uvarint(len(fields)) + b"".join(w.uvarint(t) + w.uvarint(len(p)) + p for t, p in fields)


def flex_reader(frame):
    """A reader past the response header v1 (correlation id, tags)."""
    r = w.FlexReader(frame)
    corr = r.take(">i")
    r.tags()
    return r, corr


def read_tags(r):
    """{tag: payload bytes} of one tagged-field section."""
    out = {}
    for _ in range(r.uvarint()):
        tag = r.uvarint()
        size = r.uvarint()
        out[tag] = r.data[r.pos:r.pos + size]
        r.pos += size
    return out


def uuid_bytes(r):
    b = r.data[r.pos:r.pos + 16]
    r.pos += 16
    assert len(b) == 16
    return bytes(b)


# --- ApiVersions v0 / Metadata v12 --------------------------------------------

def api_versions(sock):
    """{api_key: (min, max)} the broker advertises."""
    frame = w.roundtrip(sock, w.request(18, 0, 99))
    _corr, err, apis = w.parse_api_versions_v0(frame)
    assert err == 0, err
    return apis


def metadata_v12(corr, topics):
    body = w.compact_array(topics, lambda t: b"\x00" * 16 + w.compact_string(t) + tags())
    body += b"\x00\x00" + tags()  # allow_auto_topic_creation, include_topic_authorized_operations
    return w.request_flexible(3, 12, corr, body)


def parse_metadata_v12(frame):
    """-> {name: (error, topic_id, {partition: leader_epoch})}"""
    r, _corr = flex_reader(frame)
    r.take(">i")  # throttle
    for _ in range(r.compact_len()):
        r.take(">i")
        r.compact_string()
        r.take(">i")
        r.compact_string()
        r.tags()
    r.compact_string()  # cluster id
    r.take(">i")  # controller
    out = {}
    for _ in range(r.compact_len()):
        err = r.take(">h")
        name = r.compact_string()
        tid = uuid_bytes(r)
        r.take(">B")  # is_internal
        parts = {}
        for _ in range(r.compact_len()):
            _perr, idx, _leader, epoch = r.take(">hiii")
            for _ in range(3):  # replicas, isr, offline
                for _ in range(r.compact_len()):
                    r.take(">i")
            r.tags()
            parts[idx] = epoch
        r.take(">i")  # authorized operations
        r.tags()
        out[name] = (err, tid, parts)
    r.tags()
    assert r.pos == len(frame), "trailing bytes in Metadata v12"
    return out


# --- Produce v9-13 --------------------------------------------------------------

def produce(corr, version, topic, partitions, acks=-1, timeout_ms=10000):
    """topic: a name (v9-12) or 16 id bytes (v13); partitions: [(index, records)]."""
    assert 9 <= version <= 13
    body = w.compact_string(None) + struct.pack(">hi", acks, timeout_ms)
    body += w.uvarint(2)
    body += topic if version >= 13 else w.compact_string(topic)
    body += w.compact_array(partitions, lambda p: struct.pack(">i", p[0]) + compact_bytes(p[1]) + tags())
    body += tags() + tags()
    return w.request_flexible(0, version, corr, body)


def parse_produce(frame, version):
    """-> dict(corr, topics=[dict(topic, partitions=[dict(index, error, base_offset,
    log_append_time, log_start_offset, error_message, current_leader)])], node_endpoints)"""
    r, corr = flex_reader(frame)
    out = {"corr": corr, "topics": [], "node_endpoints": None}
    for _ in range(r.compact_len()):
        topic = uuid_bytes(r) if version >= 13 else r.compact_string()
        parts = []
        for _ in range(r.compact_len()):
            idx, err, base, lat, lso = r.take(">ihqqq")
            for _ in range(r.compact_len()):
                r.take(">i")
                r.compact_string()
                r.tags()
            msg = r.compact_string()
            t = read_tags(r)
            leader = struct.unpack(">ii", t[0][:8]) if 0 in t else None
            parts.append({"index": idx, "error": err, "base_offset": base, "log_append_time": lat,
                          "log_start_offset": lso, "error_message": msg, "current_leader": leader})
        r.tags()
        out["topics"].append({"topic": topic, "partitions": parts})
    r.take(">i")  # throttle
    top = read_tags(r)
    if 0 in top:
        out["node_endpoints"] = top[0]
    assert r.pos == len(frame), "trailing bytes in Produce response"
    return out


# --- Fetch v12-18 ---------------------------------------------------------------

def fetch(corr, version, partitions, session_id=0, session_epoch=-1, forgotten=(), max_wait_ms=0,
          min_bytes=1, max_bytes=50 << 20, isolation=0, replica_state=None, high_watermark=None,
          directory_id=None, cluster_id=None):
    """partitions: [(topic, partition, fetch_offset, current_leader_epoch, last_fetched_epoch,
    partition_max_bytes)] with topic a name (v12) or 16 id bytes (v13+), sent grouped by
    consecutive topic; forgotten: [(topic, [partitions])]. replica_state (v15+): (id, epoch)
    sent explicitly; high_watermark (v18+) / directory_id (v17+): the follower tags."""
    assert 12 <= version <= 18
    body = b"" if version >= 15 else struct.pack(">i", -1)
    body += struct.pack(">iiibii", max_wait_ms, min_bytes, max_bytes, isolation, session_id, session_epoch)
    topics = []
    for t, p, off, cle, lfe, pmax in partitions:
        if not topics or topics[-1][0] != t:
            topics.append((t, []))
        topics[-1][1].append((p, off, cle, lfe, pmax))

    def name(t):
        return t if version >= 13 else w.compact_string(t)

    def part(x):
        p, off, cle, lfe, pmax = x
        ptags = []
        if version >= 17 and directory_id is not None:
            ptags.append((0, directory_id))
        if version >= 18 and high_watermark is not None:
            ptags.append((1, struct.pack(">q", high_watermark)))
        return struct.pack(">iiqiqi", p, cle, off, lfe, -1, pmax) + tags(ptags)

    body += w.compact_array(topics, lambda t: name(t[0]) + w.compact_array(t[1], part) + tags())
    body += w.compact_array(list(forgotten), lambda f: name(f[0]) + w.compact_array(
        f[1], lambda p: struct.pack(">i", p)) + tags())
    body += w.compact_string("")  # rack id
    top = []
    if cluster_id is not None:
        top.append((0, w.compact_string(cluster_id)))
    if version >= 15 and replica_state is not None:
        top.append((1, struct.pack(">iq", *replica_state) + tags()))
    body += tags(top)
    return w.request_flexible(1, version, corr, body)


def parse_fetch(frame, version):
    """-> dict(corr, error, session_id, partitions=[dict(topic, partition, error, high_watermark,
    last_stable_offset, log_start_offset, records, diverging_epoch, current_leader)],
    node_endpoints) with partitions in response order; topic is a name (v12) or id bytes."""
    r, corr = flex_reader(frame)
    _throttle, err, sid = r.take(">ihi")
    out = {"corr": corr, "error": err, "session_id": sid, "partitions": [], "node_endpoints": None}
    for _ in range(r.compact_len()):
        topic = uuid_bytes(r) if version >= 13 else r.compact_string()
        for _ in range(r.compact_len()):
            idx, perr, hw, lso, log_start = r.take(">ihqqq")
            n = r.compact_len()
            for _ in range(max(n, 0)):
                r.take(">qq")
                r.tags()
            r.take(">i")  # preferred read replica
            size = r.compact_len()
            recs = None
            if size >= 0:
                recs = bytes(r.data[r.pos:r.pos + size])
                r.pos += size
            t = read_tags(r)
            out["partitions"].append({
                "topic": topic, "partition": idx, "error": perr, "high_watermark": hw,
                "last_stable_offset": lso, "log_start_offset": log_start, "records": recs,
                "diverging_epoch": struct.unpack(">iq", t[0][:12]) if 0 in t else None,
                "current_leader": struct.unpack(">ii", t[1][:8]) if 1 in t else None})
        r.tags()
    top = read_tags(r)
    if 0 in top:
        out["node_endpoints"] = top[0]
    assert r.pos == len(frame), f"{len(frame) - r.pos} trailing bytes in Fetch v{version} response"
    return out


def fetch_v11(corr, partitions):
    """Fetch v11 (sessionless) with CurrentLeaderEpoch: [(topic, partition, offset, epoch)]."""
    body = struct.pack(">iiiibii", -1, 0, 1, 50 << 20, 0, 0, -1)
    body += struct.pack(">i", len(partitions))
    for t, p, off, epoch in partitions:
        body += w.string(t) + struct.pack(">i", 1) + struct.pack(">iiqqi", p, epoch, off, -1, 1 << 20)
    body += struct.pack(">i", 0) + w.string("")
    return w.request(1, 11, corr, body)


# --- record batches -------------------------------------------------------------

def _varint(r):
    n = r.uvarint()
    return (n >> 1) ^ -(n & 1)


def _var_bytes(r):
    n = _varint(r)
    if n < 0:
        return None
    b = bytes(r.data[r.pos:r.pos + n])
    r.pos += n
    return b


def decode_records(records):
    """[(offset, key, value, [(header key, value)])] of uncompressed batches v2, and each
    batch's partition leader epoch: -> (records, epochs)."""
    out, epochs = [], []
    pos = 0
    data = records or b""
    while pos + 61 <= len(data):
        base, length, epoch, magic = struct.unpack_from(">qiib", data, pos)
        assert magic == 2
        attrs = struct.unpack_from(">h", data, pos + 21)[0]
        assert attrs & 7 == 0, "compressed batch"
        count = struct.unpack_from(">i", data, pos + 57)[0]
        r = w.FlexReader(data[pos + 61:pos + 12 + length])
        for _ in range(count):
            _len = _varint(r)
            r.take(">b")
            _varint(r)  # timestamp delta
            delta = _varint(r)
            key = _var_bytes(r)
            value = _var_bytes(r)
            hdrs = []
            for _ in range(_varint(r)):
                hk = _var_bytes(r)
                hdrs.append((hk.decode(), _var_bytes(r)))
            out.append((base + delta, key, value, hdrs))
        epochs.append(epoch)
        pos += 12 + length
    return out, epochs
