"""Memory-bounded request handling (issue 7): a client that pipelines
thousands of requests and does not read the answers must not make the
broker buffer without bound. The broker stops reading a connection while
its unanswered requests are at the per-connection limit (Kafka mutes a
channel while a response is outstanding), so what a stalled client costs is
bounded by that limit times the request/response size, not by how much it
sends. Checked with VmHWM (peak RSS) of a fresh broker; other clients are
served meanwhile; once the client reads, every request is answered, in
order, with the data it asked for.
"""

import socket
import threading
import time

import ck_util
import kafka_wire as w
from harness import status_mb

MB = 1024 * 1024
# Unbounded buffering would cost hundreds of MB in both tests; the bounded
# broker holds a few dozen requests/answers per connection.
MAX_GROWTH_MB = 128


def seed(bootstrap, topic, n=1, size=4):
    p = ck_util.producer(bootstrap, acks="all", **{"message.max.bytes": 2 * MB})
    msgs = [{"key": b"seed%d" % i, "value": bytes([i % 251]) * size} for i in range(n)]
    r = ck_util.produce_all(p, topic, msgs)
    assert all(x[0] is None for x in r), r


def round_trip_produce(port, topic, value, corr=99):
    with w.connect(port, timeout=30) as s:
        batch = w.record_batch([(b"k", value, ())], int(time.time() * 1000))
        s.sendall(w.produce_v3(corr, topic, 0, batch, acks=1))
        frame = w.read_frame(s)
    assert frame is not None
    got, parts = w.parse_produce_v3(frame)
    assert got == corr
    return parts[(topic, 0)][0]


class Pump:
    """Sends frames on its own thread (sendall blocks once the broker stops
    reading and the socket buffers are full) while the test does not read."""

    def __init__(self, port, frames):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.frames = frames
        self.sent = 0
        self.error = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        try:
            for f in self.frames:
                self.sock.sendall(f)
                self.sent += 1
        except OSError as e:
            self.error = e

    def settle(self, pid, quiet_s=3.0, limit_s=120):
        """Waits until neither the sender nor the broker's RSS moves for
        quiet_s (the broker is either done or pushing back)."""
        last = None
        still_since = time.monotonic()
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            now = (self.sent, round(status_mb(pid, "VmRSS")))
            if now != last:
                last, still_since = now, time.monotonic()
            elif time.monotonic() - still_since >= quiet_s:
                return
            time.sleep(0.2)


def test_pipelined_produce_without_reading(broker_factory, topic):
    b = broker_factory({"num.partitions": "1", "message.max.bytes": str(2 * MB)})
    seed(b.bootstrap, topic)
    base = status_mb(b.proc.pid, "VmRSS")
    n = 2000  # ~200 MB of 100 KB produce requests
    frames = [w.produce_v3(1000 + i, topic, 0,
                           w.record_batch([(b"p%d" % i, bytes([i % 251]) * (100 * 1024), ())],
                                          1_700_000_000_000 + i), acks=1)
              for i in range(n)]
    pump = Pump(b.port, frames)
    pump.settle(b.proc.pid)
    assert round_trip_produce(b.port, topic, b"other client") == 0
    pump.sock.settimeout(60)
    offsets = []
    for i in range(n):
        frame = w.read_frame(pump.sock)
        assert frame is not None, f"connection closed after {i} answers ({pump.error})"
        corr, parts = w.parse_produce_v3(frame)
        assert corr == 1000 + i
        err, base_offset = parts[(topic, 0)]
        assert err == 0, f"request {i}: error {err}"
        offsets.append(base_offset)
    pump.thread.join(60)
    assert pump.sent == n and pump.error is None
    pump.sock.close()
    assert offsets == sorted(offsets) and len(set(offsets)) == n
    peak = status_mb(b.proc.pid, "VmHWM") - base
    print(f"produce pipeline: peak RSS growth {peak:.1f} MB")
    assert peak < MAX_GROWTH_MB, f"peak RSS grew {peak:.1f} MB for a client pipelining produces"
    assert b.alive()


def test_pipelined_fetch_without_reading(broker_factory, topic):
    b = broker_factory({"num.partitions": "1", "message.max.bytes": str(2 * MB)})
    # 8 x ~128 KB batches: each fetch below answers ~1 MB.
    seed(b.bootstrap, topic, n=8, size=128 * 1024)
    base = status_mb(b.proc.pid, "VmRSS")
    n = 600  # unbounded: ~600 MB of answers held for a client not reading
    frames = [w.fetch_request(5000 + i, 0, -1, [(topic, 0, 0, 2 * MB)], max_bytes=2 * MB)
              for i in range(n)]
    pump = Pump(b.port, frames)
    pump.settle(b.proc.pid)
    stalled_peak = status_mb(b.proc.pid, "VmHWM") - base
    print(f"fetch pipeline: {pump.sent}/{n} requests sent while stalled, peak RSS growth {stalled_peak:.1f} MB")
    assert stalled_peak < MAX_GROWTH_MB, \
        f"peak RSS grew {stalled_peak:.1f} MB while a client pipelined {n} fetches without reading"
    assert round_trip_produce(b.port, topic, b"other client") == 0
    pump.sock.settimeout(60)
    for i in range(n):
        frame = w.read_frame(pump.sock)
        assert frame is not None, f"connection closed after {i} answers ({pump.error})"
        got = w.parse_fetch(frame)
        assert got["corr"] == 5000 + i and got["error"] == 0
        (part,) = got["partitions"]
        assert part["error"] == 0 and part["records"], f"fetch {i}: {part['error']}"
        assert w.batches(part["records"])[0][0] == 0
    pump.thread.join(60)
    assert pump.sent == n and pump.error is None
    pump.sock.close()
    assert b.alive()


def test_request_pool_bounds_all_connections_without_deadlock(broker_factory, topic):
    """queued.max.request.bytes far below what 4 pipelining connections
    offer at once: connections take turns (parked ones resume when requests
    are answered), every request is answered in order, and a single
    request larger than the whole pool still passes (Kafka's pool is not
    strict)."""
    b = broker_factory({"num.partitions": "1", "message.max.bytes": str(2 * MB),
                        "queued.max.request.bytes": str(300 * 1024)})
    seed(b.bootstrap, topic)
    conns, per_conn = 4, 150
    pumps = []
    for c in range(conns):
        frames = [w.produce_v3(10_000 * (c + 1) + i, topic, 0,
                               w.record_batch([(b"c%d-%d" % (c, i), bytes([i % 251]) * (100 * 1024), ())],
                                              1_700_000_000_000 + i), acks=-1)
                  for i in range(per_conn)]
        pumps.append(Pump(b.port, frames))
    offsets = []
    for c, pump in enumerate(pumps):
        pump.sock.settimeout(120)
        for i in range(per_conn):
            frame = w.read_frame(pump.sock)
            assert frame is not None, f"connection {c} closed after {i} answers ({pump.error})"
            corr, parts = w.parse_produce_v3(frame)
            assert corr == 10_000 * (c + 1) + i
            err, base_offset = parts[(topic, 0)]
            assert err == 0, f"connection {c} request {i}: error {err}"
            offsets.append(base_offset)
        pump.thread.join(60)
        assert pump.sent == per_conn and pump.error is None
        pump.sock.close()
    assert len(set(offsets)) == conns * per_conn
    # One frame of ~1.5 MB, five times the pool.
    big = w.record_batch([(b"big", b"B" * (1500 * 1024), ())], int(time.time() * 1000))
    with w.connect(b.port, timeout=60) as s:
        s.sendall(w.produce_v3(7, topic, 0, big, acks=-1))
        frame = w.read_frame(s)
    assert frame is not None
    assert w.parse_produce_v3(frame)[1][(topic, 0)][0] == 0
    assert "queued.max.request.bytes" not in b.log(), "the key is reported as not acted on"
    assert b.alive()
