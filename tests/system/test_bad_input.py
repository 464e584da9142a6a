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
