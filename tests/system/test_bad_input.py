"""Malformed and hostile frames sent over raw sockets. The broker must answer
with the protocol's error or close that one connection, and never crash or
stop serving others. After every test a real client (librdkafka) does a
produce + consume round trip and the broker process must still be running."""

import os
import random
import re
import socket
import struct
import time

import pytest

import ck_util
import kafka_wire as w
from harness import external_bootstrap

MAX_REQUEST = 1024 * 1024
BROKER_OVERRIDES = {"socket.request.max.bytes": str(MAX_REQUEST)}

CORRUPT_MESSAGE = 2
INVALID_RECORD = 87
UNSUPPORTED_VERSION = 35


@pytest.fixture(autouse=True)
def still_healthy(broker, request):
    yield
    assert broker.alive(), f"broker died after {request.node.name}:\n{broker.log()[-5000:]}"
    t = f"health-{re.sub(r'[^A-Za-z0-9._-]', '_', request.node.name)[:60]}-{os.urandom(3).hex()}"
    p = ck_util.producer(broker.bootstrap, acks="all")
    sent = [{"key": b"k%d" % i, "value": b"v%d" % i} for i in range(5)]
    reports = ck_util.produce_all(p, t, sent)
    assert all(r[0] is None for r in reports), reports
    got = ck_util.consume(broker.bootstrap, t, expected=5)
    assert [(m.key(), m.value()) for m in got] == [(s["key"], s["value"]) for s in sent]


@pytest.fixture
def seeded_topic(bootstrap, topic):
    """A topic holding one message (so it exists without relying on
    auto-creation by Produce, which Kafka does not do)."""
    p = ck_util.producer(bootstrap, acks="all")
    r = ck_util.produce_all(p, topic, [{"key": b"seed", "value": b"seed"}])
    assert r[0][0] is None and r[0][2] == 0
    return topic


def produce_raw(broker, topic, records_bytes, corr=7):
    with w.connect(broker.port, timeout=15) as s:
        s.sendall(w.produce_v3(corr, topic, 0, records_bytes))
        frame = w.read_frame(s)
    assert frame is not None, "broker closed the connection instead of answering Produce"
    got_corr, parts = w.parse_produce_v3(frame)
    assert got_corr == corr
    assert list(parts) == [(topic, 0)], parts
    return parts[(topic, 0)]


def api_versions_ok(port):
    with w.connect(port) as s:
        s.sendall(w.request(18, 0, 42))
        frame = w.read_frame(s)
    assert frame is not None
    corr, err, apis = w.parse_api_versions_v0(frame)
    return corr == 42 and err == 0 and 18 in apis


def test_hand_built_produce_is_accepted(broker, seeded_topic):
    """Positive control: proves the frame builder is right, so the negative
    tests below fail for the reason they claim."""
    ts = int(time.time() * 1000)
    batch = w.record_batch([(b"rk1", b"rv1", [("h", b"x")]), (None, b"rv2", [])], ts)
    err, base = produce_raw(broker, seeded_topic, batch)
    assert (err, base) == (0, 1)
    got = ck_util.consume(broker.bootstrap, seeded_topic, expected=3)
    assert [(m.offset(), m.key(), m.value(), m.headers()) for m in got[1:]] == \
        [(1, b"rk1", b"rv1", [("h", b"x")]), (2, None, b"rv2", None)]
    assert got[1].timestamp()[1] == ts


def test_truncated_frame(broker):
    with w.connect(broker.port) as s:
        s.sendall(struct.pack(">i", 100) + b"\x00\x03\x00\x01" + b"\x00" * 6)
    # Half-sent requests from other clients must not block this one.
    assert api_versions_ok(broker.port)
    assert broker.alive()


def test_truncated_frame_then_silence(broker):
    # Like above but the client stays connected: the broker must keep serving
    # other connections meanwhile.
    with w.connect(broker.port) as idle:
        idle.sendall(struct.pack(">i", 100) + b"\x00" * 10)
        assert api_versions_ok(broker.port)


def test_oversized_frame_closes_connection(broker):
    if external_bootstrap():
        pytest.skip("needs socket.request.max.bytes override")
    with w.connect(broker.port) as s:
        s.sendall(struct.pack(">i", 2 * MAX_REQUEST) + w.request(18, 0, 1)[4:])
        assert w.closed_by_peer(s), "broker answered an oversized frame instead of closing"


@pytest.mark.parametrize("size", [-1, -2147483648, 0, 2, 7])
def test_impossible_frame_sizes(broker, size):
    # Negative, empty, or too short to hold a request header.
    with w.connect(broker.port) as s:
        s.sendall(struct.pack(">i", size) + b"\x00" * max(0, min(size, 16)))
        assert w.closed_by_peer(s)


def test_api_versions_too_new_gets_v0_error_answer(broker):
    # KIP-511: unknown ApiVersions version -> v0-shaped UNSUPPORTED_VERSION
    # answer listing at least ApiVersions' own range; body is not parsed.
    # Versions past 2 are flexible, so clients send request header v2 (an
    # empty tagged-field section after client_id); the body after it is
    # whatever the future version holds: random bytes here.
    payload = struct.pack(">hhi", 18, 99, 1234) + w.string("future-client") + b"\x00" + os.urandom(13)
    with w.connect(broker.port) as s:
        s.sendall(struct.pack(">i", len(payload)) + payload)
        frame = w.read_frame(s)
    assert frame is not None, "connection closed instead of the KIP-511 answer"
    corr, err, apis = w.parse_api_versions_v0(frame)
    assert corr == 1234
    assert err == UNSUPPORTED_VERSION
    assert 18 in apis and apis[18][0] == 0 and apis[18][1] >= 3


def test_metadata_unsupported_version(broker):
    with w.connect(broker.port) as s:
        s.sendall(w.request(3, 99, 55, body=b"\x00\x00\x00\x00"))
        frame = w.read_frame(s)  # raises socket.timeout if the broker hangs
    if frame is not None:
        # Answering instead of closing is acceptable, but only for this request.
        assert struct.unpack_from(">i", frame)[0] == 55


@pytest.mark.parametrize("api_key", [1000, 32767, -1])
def test_unknown_api_key_closes(broker, api_key):
    with w.connect(broker.port) as s:
        s.sendall(w.request(api_key, 0, 9, body=b"\x00" * 8))
        assert w.closed_by_peer(s)


def test_header_client_id_longer_than_frame(broker):
    frame = struct.pack(">hhih", 18, 0, 3, 500) + b"abc"
    with w.connect(broker.port) as s:
        s.sendall(struct.pack(">i", len(frame)) + frame)
        assert w.closed_by_peer(s)


def test_random_garbage_frames(broker):
    rnd = random.Random(1234)
    for i in range(50):
        body = bytes(rnd.getrandbits(8) for _ in range(rnd.randint(0, 200)))
        with w.connect(broker.port) as s:
            try:
                s.sendall(struct.pack(">i", len(body)) + body)
                s.shutdown(socket.SHUT_WR)
                while s.recv(4096):  # whatever it says, it must finish talking
                    pass
            except OSError:  # reset, or already closed before our shutdown
                pass
        assert broker.alive(), f"broker died on garbage frame {i}: {body.hex()}"
    assert api_versions_ok(broker.port)


def test_produce_garbage_batch(broker, seeded_topic):
    rnd = random.Random(99)
    garbage = bytes(rnd.getrandbits(8) for _ in range(120))
    err, _ = produce_raw(broker, seeded_topic, garbage)
    assert err in (CORRUPT_MESSAGE, INVALID_RECORD), f"error {err}"


def _varint_end(buf, pos):
    while buf[pos] & 0x80:
        pos += 1
    return pos + 1


def _record_fields(buf, start):
    """Positions of a record's offset delta and key length (record at start)."""
    p = _varint_end(buf, start) + 1  # length, attributes
    p = _varint_end(buf, p)          # timestamp delta
    return p, _varint_end(buf, p)


# The CRC covers the records, but a client computes it over whatever it
# sends: these batches carry a valid CRC and are malformed inside a record.
# The produce path walks records without decoding them (RecordCheck::kWalk)
# and must still refuse them.
@pytest.mark.parametrize("how", ["length_past_end", "length_short", "bad_magic",
                                 "record_count_lies", "truncated_records",
                                 "key_length_past_record", "offset_delta_repeated"])
def test_produce_malformed_batch(broker, seeded_topic, how):
    good = bytearray(w.record_batch([(b"k", b"value-1", []), (b"k2", b"value-2", [])], 1000))
    if how == "length_past_end":
        struct.pack_into(">i", good, 8, len(good) + 1000)
    elif how == "length_short":
        struct.pack_into(">i", good, 8, 20)
    elif how == "bad_magic":
        good[16] = 7
    elif how == "record_count_lies":
        # Valid CRC, but the header claims more records than the body holds.
        good = bytearray(w.record_batch([(b"k", b"v", [])], 1000))
        struct.pack_into(">i", good, 57, 5)
        struct.pack_into(">I", good, 17, w.crc32c(bytes(good[21:])))
    elif how == "truncated_records":
        good = good[:-5]
        struct.pack_into(">i", good, 8, len(good) - 12)
        struct.pack_into(">I", good, 17, w.crc32c(bytes(good[21:])))
    elif how == "key_length_past_record":
        _, key_len = _record_fields(good, 61)
        good[key_len] = 0x7E  # zigzag 63: past the record's end
        struct.pack_into(">I", good, 17, w.crc32c(bytes(good[21:])))
    elif how == "offset_delta_repeated":
        first_len = good[61] >> 1  # one-byte zigzag length of record 0
        delta, _ = _record_fields(good, 61 + 1 + first_len)
        assert good[delta] == 2  # record 1's delta (zigzag 1)
        good[delta] = 0          # now 0 again: offsets would collide
        struct.pack_into(">I", good, 17, w.crc32c(bytes(good[21:])))
    err, _ = produce_raw(broker, seeded_topic, bytes(good))
    assert err in (CORRUPT_MESSAGE, INVALID_RECORD), f"{how}: error {err}"
    # Nothing of the bad batch may have been appended.
    got = ck_util.consume(broker.bootstrap, seeded_topic, expected=1)
    assert [m.value() for m in got] == [b"seed"]


def test_produce_crc_mismatch(broker, seeded_topic):
    batch = bytearray(w.record_batch([(b"key", b"payload-xyz", [])], 1000))
    batch[-3] ^= 0x01  # flip a bit inside the value; CRC left as computed
    err, _ = produce_raw(broker, seeded_topic, bytes(batch))
    assert err == CORRUPT_MESSAGE, f"error {err}"
    got = ck_util.consume(broker.bootstrap, seeded_topic, expected=1)
    assert [m.value() for m in got] == [b"seed"]


# --- every served API and version family (the handler table's fuzz seeds) ----

# request/<family>/<Api>_v<N>, written by make_request_corpus from the table's family column
# (next to <Api>Response_v<N>, the response decoders' seeds, which are not sent here)
SEED_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz", "corpus", "request")
SEED_NAME = re.compile(r"^[A-Z][A-Za-z]*_v\d+$")


def _table_seeds():
    paths = sorted((n, os.path.join(SEED_DIR, fam, n)) for fam in os.listdir(SEED_DIR)
                   if os.path.isdir(os.path.join(SEED_DIR, fam))
                   for n in os.listdir(os.path.join(SEED_DIR, fam))
                   if SEED_NAME.match(n) and not n.split("_v")[0].endswith("Response"))
    assert len({n.split("_v")[0] for n, _ in paths}) >= 34, \
        f"expected a seed per served API, found {[n for n, _ in paths]}"
    out = []
    for n, path in paths:
        with open(path, "rb") as fh:
            out.append((n, fh.read()))
    return out


def _answer_or_close(port, frame):
    """Sends one size-prefixed request, then ApiVersions v0 on the same
    connection: returns the frames answered before the connection ended or
    the ApiVersions answer arrived, and whether the broker closed it."""
    with w.connect(port, timeout=10) as s:
        s.sendall(struct.pack(">i", len(frame)) + frame + w.request(18, 0, 4242))
        got = []
        while True:
            f = w.read_frame(s)
            if f is None:
                return got, True
            if struct.unpack_from(">i", f)[0] == 4242:
                return got, False
            got.append(f)


def test_every_served_api_truncated_or_whole(broker):
    """Every served API at the lowest and highest version of each version
    family: the whole default request is answered (one frame, its correlation
    id) or, for requests the broker refuses to serve (a replica fetch, acks=0
    produce gets no answer), not answered - never a crash; the same request
    cut short by one byte or by half closes the connection without an
    answer, and the broker keeps serving."""
    for name, seed in _table_seeds():
        got, closed = _answer_or_close(broker.port, seed)
        assert len(got) <= 1, f"{name}: {len(got)} answers to one request"
        if got:
            assert struct.unpack_from(">i", got[0])[0] == 1, f"{name}: wrong correlation id"
        header_len = 8 + 2 + 4  # key, version, correlation id, client id length + "fuzz"
        for cut in sorted({len(seed) - 1, header_len + (len(seed) - header_len) // 2}):
            if cut <= header_len:
                continue  # the body is empty or a byte: nothing to cut inside it
            got, closed = _answer_or_close(broker.port, seed[:cut])
            assert closed and not got, f"{name} cut to {cut} of {len(seed)} bytes: answered {got}"
        assert broker.alive(), f"broker died on {name}"


def test_hostile_lengths_close(broker):
    big = 0x7FFFFFF0
    cases = {
        # Metadata v1: topic array count far beyond the frame.
        "metadata_array": w.request(3, 1, 5, struct.pack(">i", big)),
        # Produce v3: records length beyond the frame.
        "produce_records": w.request(0, 3, 5, w.string(None) + struct.pack(">hii", 1, 1000, 1) + w.string("t") +
                                     struct.pack(">iii", 1, 0, big) + b"\x00" * 16),
        # Produce v3: records length below -1.
        "produce_records_negative": w.request(0, 3, 5, w.string(None) + struct.pack(">hii", 1, 1000, 1) +
                                              w.string("t") + struct.pack(">iii", 1, 0, -2)),
        # Fetch v4: topic name length beyond the frame.
        "fetch_string": w.request(1, 4, 5, struct.pack(">iiiib", -1, 0, 1, 1 << 20, 0) +
                                  struct.pack(">ih", 1, 30000) + b"t"),
        # ApiVersions v3 (flexible): compact string length beyond the frame.
        "compact_string": w.request_flexible(18, 3, 5, w.uvarint(1 << 20) + b"x"),
        # ApiVersions v3: a tagged field whose size runs past the frame.
        "tagged_size": w.request_flexible(18, 3, 5, w.compact_string("c") + w.compact_string("1") +
                                          w.uvarint(1) + w.uvarint(7) + w.uvarint(200) + b"\x00\x00"),
        # ApiVersions v3: a tagged field shorter than its bytes (the rest is garbage).
        "tagged_short": w.request_flexible(18, 3, 5, w.compact_string("c") + w.compact_string("1") +
                                           w.uvarint(1) + w.uvarint(7) + w.uvarint(0) + b"\x05\x01"),
        # ListGroups v4 (flexible): compact array count beyond the frame.
        "compact_array": w.request_flexible(16, 4, 5, w.uvarint(1 << 28) + b"\x00"),
    }
    for name, frame in cases.items():
        with w.connect(broker.port, timeout=10) as s:
            s.sendall(frame)
            assert w.closed_by_peer(s), f"{name}: answered instead of closing"
    assert api_versions_ok(broker.port)
