"""Record batches and request fields that a well-behaved client never sends:
unknown codec ids, zstd on a Produce version that predates it, a
decompression bomb, control and transactional bits from a plain producer,
absurd record and header counts, and tagged-field garbage. Each gets Kafka's
error code for that partition (or, for an unparseable request, the
connection closed), nothing of it is appended, and the broker keeps serving:
after every test a real client produces and consumes (test_bad_input's
still_healthy check)."""

import struct
import time

import pytest

import ck_util
import data_wire as dw
import kafka_wire as w
from harness import status_mb
from test_bad_input import api_versions_ok, produce_raw, seeded_topic, still_healthy  # noqa: F401 - fixtures

MB = 1024 * 1024
UNKNOWN_SERVER_ERROR = -1
CORRUPT_MESSAGE = 2
INVALID_RECORD = 87
TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53
UNSUPPORTED_COMPRESSION_TYPE = 76
ZSTD = 4


def batch(records_section, count, codec=0, attributes=0, producer_id=-1, producer_epoch=-1, base_sequence=-1,
          last_offset_delta=None, base_ts=1_700_000_000_000):
    """A record batch v2 around an already encoded (maybe compressed) records
    section, with a valid CRC whatever the attributes say."""
    lod = count - 1 if last_offset_delta is None else last_offset_delta
    after_crc = struct.pack(">hiqqqhii", attributes | codec, lod, base_ts, base_ts, producer_id, producer_epoch,
                            base_sequence, count) + records_section
    after_len = struct.pack(">ibI", 0, 2, w.crc32c(after_crc)) + after_crc
    return struct.pack(">qi", 0, len(after_len)) + after_len


def records(values):
    return b"".join(w.record(i, 0, None, v) for i, v in enumerate(values))


# zstd frames built by hand (RFC 8878): no dictionary, no checksum, a 128 KiB
# window; raw blocks carry bytes as they are, an RLE block repeats one byte.
ZSTD_BLOCK = 128 * 1024


def _zstd_block(last, kind, size, payload):
    return (int(last) | kind << 1 | size << 3).to_bytes(3, "little") + payload


def zstd_frame(prefix, zeros=0):
    """`prefix` in raw blocks, then `zeros` zero bytes in RLE blocks."""
    out = bytearray(b"\x28\xb5\x2f\xfd\x00\x38")  # magic, frame header (window 2^17)
    chunks = [prefix[i:i + ZSTD_BLOCK] for i in range(0, len(prefix), ZSTD_BLOCK)]
    runs = [ZSTD_BLOCK] * (zeros // ZSTD_BLOCK) + ([zeros % ZSTD_BLOCK] if zeros % ZSTD_BLOCK else [])
    blocks = [(0, len(c), c) for c in chunks] + [(1, n, b"\x00") for n in runs]
    for i, (kind, size, payload) in enumerate(blocks):
        out += _zstd_block(i == len(blocks) - 1, kind, size, payload)
    return bytes(out)


def produce_v9(port, topic, records_bytes, corr=21):
    with w.connect(port, timeout=30) as s:
        got = dw.parse_produce(w.roundtrip(s, dw.produce(corr, 9, topic, [(0, records_bytes)])), 9)
    assert got["corr"] == corr
    (t,) = got["topics"]
    (p,) = t["partitions"]
    assert (t["topic"], p["index"]) == (topic, 0)
    return p["error"], p["base_offset"]


def values_in(bootstrap, topic, expected):
    return [m.value() for m in ck_util.consume(bootstrap, topic, expected=expected)]


def init_producer_id(port):
    """An idempotent producer id; retried while the broker answers
    COORDINATOR_LOAD_IN_PROGRESS (14) or COORDINATOR_NOT_AVAILABLE (15), as
    clients do (the Kafka peer does right after its start)."""
    deadline = time.monotonic() + 30
    while True:
        with w.connect(port) as s:
            _corr, err, pid, epoch = w.parse_init_producer_id(w.roundtrip(s, w.init_producer_id(3)))
        if err not in (14, 15) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert err == 0 and pid >= 0, f"InitProducerId: error {err}"
    return pid, epoch


# --- codecs -------------------------------------------------------------------------

def test_hand_built_zstd_batch_is_accepted(broker, seeded_topic):
    """Positive control for the zstd frames below: the same encoder's
    small batch is accepted and reads back."""
    section = records([b"z1", b"z2"])
    err, base = produce_v9(broker.port, seeded_topic, batch(zstd_frame(section), 2, codec=ZSTD))
    assert (err, base) == (0, 1)
    assert values_in(broker.bootstrap, seeded_topic, 3) == [b"seed", b"z1", b"z2"]


@pytest.mark.parametrize("codec", [5, 6, 7])
def test_unknown_codec_id(broker, seeded_topic, codec, peer):
    """Spool: CORRUPT_MESSAGE. Kafka 4.4: UNKNOWN_SERVER_ERROR (its
    CompressionType.forId throws IllegalArgumentException, which the append
    path turns into -1)."""
    err, _ = produce_raw(broker, seeded_topic, batch(records([b"x"]), 1, codec=codec))
    assert err == (UNKNOWN_SERVER_ERROR if peer else CORRUPT_MESSAGE), f"codec {codec}: error {err}"
    assert values_in(broker.bootstrap, seeded_topic, 1) == [b"seed"]


def test_zstd_before_produce_v7(broker, seeded_topic):
    """Kafka's ProduceRequest.validateRecords: zstd needs Produce v7+."""
    err, _ = produce_raw(broker, seeded_topic, batch(zstd_frame(records([b"z"])), 1, codec=ZSTD))
    assert err == UNSUPPORTED_COMPRESSION_TYPE, f"error {err}"
    assert values_in(broker.bootstrap, seeded_topic, 1) == [b"seed"]


def test_decompression_bomb_is_refused_without_inflating_it(broker, seeded_topic, peer):
    """A 32 KB zstd batch holding one well-formed record whose value is
    1 GiB of zeros: refused with CORRUPT_MESSAGE once the output passes the
    broker's 64 MiB cap, and the broker's peak memory grows by far less
    than the bomb. (Kafka skips over record values while validating and
    accepts the batch; the consumers then inflate it.)"""
    value_len = 1 << 30
    body = b"\x00" + w.varint(0) + w.varint(0) + w.varint(-1) + w.varint(value_len)
    record_len = len(body) + value_len + 1  # + the header count, a zero byte like the value's
    bomb = batch(zstd_frame(w.varint(record_len) + body, zeros=value_len + 1), 1, codec=ZSTD)
    assert len(bomb) < 40 * 1024
    if peer:
        err, base = produce_v9(broker.port, seeded_topic, bomb)
        assert (err, base) == (0, 1), f"Kafka: error {err}"
        return
    pid = broker.proc.pid
    peak_before = status_mb(pid, "VmHWM")
    t0 = time.monotonic()
    err, _ = produce_v9(broker.port, seeded_topic, bomb)
    took = time.monotonic() - t0
    grown = status_mb(pid, "VmHWM") - peak_before
    print(f"decompression bomb of {len(bomb)} bytes: error {err} in {took:.2f} s, peak RSS +{grown:.0f} MB")
    assert err == CORRUPT_MESSAGE, f"error {err}"
    assert grown < 256, f"peak RSS grew {grown:.0f} MB for a bomb capped at 64 MiB"
    assert values_in(broker.bootstrap, seeded_topic, 1) == [b"seed"]


# --- control and transactional bits from plain producers ---------------------------

CONTROL = 0x20
TRANSACTIONAL = 0x10


def test_control_batch_from_a_plain_producer(broker, seeded_topic):
    """Kafka's LogValidator: clients may not write control batches."""
    err, _ = produce_raw(broker, seeded_topic, batch(records([b"ctl"]), 1, attributes=CONTROL))
    assert err == INVALID_RECORD, f"error {err}"
    assert values_in(broker.bootstrap, seeded_topic, 1) == [b"seed"]


def test_two_batches_in_one_partition(broker, seeded_topic):
    """Kafka's LogValidator: a partition's records in a Produce are exactly
    one batch of magic v2 ("more than one batch": INVALID_RECORD); neither
    batch is appended. One of them alone is accepted (positive control)."""
    two = batch(records([b"first"]), 1) + batch(records([b"second"]), 1)
    err, _ = produce_raw(broker, seeded_topic, two)
    assert err == INVALID_RECORD, f"error {err}"
    assert produce_raw(broker, seeded_topic, batch(records([b"alone"]), 1)) == (0, 1)
    assert values_in(broker.bootstrap, seeded_topic, 2) == [b"seed", b"alone"]


def test_control_batch_from_an_idempotent_producer(broker, seeded_topic):
    pid, epoch = init_producer_id(broker.port)
    err, _ = produce_raw(broker, seeded_topic, batch(records([b"ctl"]), 1, attributes=CONTROL, producer_id=pid,
                                                     producer_epoch=epoch, base_sequence=0))
    assert err == INVALID_RECORD, f"error {err}"
    # The producer's sequence did not move: its first real batch is sequence 0.
    ok = batch(records([b"after"]), 1, producer_id=pid, producer_epoch=epoch, base_sequence=0)
    assert produce_raw(broker, seeded_topic, ok) == (0, 1)
    assert values_in(broker.bootstrap, seeded_topic, 2) == [b"seed", b"after"]


@pytest.mark.parametrize("bits", [TRANSACTIONAL, TRANSACTIONAL | CONTROL])
def test_transactional_batch_without_transactional_id(broker, seeded_topic, bits):
    """A producer with a producer id but no transactional id (Produce's
    transactional_id null) sends a batch marked transactional: Kafka's
    KafkaApis refuses the whole request with
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED, so no transaction is left open on
    the partition: a read_committed consumer still reads what follows."""
    pid, epoch = init_producer_id(broker.port)
    txn = batch(records([b"txn"]), 1, attributes=bits, producer_id=pid, producer_epoch=epoch, base_sequence=0)
    with w.connect(broker.port, timeout=15) as s:
        corr, parts = w.parse_produce_v3(w.roundtrip(s, w.produce_v3(8, seeded_topic, 0, txn)))
    assert corr == 8 and parts == {(seeded_topic, 0): (TRANSACTIONAL_ID_AUTHORIZATION_FAILED, -1)}, parts
    p = ck_util.producer(broker.bootstrap, acks="all")
    assert ck_util.produce_all(p, seeded_topic, [{"key": b"k", "value": b"plain"}])[0][0] is None
    got = ck_util.consume(broker.bootstrap, seeded_topic, expected=2, **{"isolation.level": "read_committed"})
    assert [m.value() for m in got] == [b"seed", b"plain"]


# --- absurd counts ------------------------------------------------------------------------

@pytest.mark.parametrize("codec", [0, ZSTD])
def test_records_count_near_int_max(broker, seeded_topic, codec):
    """The header claims 2^31-1 records (and a matching last offset delta)
    but holds one: refused before anything is sized by the claim."""
    section = records([b"one"])
    if codec:
        section = zstd_frame(section)
    bad = batch(section, 0x7FFFFFFF, codec=codec)
    err, _ = produce_v9(broker.port, seeded_topic, bad)
    assert err in (CORRUPT_MESSAGE, INVALID_RECORD), f"error {err}"
    assert values_in(broker.bootstrap, seeded_topic, 1) == [b"seed"]


def test_record_header_count_near_int_max(broker, seeded_topic):
    rec = b"\x00" + w.varint(0) + w.varint(0) + w.varint(-1) + w.varint(1) + b"v" + w.varint(0x7FFFFFFF)
    err, _ = produce_raw(broker, seeded_topic, batch(w.varint(len(rec)) + rec, 1))
    assert err in (CORRUPT_MESSAGE, INVALID_RECORD), f"error {err}"
    assert values_in(broker.bootstrap, seeded_topic, 1) == [b"seed"]


def test_partition_array_count_near_int_max_closes(broker, topic):
    """Produce v3 whose partition array claims 2^31-1 entries: the request
    cannot be parsed, so (as in Kafka) the connection is closed unanswered."""
    body = w.string(None) + struct.pack(">hi", 1, 1000) + struct.pack(">i", 1) + w.string(topic)
    body += struct.pack(">i", 0x7FFFFFFF) + struct.pack(">i", 0) + struct.pack(">i", 0)
    with w.connect(broker.port, timeout=10) as s:
        s.sendall(w.request(0, 3, 5, body))
        assert w.closed_by_peer(s)
    assert api_versions_ok(broker.port)


# --- tagged fields ------------------------------------------------------------------------

def test_unknown_tagged_fields_are_skipped(broker, seeded_topic):
    """Unknown tags (in the request header, the body, a topic and a
    partition) are skipped, as the protocol requires: the Produce is served."""
    recs = w.record_batch([(b"k", b"tagged", [])], 1_700_000_000_000)
    junk = [(7, b"\xff" * 5), (300, b"")]
    body = w.compact_string(None) + struct.pack(">hi", -1, 10000)
    body += w.uvarint(2) + w.compact_string(seeded_topic)
    body += w.uvarint(2) + struct.pack(">i", 0) + dw.compact_bytes(recs) + dw.tags(junk)
    body += dw.tags(junk) + dw.tags(junk)
    payload = struct.pack(">hhi", 0, 9, 44) + w.string("tags") + dw.tags(junk) + body
    with w.connect(broker.port, timeout=15) as s:
        got = dw.parse_produce(w.roundtrip(s, struct.pack(">i", len(payload)) + payload), 9)
    assert got["corr"] == 44
    assert [(p["index"], p["error"], p["base_offset"]) for p in got["topics"][0]["partitions"]] == [(0, 0, 1)]
    assert values_in(broker.bootstrap, seeded_topic, 2) == [b"seed", b"tagged"]


@pytest.mark.parametrize("how", ["known_tag_garbage", "known_tag_trailing_bytes", "tag_count_near_uint_max",
                                 "header_tag_size_past_frame"])
def test_tagged_field_garbage_closes(broker, topic, how, peer):
    """Fetch v12's ClusterId (tag 0) holding garbage or more bytes than its
    value, a tag count of 2^32-1, a header tag whose size runs past the frame:
    the request cannot be parsed and the connection is closed unanswered."""
    frame = dw.fetch(5, 12, [(topic, 0, 0, -1, -1, MB)])
    assert frame.endswith(b"\x00")  # no top-level tags: the section is replaced below
    if how == "known_tag_garbage":
        frame = frame[:-1] + dw.tags([(0, w.uvarint(100) + b"ab")])
    elif how == "known_tag_trailing_bytes":
        frame = frame[:-1] + dw.tags([(0, w.compact_string("c") + b"\x01\x02")])
    elif how == "tag_count_near_uint_max":
        frame = frame[:-1] + w.uvarint(0xFFFFFFFF) + w.uvarint(0) + w.uvarint(0)
    else:
        head = 4 + 2 + 2 + 4 + 2 + len(b"spool-idem")  # size, key, version, corr, client id
        assert frame[head] == 0
        frame = frame[:head] + w.uvarint(1) + w.uvarint(9) + w.uvarint(500) + frame[head + 1:]
    frame = struct.pack(">i", len(frame) - 4) + frame[4:]
    with w.connect(broker.port, timeout=10) as s:
        s.sendall(frame)
        if peer and how == "known_tag_trailing_bytes":
            # Kafka reads the tag's value and ignores the rest of its bytes;
            # Spool holds the declared size to the value's.
            answer = w.read_frame(s)
            assert answer is not None and struct.unpack_from(">i", answer)[0] == 5
        else:
            assert w.closed_by_peer(s), f"{how}: answered instead of closing"
    assert api_versions_ok(broker.port)
