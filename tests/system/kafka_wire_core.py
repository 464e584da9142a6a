"""Hand-built Kafka frames for the bad-input tests, written from the public
protocol description: request header v1, ApiVersions v0, Produce v3 and the
record batch v2 with its CRC-32C, Fetch v7-11, InitProducerId and idempotent
batches, socket helpers. Kept independent of any client library so the tests
can send exactly the bytes they mean. The transactional APIs' codecs are in
kafka_txn_wire.py; tests import both through kafka_wire.py."""

import socket
import struct

# --- CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) -----------------

def _crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


# --- varints (records use zigzag) ------------------------------------------

def uvarint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def varint(n):
    return uvarint((n << 1) ^ (n >> 63))


def _var_bytes(b):
    return varint(-1) if b is None else varint(len(b)) + b


def record(offset_delta, ts_delta, key, value, headers=()):
    body = bytearray()
    body += b"\x00"                      # attributes
    body += varint(ts_delta)
    body += varint(offset_delta)
    body += _var_bytes(key)
    body += _var_bytes(value)
    body += varint(len(headers))
    for hk, hv in headers:
        body += _var_bytes(hk.encode()) + _var_bytes(hv)
    return varint(len(body)) + bytes(body)


def record_batch(records, base_ts, attributes=0, producer_id=-1, producer_epoch=-1,
                 base_sequence=-1, fix_crc=True):
    """records: list of (key, value, headers). Uncompressed batch v2."""
    recs = b"".join(record(i, 0, k, v, h) for i, (k, v, h) in enumerate(records))
    after_crc = struct.pack(">hiqqqhii", attributes, len(records) - 1, base_ts, base_ts,
                            producer_id, producer_epoch, base_sequence, len(records)) + recs
    crc = crc32c(after_crc) if fix_crc else 0
    after_len = struct.pack(">ibI", 0, 2, crc) + after_crc  # leader epoch, magic, crc
    return struct.pack(">qi", 0, len(after_len)) + after_len


# --- requests ---------------------------------------------------------------

def string(s):
    if s is None:
        return struct.pack(">h", -1)
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def request(api_key, api_version, correlation_id, body=b"", client_id="spool-bad-input"):
    payload = struct.pack(">hhi", api_key, api_version, correlation_id) + string(client_id) + body
    return struct.pack(">i", len(payload)) + payload


def produce_v3(correlation_id, topic, partition, records_bytes, acks=1, timeout_ms=10000, transactional_id=None):
    body = string(transactional_id) + struct.pack(">hi", acks, timeout_ms)
    body += struct.pack(">i", 1) + string(topic)
    body += struct.pack(">i", 1) + struct.pack(">i", partition)
    body += struct.pack(">i", len(records_bytes)) + records_bytes
    return request(0, 3, correlation_id, body)


# --- responses --------------------------------------------------------------

class Reader:
    def __init__(self, data):
        self.data = data
        self.pos = 0

    def take(self, fmt):
        vals = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return vals if len(vals) > 1 else vals[0]

    def string(self):
        n = self.take(">h")
        if n < 0:
            return None
        s = self.data[self.pos:self.pos + n].decode()
        self.pos += n
        return s


def parse_produce_v3(frame):
    """-> (correlation_id, {(topic, partition): (error_code, base_offset)})"""
    r = Reader(frame)
    corr = r.take(">i")
    out = {}
    for _ in range(r.take(">i")):
        name = r.string()
        for _ in range(r.take(">i")):
            idx, err, base, _append_time = r.take(">ihqq")
            out[(name, idx)] = (err, base)
    r.take(">i")  # throttle_time_ms
    return corr, out


def parse_api_versions_v0(frame):
    """-> (correlation_id, error_code, {api_key: (min, max)})"""
    r = Reader(frame)
    corr, err = r.take(">ih")
    apis = {}
    for _ in range(r.take(">i")):
        k, lo, hi = r.take(">hhh")
        apis[k] = (lo, hi)
    return corr, err, apis


# --- socket helpers ---------------------------------------------------------

def connect(port, timeout=5.0):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.settimeout(timeout)
    return s


def recv_exact(s, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def read_frame(s):
    """One response frame (without its size), or None if the peer closed.
    Raises socket.timeout if neither happens in time."""
    try:
        head = recv_exact(s, 4)
    except ConnectionResetError:
        return None
    if head is None:
        return None
    (size,) = struct.unpack(">i", head)
    assert 0 <= size < 64 * 1024 * 1024, f"absurd response size {size}"
    try:
        return recv_exact(s, size)
    except ConnectionResetError:
        return None


def closed_by_peer(s):
    """True if the peer closes the connection (EOF/reset) before the socket
    timeout; False if it sent data instead. Raises socket.timeout on a hang."""
    try:
        return s.recv(1) == b""
    except ConnectionResetError:
        return True


# --- Fetch v7-11 (fetch sessions, KIP-227) ------------------------------------

def fetch_request(correlation_id, session_id, session_epoch, partitions, forgotten=(),
                  max_wait_ms=0, min_bytes=1, max_bytes=50 * 1024 * 1024, version=11):
    """partitions: [(topic, partition, fetch_offset, partition_max_bytes)], sent
    grouped by consecutive topic; forgotten: [(topic, [partitions])]."""
    assert 7 <= version <= 11, "fetch sessions need v7+; v12+ is flexible"
    body = struct.pack(">iiiibii", -1, max_wait_ms, min_bytes, max_bytes, 0, session_id, session_epoch)
    topics = []
    for t, p, off, pmax in partitions:
        if not topics or topics[-1][0] != t:
            topics.append((t, []))
        topics[-1][1].append((p, off, pmax))
    body += struct.pack(">i", len(topics))
    for t, parts in topics:
        body += string(t) + struct.pack(">i", len(parts))
        for p, off, pmax in parts:
            body += struct.pack(">i", p)
            if version >= 9:
                body += struct.pack(">i", -1)  # current_leader_epoch: unknown
            body += struct.pack(">qqi", off, -1, pmax)
    body += struct.pack(">i", len(forgotten))
    for t, parts in forgotten:
        body += string(t) + struct.pack(">i", len(parts)) + b"".join(struct.pack(">i", p) for p in parts)
    if version >= 11:
        body += string("")  # rack_id
    return request(1, version, correlation_id, body)


def batches(records):
    """(base_offset, record_count) of each record batch v2 in a record set."""
    out = []
    pos = 0
    while pos + 12 <= len(records):
        base, length = struct.unpack_from(">qi", records, pos)
        if pos + 12 + length > len(records):
            break  # a partial batch at the end is legal (max bytes cut it)
        (count,) = struct.unpack_from(">i", records, pos + 57)
        out.append((base, count))
        pos += 12 + length
    return out


def parse_fetch(frame, version=11):
    """-> dict(corr, throttle_ms, error, session_id, partitions=[dict(topic,
    partition, error, high_watermark, last_stable_offset, log_start_offset,
    records)]) with partitions in response order."""
    r = Reader(frame)
    out = {"corr": r.take(">i"), "throttle_ms": r.take(">i"), "error": r.take(">h"),
           "session_id": r.take(">i"), "partitions": []}
    for _ in range(r.take(">i")):
        topic = r.string()
        for _ in range(r.take(">i")):
            idx, err, hw, lso, log_start = r.take(">ihqqq")
            n_aborted = r.take(">i")
            for _ in range(max(n_aborted, 0)):
                r.take(">qq")
            if version >= 11:
                r.take(">i")  # preferred_read_replica
            size = r.take(">i")
            recs = None
            if size >= 0:
                recs = r.data[r.pos:r.pos + size]
                r.pos += size
            out["partitions"].append({"topic": topic, "partition": idx, "error": err, "high_watermark": hw,
                                      "last_stable_offset": lso, "log_start_offset": log_start,
                                      "records": recs})
    assert r.pos == len(frame), f"{len(frame) - r.pos} trailing bytes in Fetch response"
    return out


# --- InitProducerId v0-4 and idempotent produce (issue 6) ----------------------

def compact_string(s):
    if s is None:
        return uvarint(0)
    b = s.encode()
    return uvarint(len(b) + 1) + b


def request_flexible(api_key, api_version, correlation_id, body=b"", client_id="spool-idem"):
    """Request header v2 (v1 + empty tagged fields); body must end with its own tags."""
    payload = struct.pack(">hhi", api_key, api_version, correlation_id) + string(client_id) + b"\x00" + body
    return struct.pack(">i", len(payload)) + payload


def init_producer_id(correlation_id, version=0, transactional_id=None, timeout_ms=60000,
                     producer_id=-1, producer_epoch=-1):
    if version >= 2:
        body = compact_string(transactional_id) + struct.pack(">i", timeout_ms)
        if version >= 3:
            body += struct.pack(">qh", producer_id, producer_epoch)
        return request_flexible(22, version, correlation_id, body + b"\x00")
    body = string(transactional_id) + struct.pack(">i", timeout_ms)
    return request(22, version, correlation_id, body)


def parse_init_producer_id(frame, version=0):
    """-> (correlation_id, error_code, producer_id, producer_epoch)"""
    r = Reader(frame)
    corr = r.take(">i")
    if version >= 2:
        assert r.take(">B") == 0, "response header tags"
    _throttle, err, pid, epoch = r.take(">ihqh")
    if version >= 2:
        assert r.take(">B") == 0, "body tags"
    assert r.pos == len(frame), f"{len(frame) - r.pos} trailing bytes in InitProducerId response"
    return corr, err, pid, epoch


def idempotent_batch(producer_id, producer_epoch, base_sequence, values, base_ts=1_700_000_000_000):
    return record_batch([(None, v, ()) for v in values], base_ts, producer_id=producer_id,
                        producer_epoch=producer_epoch, base_sequence=base_sequence)


def roundtrip(s, frame):
    s.sendall(frame)
    resp = read_frame(s)
    assert resp is not None, "connection closed instead of an answer"
    return resp
