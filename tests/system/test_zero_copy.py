"""Zero-copy Fetch (sendfile) against a real broker: every Fetch answer is
byte-identical with sendfile on and off (SPOOL_SENDFILE=0, the copy path).

One log (two partitions, small segments so reads cross segment files, raw
batches of varied sizes plus committed and aborted transactions) is written,
then served — after a restart, so nothing moves — first by a broker with
sendfile, then from the same log directory by one without;
the same ~500 Fetch requests (v4, v7, v11, flexible v12 and v18 by topic id;
read_uncommitted and
read_committed; offsets at the start, inside and near the end; request and
partition byte limits from 1 byte to 50 MB) must get the same bytes back.
"""

import base64
import os
import shutil
import struct
import tempfile

from confluent_kafka.admin import AdminClient, NewTopic

from harness import Broker
import data_wire as dw
import kafka_wire as w
import txn_util

SEGMENT_BYTES = 16384
OVERRIDES = {"transaction.state.log.num.partitions": "1", "offsets.topic.num.partitions": "1"}


def fetch_body(version, partitions, max_bytes, isolation, min_bytes=1, max_wait_ms=0):
    """Sessionless Fetch v4..v11. partitions: [(topic, partition, offset, partition_max_bytes)]."""
    body = struct.pack(">iiii", -1, max_wait_ms, min_bytes, max_bytes) + struct.pack(">b", isolation)
    if version >= 7:
        body += struct.pack(">ii", 0, -1)  # no session, full fetch
    topics = []
    for t, p, off, pmax in partitions:
        if not topics or topics[-1][0] != t:
            topics.append((t, []))
        topics[-1][1].append((p, off, pmax))
    body += struct.pack(">i", len(topics))
    for t, parts in topics:
        body += w.string(t) + struct.pack(">i", len(parts))
        for p, off, pmax in parts:
            body += struct.pack(">i", p)
            if version >= 9:
                body += struct.pack(">i", -1)
            body += struct.pack(">q", off)
            if version >= 5:
                body += struct.pack(">q", -1)
            body += struct.pack(">i", pmax)
    if version >= 7:
        body += struct.pack(">i", 0)  # forgotten topics
    if version >= 11:
        body += w.string("")
    return body


def produce_raw(port, topic, partition, sizes):
    s = w.connect(port)
    try:
        for i, n in enumerate(sizes):
            recs = [(f"k{i}-{j}".encode(), bytes([65 + (i + j) % 26]) * n, ()) for j in range(1 + i % 4)]
            batch = w.record_batch(recs, base_ts=1_700_000_000_000 + i)
            frame = w.roundtrip(s, w.produce_v3(i + 1, topic, partition, batch, acks=1))
            assert frame is not None
    finally:
        s.close()


def high_watermarks(port, topic):
    s = w.connect(port)
    try:
        frame = w.roundtrip(s, w.request(1, 11, 1, fetch_body(11, [(topic, 0, 0, 1), (topic, 1, 0, 1)], 1, 0)))
        return [p["high_watermark"] for p in w.parse_fetch(frame)["partitions"]]
    finally:
        s.close()


def topic_id(log_dir, topic):
    """The id partition.metadata names (Kafka's format: base64url, no padding)."""
    text = open(os.path.join(log_dir, f"{topic}-0", "partition.metadata")).read()
    line = next(x for x in text.splitlines() if x.startswith("topic_id: "))
    return base64.urlsafe_b64decode(line[len("topic_id: "):] + "==")


def requests(topic, ends, tid):
    out = []
    corr = 1000
    for version in (4, 7, 11, 12, 18):
        for isolation in (0, 1):
            for frac in (0.0, 0.37, 0.9):
                for max_bytes, pmax in ((1, 1), (1000, 5000), (20000, 1 << 20), (50 << 20, 5000),
                                        (50 << 20, 1 << 20), (50 << 20, 50 << 20)):
                    corr += 1
                    if version >= 12:  # flexible; v13+ names the topic by id
                        name = tid if version >= 13 else topic
                        parts = [(name, p, int(ends[p] * frac), -1, -1, pmax) for p in (0, 1)]
                        out.append((corr, version, dw.fetch(corr, version, parts, max_bytes=max_bytes,
                                                            isolation=isolation)))
                        continue
                    parts = [(topic, p, int(ends[p] * frac), pmax) for p in (0, 1)]
                    out.append((corr, version, w.request(1, version, corr, fetch_body(version, parts, max_bytes,
                                                                                     isolation))))
    return out


def run_fetches(port, reqs):
    s = w.connect(port, timeout=30.0)
    try:
        # Pipelined, several answers in flight: exercises gathered writes too.
        answers = []
        for i in range(0, len(reqs), 8):
            chunk = reqs[i:i + 8]
            s.sendall(b"".join(r[2] for r in chunk))
            for _ in chunk:
                answers.append(w.read_frame(s))
        return answers
    finally:
        s.close()


def test_fetch_answers_are_byte_identical_with_and_without_sendfile(topic):
    work = tempfile.mkdtemp(prefix="spool-zero-copy-")
    log_dir = os.path.join(work, "data")
    brokers = []
    saved = os.environ.pop("SPOOL_SENDFILE", None)
    try:
        # 1. Write the log, then stop: the two serving brokers below restart
        # from the same, settled state (high watermark and LSO included).
        writer = Broker(overrides=OVERRIDES, log_dir=log_dir, name="writer")
        brokers.append(writer)
        writer.start()
        a = AdminClient({"bootstrap.servers": writer.bootstrap})
        fs = a.create_topics([NewTopic(topic, 2, 1, config={"segment.bytes": str(SEGMENT_BYTES)})],
                             operation_timeout=30)
        fs[topic].result(timeout=30)
        sizes = [(i * 7919) % 3000 + 10 for i in range(200)]
        produce_raw(writer.port, topic, 0, sizes)
        produce_raw(writer.port, topic, 1, sizes[::-1])
        # Transactions: one committed, one aborted, so read_committed answers
        # list aborted transactions.
        p = txn_util.txn_producer(writer.bootstrap, "zero-copy-txn")
        p.init_transactions(30)
        txn_util.one_txn(p, topic, [(0, b"committed-%d" % i) for i in range(50)], commit=True)
        txn_util.one_txn(p, topic, [(0, b"aborted-%d" % i) for i in range(50)], commit=False)
        txn_util.one_txn(p, topic, [(1, b"late-%d" % i) for i in range(20)], commit=True)
        p.flush(10)
        del p
        assert writer.stop() == 0
        segs = [n for n in os.listdir(os.path.join(log_dir, f"{topic}-0")) if n.endswith(".log")]
        assert len(segs) >= 5, f"expected several segments, got {segs}"

        # 2. Serve it with sendfile, then 3. without; same requests.
        on = Broker(overrides=OVERRIDES, log_dir=log_dir, name="sendfile")
        brokers.append(on)
        on.start()
        ends = high_watermarks(on.port, topic)
        assert min(ends) > 0, ends
        tid = topic_id(log_dir, topic)
        reqs = requests(topic, ends, tid)
        with_sendfile = run_fetches(on.port, reqs)
        assert on.stop() == 0

        os.environ["SPOOL_SENDFILE"] = "0"
        off = Broker(overrides=OVERRIDES, log_dir=log_dir, name="copy")
        brokers.append(off)
        off.start()
        assert high_watermarks(off.port, topic) == ends
        without = run_fetches(off.port, reqs)
        assert off.stop() == 0
    finally:
        if saved is None:
            os.environ.pop("SPOOL_SENDFILE", None)
        else:
            os.environ["SPOOL_SENDFILE"] = saved
        for b in brokers:
            if b.alive():
                b.stop()
        shutil.rmtree(work, ignore_errors=True)

    assert len(with_sendfile) == len(without) == len(reqs)
    total_records = 0
    for (corr, version, _), a, b in zip(reqs, with_sendfile, without):
        assert a is not None and b is not None, f"no answer to request {corr}"
        assert a == b, f"Fetch v{version} answer {corr} differs with sendfile on/off"
        if version >= 7:
            parsed = dw.parse_fetch(a, version) if version >= 12 else w.parse_fetch(a, version)
            assert parsed["corr"] == corr
            for part in parsed["partitions"]:
                assert part["error"] == 0, part
                total_records += len(part["records"] or b"")
    assert total_records > 1_600_000, "the comparison should cover plenty of record bytes"
