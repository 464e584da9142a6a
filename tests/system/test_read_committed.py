"""Transaction markers and read_committed by raw frames (issue 6).

Two producers write transactional batches interleaved on one partition; one
is aborted and the other committed with WriteTxnMarkers sent over the wire.
A read_committed Fetch stops at the last stable offset (stuck at the first
offset of an open transaction) and lists the aborted transactions of the
returned range; ListOffsets latest answers the LSO for read_committed and
the high watermark otherwise; DescribeProducers shows the producer state.
The same answers come back after a clean restart and after kill -9 (the
.txnindex and the producer snapshots are recovered), and a marker written
after the crash completes a transaction left open before it. Finally a
confluent-kafka (librdkafka) consumer, read_committed by default, reads
exactly the committed records using the aborted list and control batches.
"""

import os
import re
import struct
import threading
import time
import uuid

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

import kafka_wire as w

NONE = 0
UNKNOWN_TOPIC_OR_PARTITION = 3
INVALID_PRODUCER_EPOCH = 47
READ_UNCOMMITTED, READ_COMMITTED = 0, 1


def create_topic(bootstrap, name, partitions=1):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, partitions, 1)], operation_timeout=30)[name].result(timeout=30)


@pytest.fixture
def topic_name(request):
    return re.sub(r"[^A-Za-z0-9._-]", "_", request.node.name)[:60] + "-" + os.urandom(3).hex()


def new_pid(s, corr=1):
    _, err, pid, epoch = w.parse_init_producer_id(w.roundtrip(s, w.init_producer_id(corr, 0)), 0)
    assert err == NONE
    return pid, epoch


def produce(s, topic, batch):
    # Transactional records need a transactional id in the request (Kafka
    # refuses them without one); its transactions are ended by hand-written
    # markers here, so any id does.
    _, parts = w.parse_produce_v3(w.roundtrip(s, w.produce_v3(7, topic, 0, batch, acks=-1,
                                                              transactional_id="raw-markers")))
    return parts[(topic, 0)]


def fetch(s, topic, offset, isolation, max_wait_ms=0, partition=0):
    """Fetch v11 without a session; -> dict with aborted=[(pid, first_offset)]."""
    body = struct.pack(">iiiibii", -1, max_wait_ms, 1, 50 << 20, isolation, 0, -1)
    body += struct.pack(">i", 1) + w.string(topic) + struct.pack(">i", 1)
    body += struct.pack(">iiqqi", partition, -1, offset, -1, 1 << 20)
    body += struct.pack(">i", 0) + w.string("")
    frame = w.roundtrip(s, w.request(1, 11, 31, body))
    r = w.Reader(frame)
    _corr, _throttle, err, _sid = r.take(">iihi")
    assert err == NONE
    assert r.take(">i") == 1
    r.string()
    assert r.take(">i") == 1
    _idx, perr, hw, lso, _start = r.take(">ihqqq")
    n = r.take(">i")
    aborted = None if n < 0 else [r.take(">qq") for _ in range(n)]
    r.take(">i")
    size = r.take(">i")
    recs = r.data[r.pos:r.pos + size] if size > 0 else b""
    return {"error": perr, "hw": hw, "lso": lso, "aborted": aborted, "records": recs}


def list_latest(s, topic, isolation):
    """ListOffsets v2 latest (-1) -> (error, offset)."""
    body = struct.pack(">ib", -1, isolation) + struct.pack(">i", 1) + w.string(topic)
    body += struct.pack(">i", 1) + struct.pack(">iq", 0, -1)
    r = w.Reader(w.roundtrip(s, w.request(2, 2, 41, body)))
    r.take(">ii")
    assert r.take(">i") == 1
    r.string()
    assert r.take(">i") == 1
    _p, err, _ts, offset = r.take(">ihqq")
    return err, offset


def markers(s, topic, pid, epoch, commit, coordinator_epoch=0, partitions=(0,)):
    frame = w.roundtrip(s, w.write_txn_markers_v1(51, [(pid, epoch, commit, [(topic, list(partitions))],
                                                        coordinator_epoch)]))
    _, out = w.parse_write_txn_markers_v1(frame)
    return out


def describe_producers(s, topic, partitions=(0,)):
    """DescribeProducers v0 -> {partition: (error, {pid: (epoch, last_seq, coord_epoch, txn_start)})}"""
    body = w.compact_array([topic], lambda t: w.compact_string(t)
                           + w.compact_array(list(partitions), lambda p: struct.pack(">i", p)) + b"\x00") + b"\x00"
    r = w.FlexReader(w.roundtrip(s, w.request_flexible(61, 0, 61, body)))
    r.take(">i")
    r.tags()
    r.take(">i")
    out = {}
    for _ in range(r.compact_len()):
        r.compact_string()
        for _ in range(r.compact_len()):
            idx, err = r.take(">ih")
            r.compact_string()  # error message (nullable)
            prods = {}
            for _ in range(r.compact_len()):
                pid, epoch, last_seq, _ts, coord, start = r.take(">qiiqiq")
                r.tags()
                prods[pid] = (epoch, last_seq, coord, start)
            r.tags()
            out[idx] = (err, prods)
        r.tags()
    r.tags()
    assert r.pos == len(r.data)
    return out


def values_in(records):
    """Values of the data records of a record set (uncompressed)."""
    out = []
    pos = 0
    while pos + 61 <= len(records):
        _base, length = struct.unpack_from(">qi", records, pos)
        (attributes,) = struct.unpack_from(">h", records, pos + 21)
        (count,) = struct.unpack_from(">i", records, pos + 57)
        rp = pos + 61
        for _ in range(count):
            _l, rp = w._read_varint(records, rp)
            rp += 1
            _ts, rp = w._read_varint(records, rp)
            _od, rp = w._read_varint(records, rp)
            klen, rp = w._read_varint(records, rp)
            rp += max(klen, 0)
            vlen, rp = w._read_varint(records, rp)
            val = records[rp:rp + vlen]
            rp += max(vlen, 0)
            nh, rp = w._read_varint(records, rp)
            assert nh == 0
            if not attributes & 0x20:
                out.append(bytes(val))
        pos += 12 + length
    return out


def wait_ready(port, topic):
    """After a restart the partition may still be loading."""
    deadline = time.monotonic() + 30
    while True:
        with w.connect(port, timeout=30) as s:
            f = fetch(s, topic, 0, READ_UNCOMMITTED)
        if f["error"] == NONE or time.monotonic() > deadline:
            return
        time.sleep(0.2)


def check_settled(port, topic, a, b):
    """State after: A aborted (0-1, 3), B committed (2), plain (4), markers 5-6,
    A's second transaction open at 7, plain (8)."""
    with w.connect(port, timeout=30) as s:
        f = fetch(s, topic, 0, READ_COMMITTED)
        assert f["error"] == NONE
        assert (f["hw"], f["lso"]) == (9, 7), "LSO stays at the open transaction's first offset"
        assert f["aborted"] == [(a, 0)]
        assert [m[0] for m in w.batches(f["records"])] == [0, 2, 3, 4, 5, 6]
        assert [(o, p, kind) for o, p, _e, kind in w.control_markers(f["records"])] == \
            [(5, a, "ABORT"), (6, b, "COMMIT")]
        # read_uncommitted reads to the high watermark but reports the LSO too.
        u = fetch(s, topic, 0, READ_UNCOMMITTED)
        assert (u["hw"], u["lso"]) == (9, 7)
        assert [m[0] for m in w.batches(u["records"])] == [0, 2, 3, 4, 5, 6, 7, 8]
        assert list_latest(s, topic, READ_COMMITTED) == (NONE, 7)
        assert list_latest(s, topic, READ_UNCOMMITTED) == (NONE, 9)
        # Fetching past the aborted range lists no abort.
        assert fetch(s, topic, 6, READ_COMMITTED)["aborted"] == []
        d = describe_producers(s, topic)
        err, prods = d[0]
        assert err == NONE
        assert prods[a][2:] == (3, 7), "A: coordinator epoch 3, transaction open at 7"
        assert prods[b][2:] == (3, -1)


def test_markers_lso_aborted_and_recovery(broker_factory, topic_name):
    br = broker_factory()
    create_topic(br.bootstrap, topic_name)
    t = topic_name
    with w.connect(br.port) as s:
        (a, ea), (b, eb) = new_pid(s, 1), new_pid(s, 2)
        assert produce(s, t, w.transactional_batch(a, ea, 0, [b"a0", b"a1"])) == (NONE, 0)
        assert produce(s, t, w.transactional_batch(b, eb, 0, [b"b0"])) == (NONE, 2)
        assert produce(s, t, w.transactional_batch(a, ea, 2, [b"a2"])) == (NONE, 3)
        assert produce(s, t, w.record_batch([(None, b"plain", ())], 1_700_000_000_000)) == (NONE, 4)
        f = fetch(s, t, 0, READ_COMMITTED)
        assert (f["hw"], f["lso"], f["records"]) == (5, 0, b""), "nothing is stable before the markers"
        assert list_latest(s, t, READ_COMMITTED) == (NONE, 0)

        assert markers(s, t, a, ea, commit=False, coordinator_epoch=3) == {(a, t, 0): NONE}
        f = fetch(s, t, 0, READ_COMMITTED)
        assert f["lso"] == 2, "B's transaction is still open at 2"
        assert [m[0] for m in w.batches(f["records"])] == [0]
        assert f["aborted"] == [(a, 0)]

        assert markers(s, t, b, eb, commit=True, coordinator_epoch=3) == {(b, t, 0): NONE}
        # Errors: a fenced epoch, an unknown partition, an older coordinator.
        assert markers(s, t, a, ea - 1 if ea > 0 else -2, commit=True, coordinator_epoch=3) == \
            {(a, t, 0): INVALID_PRODUCER_EPOCH}
        assert markers(s, t, a, ea, commit=True, partitions=(5,), coordinator_epoch=3) == \
            {(a, t, 5): UNKNOWN_TOPIC_OR_PARTITION}
        f = fetch(s, t, 0, READ_COMMITTED)
        assert f["lso"] == 7
        assert values_in(f["records"]) == [b"a0", b"a1", b"b0", b"a2", b"plain"]

        # A opens another transaction: the LSO sticks at its first offset.
        assert produce(s, t, w.transactional_batch(a, ea, 3, [b"a3"])) == (NONE, 7)
        assert produce(s, t, w.record_batch([(None, b"plain2", ())], 1_700_000_000_000)) == (NONE, 8)
    check_settled(br.port, t, a, b)

    br.restart()
    wait_ready(br.port, t)
    check_settled(br.port, t, a, b)

    br.kill9()
    br.start()
    wait_ready(br.port, t)
    check_settled(br.port, t, a, b)

    with w.connect(br.port, timeout=30) as s:
        # The marker completes the transaction opened before the crash.
        assert markers(s, t, a, ea, commit=True, coordinator_epoch=3) == {(a, t, 0): NONE}
        f = fetch(s, t, 0, READ_COMMITTED)
        assert (f["hw"], f["lso"]) == (10, 10)
        assert f["aborted"] == [(a, 0)]
        assert values_in(f["records"])[-2:] == [b"a3", b"plain2"]


def test_kill9_between_batch_and_marker(broker_factory, topic_name):
    br = broker_factory()
    create_topic(br.bootstrap, topic_name)
    with w.connect(br.port) as s:
        pid, epoch = new_pid(s)
        assert produce(s, topic_name, w.transactional_batch(pid, epoch, 0, [b"x"])) == (NONE, 0)
    br.kill9()
    br.start()
    wait_ready(br.port, topic_name)
    with w.connect(br.port, timeout=30) as s:
        f = fetch(s, topic_name, 0, READ_COMMITTED)
        assert (f["hw"], f["lso"], f["records"]) == (1, 0, b""), "still open after the crash"
        assert markers(s, topic_name, pid, epoch, commit=False) == {(pid, topic_name, 0): NONE}
        f = fetch(s, topic_name, 0, READ_COMMITTED)
        assert (f["lso"], f["aborted"]) == (2, [(pid, 0)])


def test_read_committed_long_poll_wakes_on_marker(broker, topic_name):
    create_topic(broker.bootstrap, topic_name)
    with w.connect(broker.port) as s:
        pid, epoch = new_pid(s)
        assert produce(s, topic_name, w.transactional_batch(pid, epoch, 0, [b"x"])) == (NONE, 0)
    result = {}

    def poll():
        with w.connect(broker.port, timeout=60) as s:
            result["f"] = fetch(s, topic_name, 0, READ_COMMITTED, max_wait_ms=30000)

    th = threading.Thread(target=poll)
    th.start()
    time.sleep(0.5)  # let the fetch park (if it has not, it simply answers at once)
    with w.connect(broker.port) as s:
        assert markers(s, topic_name, pid, epoch, commit=True) == {(pid, topic_name, 0): NONE}
    th.join(60)
    assert not th.is_alive()
    f = result["f"]
    assert f["lso"] == 2
    assert values_in(f["records"]) == [b"x"], "the parked read_committed fetch answers with the committed data"


def test_confluent_consumer_reads_only_committed(broker, topic_name):
    """librdkafka (read_committed by default) drops aborted batches using the
    aborted list and never stalls on a partition without transactions."""
    create_topic(broker.bootstrap, topic_name, partitions=2)
    t = topic_name
    with w.connect(broker.port) as s:
        (a, ea), (b, eb) = new_pid(s, 1), new_pid(s, 2)
        assert produce(s, t, w.transactional_batch(a, ea, 0, [b"a0", b"a1"]))[0] == NONE
        assert produce(s, t, w.transactional_batch(b, eb, 0, [b"b0"]))[0] == NONE
        assert produce(s, t, w.transactional_batch(a, ea, 2, [b"a2"]))[0] == NONE
        assert markers(s, t, a, ea, commit=False) == {(a, t, 0): NONE}
        assert produce(s, t, w.transactional_batch(b, eb, 1, [b"b1"]))[0] == NONE
        assert markers(s, t, b, eb, commit=True) == {(b, t, 0): NONE}
        assert produce(s, t, w.record_batch([(None, b"plain", ())], 1_700_000_000_000))[0] == NONE
        # Partition 1: no transactions at all.
        body = w.record_batch([(None, b"p1-%d" % i, ()) for i in range(3)], 1_700_000_000_000)
        _, parts = w.parse_produce_v3(w.roundtrip(s, w.produce_v3(8, t, 1, body, acks=-1)))
        assert parts[(t, 1)][0] == NONE
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "rc-" + uuid.uuid4().hex[:8],
                  "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    try:
        c.assign([TopicPartition(t, 0, 0), TopicPartition(t, 1, 0)])
        got = {0: [], 1: []}
        deadline = time.monotonic() + 60
        while (len(got[0]) < 3 or len(got[1]) < 3) and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None or m.error():
                continue
            got[m.partition()].append(m.value())
        assert got[0] == [b"b0", b"b1", b"plain"]
        assert got[1] == [b"p1-0", b"p1-1", b"p1-2"]
    finally:
        c.close()
