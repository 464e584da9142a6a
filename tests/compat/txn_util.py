"""Helpers for the transaction tests (test_transactions.py,
test_eos_pipeline.py, tests/system/test_txn_crash.py) and
bench/txn_throughput.py, built on confluent-kafka-python (librdkafka 2.0.x).

Contract:
  * Payloads are self-describing strings "<tag>:<n>" so a reader can tell
    which transaction a record belongs to and that nothing foreign (e.g. a
    control record's bytes) surfaced.
  * `read_to_end` reads whole partitions from the beginning without a group
    until every partition reports EOF; under read_committed EOF is the last
    stable offset, so it returns what a read_committed consumer can see now.
  * `read_until_sentinels` reads until every partition has delivered a
    non-transactional sentinel written after everything else: since a
    read_committed fetch never passes an open transaction, reaching the
    sentinels proves every earlier transaction was resolved, and no sleep
    is needed to be sure nothing more is coming.
  * Every wait has a deadline (generous) and fails with AssertionError naming
    what was missing; nothing asserts on durations.
"""

import time

from confluent_kafka import (OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer,
                             TopicPartition)

WAIT_S = 60
SENTINEL = "sentinel"


def payload(tag, n):
    return f"{tag}:{n}".encode()


def parse(value):
    tag, _, n = value.decode().rpartition(":")
    return tag, int(n)


def create_topic(bootstrap, topic, partitions, config=None):
    from confluent_kafka.admin import AdminClient, NewTopic
    a = AdminClient({"bootstrap.servers": bootstrap})
    fs = a.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1,
                                   config=config or {})], operation_timeout=30)
    fs[topic].result(timeout=WAIT_S)


def txn_producer(bootstrap, txn_id, **conf):
    c = {"bootstrap.servers": bootstrap, "transactional.id": txn_id, "linger.ms": 5,
         "transaction.timeout.ms": 60000}
    c.update(conf)
    # librdkafka refuses message.timeout.ms > transaction.timeout.ms.
    c.setdefault("message.timeout.ms", min(WAIT_S * 1000, int(c["transaction.timeout.ms"])))
    return Producer(c)


def plain_producer(bootstrap, **conf):
    c = {"bootstrap.servers": bootstrap, "linger.ms": 5, "acks": "all",
         "message.timeout.ms": WAIT_S * 1000}
    c.update(conf)
    return Producer(c)


def produce(p, topic, records):
    """records: iterable of (partition, value). Enqueues them (no flush);
    delivery errors are collected into the returned list as (value, err)."""
    errors = []

    def cb(err, msg):
        if err is not None:
            errors.append((msg.value(), err))

    for part, value in records:
        while True:
            try:
                p.produce(topic, value=value, partition=part, on_delivery=cb)
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)
    return errors


def one_txn(p, topic, records, commit=True, timeout=WAIT_S):
    """begin, produce `records` [(partition, value)], then commit or abort.
    Raises KafkaException on any transactional failure."""
    p.begin_transaction()
    errors = produce(p, topic, records)
    if commit:
        p.commit_transaction(timeout)
        assert not errors, f"delivery errors inside a committed transaction: {errors[:5]}"
    else:
        # Abort only once the records are on the broker: an abort racing
        # librdkafka's first AddPartitionsToTxn (retried with
        # CONCURRENT_TRANSACTIONS while the previous commit completes) can
        # fail with INVALID_TXN_STATE on any broker (librdkafka issue #4849).
        p.flush(timeout)
        p.abort_transaction(timeout)


def write_sentinels(bootstrap, topic, nparts, tag=SENTINEL):
    p = plain_producer(bootstrap)
    errs = produce(p, topic, [(i, payload(tag, i)) for i in range(nparts)])
    left = p.flush(WAIT_S)
    assert left == 0 and not errs, f"sentinel produce failed: left={left} errors={errs}"


def _consumer(bootstrap, isolation, **conf):
    c = {"bootstrap.servers": bootstrap, "group.id": "txn-reader-no-commit",
         "enable.auto.commit": False, "enable.partition.eof": True,
         "auto.offset.reset": "earliest", "isolation.level": isolation,
         "socket.timeout.ms": 10000}
    c.update(conf)
    return Consumer(c)


def _check(m):
    if m.error():
        if m.error().code() == KafkaError._PARTITION_EOF:
            return "eof"
        raise AssertionError(f"consumer error: {m.error()}")
    return "msg"


def read_to_end(bootstrap, topic, nparts, isolation="read_committed", timeout=WAIT_S):
    """[(partition, offset, value)] of every record visible under `isolation`
    up to EOF (the LSO for read_committed, the high watermark otherwise)."""
    c = _consumer(bootstrap, isolation)
    try:
        c.assign([TopicPartition(topic, i, OFFSET_BEGINNING) for i in range(nparts)])
        got, eof = [], set()
        deadline = time.monotonic() + timeout
        while len(eof) < nparts:
            if time.monotonic() > deadline:
                raise AssertionError(f"{topic}: no EOF on partitions "
                                     f"{sorted(set(range(nparts)) - eof)} within {timeout} s "
                                     f"({isolation}, {len(got)} records read)")
            m = c.poll(0.5)
            if m is None:
                continue
            if _check(m) == "eof":
                eof.add(m.partition())
                continue
            eof.discard(m.partition())
            got.append((m.partition(), m.offset(), m.value()))
        return got
    finally:
        c.close()


def read_until_sentinels(bootstrap, topic, nparts, isolation="read_committed", timeout=WAIT_S,
                         tag=SENTINEL):
    """Reads until every partition delivered its sentinel (see write_sentinels);
    returns the records before the sentinels as [(partition, offset, value)]."""
    c = _consumer(bootstrap, isolation, **{"enable.partition.eof": False})
    try:
        c.assign([TopicPartition(topic, i, OFFSET_BEGINNING) for i in range(nparts)])
        got, done = [], set()
        deadline = time.monotonic() + timeout
        while len(done) < nparts:
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{topic}: sentinels of partitions {sorted(set(range(nparts)) - done)} not "
                    f"delivered to a {isolation} consumer within {timeout} s "
                    f"({len(got)} records read): an unresolved transaction holds the LSO back?")
            m = c.poll(0.5)
            if m is None:
                continue
            _check(m)
            t, _ = parse(m.value())
            if t == tag:
                done.add(m.partition())
            else:
                got.append((m.partition(), m.offset(), m.value()))
        return got
    finally:
        c.close()


def watermarks(bootstrap, topic, partition, isolation="read_uncommitted"):
    """(low, high) from ListOffsets; under read_committed librdkafka asks for
    the last stable offset as "high"."""
    c = _consumer(bootstrap, isolation)
    try:
        return c.get_watermark_offsets(TopicPartition(topic, partition), timeout=30, cached=False)
    finally:
        c.close()


def kafka_error(exc):
    """The KafkaError inside a KafkaException (or None)."""
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        return exc.args[0]
    return None


def wait_until(pred, timeout=WAIT_S, what="condition", state=None, interval=0.1):
    deadline = time.monotonic() + timeout
    while True:
        if pred():
            return
        if time.monotonic() > deadline:
            extra = f"\nstate: {state()}" if state else ""
            raise AssertionError(f"timed out after {timeout} s waiting for {what}{extra}")
        time.sleep(interval)
