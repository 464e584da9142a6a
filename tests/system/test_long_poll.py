"""Long-poll fetch (DelayedFetch in the fetch purgatory) against a real broker.

Behaviour, not speed: bounds are wide on purpose (shared, noisy machines).
* A librdkafka consumer waiting with fetch.wait.max.ms=500 receives a new
  message long before 500 ms: an append completes the parked fetch.
* A fetch on an empty partition returns after about max_wait_ms: not at
  once (that would be a busy loop for every idle consumer) and not much later.
"""

import statistics
import threading
import time

from confluent_kafka import Consumer, TopicPartition

import ck_util
import kafka_wire as w

MAX_WAIT_MS = 500


def test_parked_fetch_wakes_on_append(bootstrap, topic):
    p = ck_util.producer(bootstrap, acks="1", **{"linger.ms": 0})
    r = ck_util.produce_all(p, topic, [{"value": b"warm-up"}])  # creates the topic
    assert r[0][0] is None
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "long-poll", "enable.auto.commit": False,
                  "fetch.wait.max.ms": MAX_WAIT_MS, "fetch.min.bytes": 1})
    c.assign([TopicPartition(topic, 0, 1)])
    try:
        # Let the consumer reach the end and park its fetch.
        assert c.poll(1.0) is None
        waits = []
        for i in range(15):
            time.sleep(0.05 + (i % 5) * 0.04)  # land the append at varied points of the wait
            sent_at = time.monotonic()
            p.produce(topic, value=b"m%d" % i, partition=0)
            p.flush(10)
            msg = None
            while msg is None:
                msg = c.poll(5.0)
                assert time.monotonic() - sent_at < 5, "message not delivered within 5 s"
            assert msg.error() is None, msg.error()
            assert msg.value() == b"m%d" % i
            waits.append((time.monotonic() - sent_at) * 1000)
        median = statistics.median(waits)
        # Without a wake-up the median would be about half of max.wait (250 ms).
        assert median < MAX_WAIT_MS / 5, f"median append-to-delivery {median:.1f} ms, waits {waits}"
        print(f"median append-to-delivery wait: {median:.2f} ms over {len(waits)} messages")
    finally:
        c.close()


def test_empty_fetch_waits_about_max_wait(broker, topic):
    p = ck_util.producer(broker.bootstrap, acks="all")
    assert ck_util.produce_all(p, topic, [{"value": b"x"}])[0][0] is None
    s = w.connect(broker.port)
    try:
        elapsed = []
        for corr in range(1, 4):
            start = time.monotonic()
            # Offset 1 = the end: nothing to read; session id 0, epoch -1: sessionless.
            s.sendall(w.fetch_request(corr, 0, -1, [(topic, 0, 1, 1 << 20)], max_wait_ms=MAX_WAIT_MS))
            resp = w.parse_fetch(w.read_frame(s))
            elapsed.append((time.monotonic() - start) * 1000)
            assert resp["error"] == 0
            assert resp["partitions"][0]["error"] == 0
            assert resp["partitions"][0]["records"] in (b"", None)
        for ms in elapsed:
            assert MAX_WAIT_MS * 0.9 <= ms < MAX_WAIT_MS + 1000, f"empty fetch took {ms:.0f} ms: {elapsed}"
    finally:
        s.close()
