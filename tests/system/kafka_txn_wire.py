"""Hand-built frames of the transactional APIs (issue 6), on top of
kafka_wire_core.py: TxnOffsetCommit v0-3, OffsetFetch v7, WriteTxnMarkers v1,
FindCoordinator, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn,
DescribeTransactions, ListTransactions, transactional batches and control
markers. Tests import it through kafka_wire.py."""

import struct

from kafka_wire_core import Reader, compact_string, record_batch, request, request_flexible, string, uvarint


# --- TxnOffsetCommit v0-3, OffsetFetch v7, WriteTxnMarkers v1 (issue 6, gtxn) ---

def compact_array(items, enc):
    if items is None:
        return uvarint(0)
    return uvarint(len(items) + 1) + b"".join(enc(x) for x in items)


class FlexReader(Reader):
    """Reader with the compact (flexible-version) types."""

    def uvarint(self):
        shift = n = 0
        while True:
            b = self.take(">B")
            n |= (b & 0x7F) << shift
            if not b & 0x80:
                return n
            shift += 7

    def compact_string(self):
        n = self.uvarint()
        if n == 0:
            return None
        s = self.data[self.pos:self.pos + n - 1].decode()
        self.pos += n - 1
        return s

    def compact_len(self):
        return self.uvarint() - 1

    def tags(self):
        for _ in range(self.uvarint()):
            self.uvarint()
            self.pos += self.uvarint()


def txn_offset_commit(corr, transactional_id, group, producer_id, producer_epoch, offsets, version=3,
                      generation=-1, member_id="", instance_id=None):
    """offsets: [(topic, partition, offset, metadata)] grouped by consecutive topic."""
    topics = []
    for t, p, off, meta in offsets:
        if not topics or topics[-1][0] != t:
            topics.append((t, []))
        topics[-1][1].append((p, off, meta))
    if version >= 3:
        body = (compact_string(transactional_id) + compact_string(group) + struct.pack(">qh", producer_id, producer_epoch)
                + struct.pack(">i", generation) + compact_string(member_id) + compact_string(instance_id))

        def part(x):
            p, off, meta = x
            return struct.pack(">iqi", p, off, -1) + compact_string(meta) + b"\x00"
        body += compact_array(topics, lambda t: compact_string(t[0]) + compact_array(t[1], part) + b"\x00") + b"\x00"
        return request_flexible(28, version, corr, body)
    body = string(transactional_id) + string(group) + struct.pack(">qh", producer_id, producer_epoch)

    def part_old(x):
        p, off, meta = x
        b = struct.pack(">iq", p, off)
        if version >= 2:
            b += struct.pack(">i", -1)
        return b + string(meta)

    def arr(items, enc):
        return struct.pack(">i", len(items)) + b"".join(enc(x) for x in items)
    body += arr(topics, lambda t: string(t[0]) + arr(t[1], part_old))
    return request(28, version, corr, body)


def parse_txn_offset_commit(frame, version=3):
    """-> (corr, [((topic, partition), error)]) in answer order"""
    r = FlexReader(frame)
    corr = r.take(">i")
    if version >= 3:
        r.tags()
    r.take(">i")  # throttle
    out = []
    if version >= 3:
        for _ in range(r.compact_len()):
            name = r.compact_string()
            for _ in range(r.compact_len()):
                idx, err = r.take(">ih")
                r.tags()
                out.append(((name, idx), err))
            r.tags()
        r.tags()
    else:
        for _ in range(r.take(">i")):
            name = r.string()
            for _ in range(r.take(">i")):
                idx, err = r.take(">ih")
                out.append(((name, idx), err))
    assert r.pos == len(frame), f"{len(frame) - r.pos} trailing bytes in TxnOffsetCommit response"
    return corr, out


def offset_fetch_v7(corr, group, topics, require_stable):
    """topics: [(topic, [partitions])] or None (every committed partition)."""
    body = compact_string(group) + compact_array(
        topics, lambda t: compact_string(t[0]) + compact_array(t[1], lambda p: struct.pack(">i", p)) + b"\x00")
    body += struct.pack(">?", require_stable) + b"\x00"
    return request_flexible(9, 7, corr, body)


def parse_offset_fetch_v7(frame):
    """-> dict(corr, error, partitions=[(topic, partition, offset, metadata, error)])"""
    r = FlexReader(frame)
    out = {"corr": r.take(">i"), "partitions": []}
    r.tags()
    r.take(">i")  # throttle
    for _ in range(r.compact_len()):
        name = r.compact_string()
        for _ in range(r.compact_len()):
            idx, off, _epoch = r.take(">iqi")
            meta = r.compact_string()
            err = r.take(">h")
            r.tags()
            out["partitions"].append((name, idx, off, meta, err))
        r.tags()
    out["error"] = r.take(">h")
    r.tags()
    assert r.pos == len(frame), f"{len(frame) - r.pos} trailing bytes in OffsetFetch v7 response"
    return out


def write_txn_markers_v1(corr, markers):
    """markers: [(producer_id, producer_epoch, commit, [(topic, [partitions])], coordinator_epoch)]"""
    def marker(m):
        pid, epoch, commit, topics, coord_epoch = m
        return (struct.pack(">qh?", pid, epoch, commit)
                + compact_array(topics, lambda t: compact_string(t[0])
                                + compact_array(t[1], lambda p: struct.pack(">i", p)) + b"\x00")
                + struct.pack(">i", coord_epoch) + b"\x00")
    return request_flexible(27, 1, corr, compact_array(markers, marker) + b"\x00")


def parse_write_txn_markers_v1(frame):
    """-> (corr, {(producer_id, topic, partition): error})"""
    r = FlexReader(frame)
    corr = r.take(">i")
    r.tags()
    out = {}
    for _ in range(r.compact_len()):
        pid = r.take(">q")
        for _ in range(r.compact_len()):
            name = r.compact_string()
            for _ in range(r.compact_len()):
                idx, err = r.take(">ih")
                r.tags()
                out[(pid, name, idx)] = err
            r.tags()
        r.tags()
    r.tags()
    assert r.pos == len(frame), f"{len(frame) - r.pos} trailing bytes in WriteTxnMarkers response"
    return corr, out


def java_string_hash(s):
    h = 0
    for unit in struct.unpack(f">{len(s.encode('utf-16-be')) // 2}H", s.encode("utf-16-be")):
        h = (31 * h + unit) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def offsets_partition_for(group, partitions):
    """The __consumer_offsets partition of a group (Kafka: abs(hashCode) % n)."""
    return (java_string_hash(group) & 0x7FFFFFFF) % partitions


# --- Transactions (issue 6): FindCoordinator(TRANSACTION), AddPartitionsToTxn,
# AddOffsetsToTxn, EndTxn, DescribeTransactions, ListTransactions, markers ---

def read_uvarint(r):
    shift = value = 0
    while True:
        b = r.take(">B")
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value
        shift += 7


def read_compact_string(r):
    n = read_uvarint(r) - 1
    if n < 0:
        return None
    s = r.data[r.pos:r.pos + n].decode()
    r.pos += n
    return s


def find_coordinator(correlation_id, key, key_type=0, version=1):
    body = string(key) + (struct.pack(">b", key_type) if version >= 1 else b"")
    return request(10, version, correlation_id, body)


def parse_find_coordinator(frame, version=1):
    """-> dict(corr, error, message, node_id, host, port)"""
    r = Reader(frame)
    out = {"corr": r.take(">i")}
    if version >= 1:
        r.take(">i")  # throttle
    out["error"] = r.take(">h")
    out["message"] = r.string() if version >= 1 else None
    out["node_id"] = r.take(">i")
    out["host"] = r.string()
    out["port"] = r.take(">i")
    assert r.pos == len(frame), "trailing bytes in FindCoordinator response"
    return out


def add_partitions_to_txn(correlation_id, transactional_id, producer_id, producer_epoch, topics, version=0):
    """topics: {topic: [partitions]}"""
    body = string(transactional_id) + struct.pack(">qhi", producer_id, producer_epoch, len(topics))
    for t, parts in topics.items():
        body += string(t) + struct.pack(">i", len(parts)) + b"".join(struct.pack(">i", p) for p in parts)
    return request(24, version, correlation_id, body)


def parse_add_partitions_to_txn(frame):
    """-> {(topic, partition): error}"""
    r = Reader(frame)
    r.take(">ii")  # correlation id, throttle
    out = {}
    for _ in range(r.take(">i")):
        t = r.string()
        for _ in range(r.take(">i")):
            p, err = r.take(">ih")
            out[(t, p)] = err
    assert r.pos == len(frame), "trailing bytes in AddPartitionsToTxn response"
    return out


def add_offsets_to_txn(correlation_id, transactional_id, producer_id, producer_epoch, group_id, version=0):
    body = string(transactional_id) + struct.pack(">qh", producer_id, producer_epoch) + string(group_id)
    return request(25, version, correlation_id, body)


def end_txn(correlation_id, transactional_id, producer_id, producer_epoch, commit, version=0):
    body = string(transactional_id) + struct.pack(">qh?", producer_id, producer_epoch, commit)
    return request(26, version, correlation_id, body)


def parse_error_only(frame):
    """AddOffsetsToTxn / EndTxn v0-2: -> error code"""
    r = Reader(frame)
    _corr, _throttle, err = r.take(">iih")
    assert r.pos == len(frame), "trailing bytes"
    return err


def describe_transactions(correlation_id, transactional_ids):
    body = uvarint(len(transactional_ids) + 1) + b"".join(compact_string(t) for t in transactional_ids)
    return request_flexible(65, 0, correlation_id, body + b"\x00")


def parse_describe_transactions(frame):
    """-> [dict(error, id, state, timeout_ms, start_ms, producer_id, producer_epoch, partitions={topic: [p]})]"""
    r = Reader(frame)
    r.take(">i")
    assert r.take(">B") == 0
    r.take(">i")  # throttle
    out = []
    for _ in range(read_uvarint(r) - 1):
        d = {"error": r.take(">h"), "id": read_compact_string(r), "state": read_compact_string(r)}
        d["timeout_ms"], d["start_ms"], d["producer_id"], d["producer_epoch"] = r.take(">iqqh")  # epoch: int16 (Kafka 4.4 schema)
        d["partitions"] = {}
        for _ in range(read_uvarint(r) - 1):
            t = read_compact_string(r)
            d["partitions"][t] = [r.take(">i") for _ in range(read_uvarint(r) - 1)]
            assert r.take(">B") == 0
        assert r.take(">B") == 0
        out.append(d)
    assert r.take(">B") == 0
    assert r.pos == len(frame), "trailing bytes in DescribeTransactions response"
    return out


def list_transactions(correlation_id, states=(), producer_ids=()):
    body = uvarint(len(states) + 1) + b"".join(compact_string(s) for s in states)
    body += uvarint(len(producer_ids) + 1) + b"".join(struct.pack(">q", p) for p in producer_ids)
    return request_flexible(66, 0, correlation_id, body + b"\x00")


def parse_list_transactions(frame):
    """-> (error, unknown_state_filters, [(id, producer_id, state)])"""
    r = Reader(frame)
    r.take(">i")
    assert r.take(">B") == 0
    r.take(">i")  # throttle
    err = r.take(">h")
    unknown = [read_compact_string(r) for _ in range(read_uvarint(r) - 1)]
    txns = []
    for _ in range(read_uvarint(r) - 1):
        tid = read_compact_string(r)
        pid = r.take(">q")
        state = read_compact_string(r)
        assert r.take(">B") == 0
        txns.append((tid, pid, state))
    assert r.take(">B") == 0
    assert r.pos == len(frame), "trailing bytes in ListTransactions response"
    return err, unknown, txns


def transactional_batch(producer_id, producer_epoch, base_sequence, values, base_ts=1_700_000_000_000):
    """A batch with the transactional attribute bit (4) set."""
    return record_batch([(None, v, ()) for v in values], base_ts, attributes=0x10, producer_id=producer_id,
                        producer_epoch=producer_epoch, base_sequence=base_sequence)


def _read_varint(data, pos):
    shift = value = 0
    while True:
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return (value >> 1) ^ -(value & 1), pos
        shift += 7


def control_markers(records):
    """[(offset, producer_id, producer_epoch, 'COMMIT'|'ABORT')] of the control
    batches in a record set (uncompressed, as the broker writes them)."""
    out = []
    pos = 0
    while pos + 61 <= len(records):
        base, length = struct.unpack_from(">qi", records, pos)
        if pos + 12 + length > len(records):
            break
        (attributes,) = struct.unpack_from(">h", records, pos + 21)
        pid, epoch = struct.unpack_from(">qh", records, pos + 43)
        if attributes & 0x20:
            rp = pos + 61
            _len, rp = _read_varint(records, rp)
            rp += 1  # record attributes
            _ts, rp = _read_varint(records, rp)
            _od, rp = _read_varint(records, rp)
            klen, rp = _read_varint(records, rp)
            _kver, ktype = struct.unpack_from(">hh", records, rp)
            out.append((base, pid, epoch, "COMMIT" if ktype == 1 else "ABORT"))
        pos += 12 + length
    return out
