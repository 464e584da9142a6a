"""Small helpers around confluent-kafka-python (librdkafka) used by several
test files: producing with per-message delivery results and consuming a
partition from the beginning without a consumer group (the broker does not
serve group APIs yet, so consumers use manual assignment only)."""

import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition, OFFSET_BEGINNING

CLIENT_TIMEOUT_S = 30


def producer(bootstrap, **conf):
    c = {"bootstrap.servers": bootstrap, "linger.ms": 5,
         "message.timeout.ms": CLIENT_TIMEOUT_S * 1000}
    c.update(conf)
    return Producer(c)


def produce_all(p, topic, messages, partition=0):
    """messages: dicts with key/value/headers/timestamp. Returns the list of
    delivery reports (err, partition, offset) in the order produced."""
    reports = [None] * len(messages)

    def cb_for(i):
        def cb(err, msg):
            reports[i] = (err, msg.partition(), msg.offset())
        return cb

    for i, m in enumerate(messages):
        kw = {}
        if m.get("headers") is not None:
            kw["headers"] = m["headers"]
        if m.get("timestamp") is not None:
            kw["timestamp"] = m["timestamp"]
        if partition is not None:
            kw["partition"] = partition
        while True:
            try:
                p.produce(topic, value=m.get("value"), key=m.get("key"), on_delivery=cb_for(i), **kw)
                break
            except BufferError:
                p.poll(0.1)
        p.poll(0)
    remaining = p.flush(CLIENT_TIMEOUT_S)
    assert remaining == 0, f"{remaining} messages still in the producer queue after flush"
    assert all(r is not None for r in reports), "missing delivery reports"
    return reports


def consumer(bootstrap, **conf):
    # No group.id: librdkafka then runs no group coordinator logic at all, so
    # the test does not depend on FindCoordinator.
    c = {"bootstrap.servers": bootstrap, "enable.auto.commit": False,
         "enable.partition.eof": True, "auto.offset.reset": "earliest",
         "group.id": "compat-no-group", "socket.timeout.ms": 10000}
    c.update(conf)
    return Consumer(c)


def consume(bootstrap, topic, partitions=(0,), expected=None, timeout=CLIENT_TIMEOUT_S, **conf):
    """Reads the given partitions from the beginning until each reaches EOF
    (and, if given, at least `expected` messages arrived). Returns the
    messages (confluent Message objects) in arrival order."""
    c = consumer(bootstrap, **conf)
    try:
        c.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in partitions])
        got = []
        at_eof = set()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None:
                continue
            if m.error():
                if m.error().code() == KafkaError._PARTITION_EOF:
                    at_eof.add(m.partition())
                    if len(at_eof) == len(partitions) and (expected is None or len(got) >= expected):
                        break
                    continue
                raise AssertionError(f"consumer error: {m.error()}")
            at_eof.discard(m.partition())
            got.append(m)
        else:
            raise AssertionError(f"timed out consuming {topic}: got {len(got)} messages, "
                                 f"expected {expected}, eof on {sorted(at_eof)}")
        return got
    finally:
        c.close()


def login_errors(conf, timeout=20):
    """What a producer with `conf` (security settings included) reports
    while it tries to get metadata: [] once the broker answered, else every
    error it reported (an authentication failure among them) before
    `timeout` seconds."""
    errors = []
    p = Producer(dict(conf, error_cb=lambda e: errors.append(e)))
    deadline = time.monotonic() + timeout
    while not errors and time.monotonic() < deadline:
        try:
            p.list_topics(timeout=1)
            return []
        except Exception:  # noqa: BLE001 - KafkaException until it answers
            p.poll(0.2)
    return errors
