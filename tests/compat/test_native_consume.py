"""`spool consume` (the native consumer) against a real broker: Spool, or
Apache Kafka 4.4 with SPOOL_TEST_PEER=kafka. Records are produced with
confluent-kafka (librdkafka); the command's output is compared line by line.

Covers --from-beginning, --offset N / -N, --from-time, --partition, --group
(a second run of the group resumes at the committed offsets), the text and
JSON formats with their optional fields, --isolation-level read_committed
skipping an aborted transaction, a group shared with confluent-kafka
consumers, and the exit codes for bad arguments (2) and an unreachable
broker (1)."""

import base64
import json
import subprocess
import time
import uuid

import pytest

from confluent_kafka import Consumer

import ck_util
from group_util import create_topic, wait_until
from harness import free_port, spool_bin
from txn_util import txn_producer

BROKER_OVERRIDES = {"group.initial.rebalance.delay.ms": "0"}
WAIT_S = 60


def consume(bootstrap, *args, timeout=90):
    r = subprocess.run([spool_bin(), "consume", "--bootstrap-server", bootstrap, *args],
                       capture_output=True, timeout=timeout)
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


def ok_lines(bootstrap, *args):
    rc, out, err = consume(bootstrap, *args)
    assert rc == 0, f"spool consume {args} exited {rc}: {err}"
    return out.splitlines()


def produce(bootstrap, topic, messages, partition=0):
    p = ck_util.producer(bootstrap, acks="all")
    for err, _, _ in ck_util.produce_all(p, topic, messages, partition=partition):
        assert err is None, err


def test_text_fields_from_beginning(bootstrap, topic):
    create_topic(bootstrap, topic, 1)
    produce(bootstrap, topic, [
        {"key": b"k0", "value": b"v0", "timestamp": 1000, "headers": [("h1", b"x"), ("h2", b"y")]},
        {"key": None, "value": b"v1", "timestamp": 1001},
        {"key": b"k2", "value": None, "timestamp": 1002},
    ])
    lines = ok_lines(bootstrap, topic, "--from-beginning", "--max-messages", "3", "--print-timestamp",
                     "--print-partition", "--print-offset", "--print-headers", "--print-key")
    assert lines == [
        "CreateTime:1000\tPartition:0\tOffset:0\th1:x,h2:y\tk0\tv0",
        "CreateTime:1001\tPartition:0\tOffset:1\tNO_HEADERS\tnull\tv1",
        "CreateTime:1002\tPartition:0\tOffset:2\tNO_HEADERS\tk2\tnull",
    ]
    # Values only by default.
    assert ok_lines(bootstrap, topic, "--from-beginning", "--max-messages", "2") == ["v0", "v1"]


def test_json_utf8_and_base64(bootstrap, topic):
    create_topic(bootstrap, topic, 1)
    produce(bootstrap, topic, [
        {"key": "clé".encode(), "value": "héllo ✓".encode(), "timestamp": 5000,
         "headers": [("bin", b"\xff\x00"), ("txt", b"ok")]},
        {"key": None, "value": b"\xc3\x28\x00", "timestamp": 5001},
    ])
    lines = ok_lines(bootstrap, topic, "--from-beginning", "--max-messages", "2", "--format", "json",
                     "--print-key", "--print-headers", "--print-offset", "--print-partition",
                     "--print-timestamp")
    objs = [json.loads(line) for line in lines]
    assert objs[0] == {
        "timestamp": 5000, "timestamp_type": "CreateTime", "partition": 0, "offset": 0,
        "headers": [{"key": "bin", "value": base64.b64encode(b"\xff\x00").decode(), "value_encoding": "base64"},
                    {"key": "txt", "value": "ok"}],
        "key": "clé", "value": "héllo ✓"}
    assert objs[1] == {
        "timestamp": 5001, "timestamp_type": "CreateTime", "partition": 0, "offset": 1, "headers": [],
        "key": None, "value": base64.b64encode(b"\xc3\x28\x00").decode(), "value_encoding": "base64"}
    # Without --print-* flags: only the value.
    plain = ok_lines(bootstrap, topic, "--from-beginning", "--max-messages", "1", "--format", "json")
    assert [json.loads(x) for x in plain] == [{"value": "héllo ✓"}]


def test_offset_absolute_and_from_end(bootstrap, topic):
    create_topic(bootstrap, topic, 1)
    produce(bootstrap, topic, [{"value": f"m{i}".encode()} for i in range(10)])
    assert ok_lines(bootstrap, topic, "--partition", "0", "--offset", "7", "--timeout-ms", "3000",
                    "--print-offset") == ["Offset:7\tm7", "Offset:8\tm8", "Offset:9\tm9"]
    assert ok_lines(bootstrap, topic, "--partition", "0", "--offset", "-3", "--timeout-ms", "3000") == \
        ["m7", "m8", "m9"]
    # More than the log holds: from the start.
    assert ok_lines(bootstrap, topic, "--offset", "-50", "--max-messages", "2") == ["m0", "m1"]
    # latest: nothing old is printed; the timeout ends the run with exit code 0.
    rc, out, err = consume(bootstrap, topic, "--timeout-ms", "2000")
    assert rc == 0 and out == "", err
    assert "Processed a total of 0 messages" in err


def test_from_time(bootstrap, topic):
    create_topic(bootstrap, topic, 1)
    produce(bootstrap, topic, [{"value": f"t{i}".encode(), "timestamp": 100000 + 10 * i} for i in range(10)])
    assert ok_lines(bootstrap, topic, "--from-time", "100045", "--timeout-ms", "3000") == \
        ["t5", "t6", "t7", "t8", "t9"]
    # After the last record: nothing.
    assert ok_lines(bootstrap, topic, "--from-time", "999999", "--timeout-ms", "2000") == []


def test_partitions_and_several_topics(bootstrap, topic):
    other = topic + "-b"
    create_topic(bootstrap, topic, 3)
    create_topic(bootstrap, other, 3)
    for p in range(3):
        produce(bootstrap, topic, [{"value": f"a{p}-{i}".encode()} for i in range(2)], partition=p)
        produce(bootstrap, other, [{"value": f"b{p}-{i}".encode()} for i in range(2)], partition=p)
    lines = ok_lines(bootstrap, topic, other, "--partition", "0", "--partition", "2", "--from-beginning",
                     "--timeout-ms", "3000", "--print-partition")
    assert sorted(lines) == sorted(f"Partition:{p}\t{t}{p}-{i}" for t in "ab" for p in (0, 2) for i in range(2))
    # All partitions when none is named.
    assert len(ok_lines(bootstrap, topic, "--from-beginning", "--timeout-ms", "3000")) == 6


def test_group_resumes_at_committed_offsets(bootstrap, topic):
    create_topic(bootstrap, topic, 2)
    group = "native-" + uuid.uuid4().hex[:8]
    for p in range(2):
        produce(bootstrap, topic, [{"value": f"p{p}-{i}".encode()} for i in range(3)], partition=p)
    first = ok_lines(bootstrap, topic, "--group", group, "--from-beginning", "--max-messages", "4")
    assert len(first) == 4
    second = ok_lines(bootstrap, topic, "--group", group, "--from-beginning", "--timeout-ms", "5000")
    assert sorted(first + second) == sorted(f"p{p}-{i}" for p in range(2) for i in range(3))
    produce(bootstrap, topic, [{"value": b"late"}], partition=1)
    assert ok_lines(bootstrap, topic, "--group", group, "--timeout-ms", "5000") == ["late"]
    # The committed offsets are the group's, as other clients see them.
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    try:
        from confluent_kafka import TopicPartition
        committed = c.committed([TopicPartition(topic, 0), TopicPartition(topic, 1)], timeout=30)
        assert sorted(tp.offset for tp in committed) == [3, 4]
    finally:
        c.close()


def test_read_committed_skips_aborted_transaction(bootstrap, topic):
    create_topic(bootstrap, topic, 1)
    p = txn_producer(bootstrap, "native-" + uuid.uuid4().hex[:8])
    p.init_transactions(WAIT_S)
    for tag, commit in (("a", True), ("b", False), ("c", True)):
        p.begin_transaction()
        for i in range(2):
            p.produce(topic, value=f"{tag}{i}".encode(), partition=0)
        p.flush(WAIT_S)
        (p.commit_transaction if commit else p.abort_transaction)(WAIT_S)
    assert ok_lines(bootstrap, topic, "--from-beginning", "--isolation-level", "read_committed",
                    "--timeout-ms", "3000", "--print-offset") == \
        ["Offset:0\ta0", "Offset:1\ta1", "Offset:6\tc0", "Offset:7\tc1"]
    assert ok_lines(bootstrap, topic, "--from-beginning", "--isolation-level", "read_uncommitted",
                    "--timeout-ms", "3000") == ["a0", "a1", "b0", "b1", "c0", "c1"]


def test_bad_arguments_exit_2(bootstrap, topic):
    for args in (["--group", "g", "--partition", "0"],
                 ["--offset", "abc"],
                 ["--from-beginning", "--offset", "3"],
                 ["--group", "g", "--from-time", "5"],
                 ["--format", "xml"],
                 ["--isolation-level", "dirty"],
                 ["--property", "nokey"],
                 ["--property", "auto.offset.reset=bogus"],
                 ["--max-messages", "0"],
                 []):
        cmd = [topic] + args if args else []
        rc, _, err = consume(bootstrap, *cmd, timeout=30)
        assert rc == 2, f"{args}: exit {rc}, {err}"
    for args in (["--include", "x.*"],                       # a pattern needs a group
                 ["--include", "x.*", "--group", "g", topic],  # a pattern or topics, not both
                 ["--include", "(", "--group", "g"]):          # not a regex
        rc, _, err = consume(bootstrap, *args, timeout=30)
        assert rc == 2, f"{args}: exit {rc}, {err}"


def test_unreachable_broker_exits_1():
    port = free_port()
    start = time.monotonic()
    rc, out, err = consume(f"127.0.0.1:{port}", "some-topic", "--timeout-ms", "2000", timeout=60)
    assert rc == 1, err
    assert out == ""
    assert "some-topic" in err
    assert time.monotonic() - start < 30


def test_mixed_group_with_confluent_consumers(bootstrap, topic):
    """Two `spool consume --group` processes and two confluent-kafka consumers
    in one group (range, which both speak): every record is printed or
    received exactly once, so each partition had one owner at a time."""
    nparts = 6
    create_topic(bootstrap, topic, nparts)
    group = "mixed-" + uuid.uuid4().hex[:8]
    conf = {"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "earliest",
            "partition.assignment.strategy": "range", "enable.auto.commit": True}
    cks = [Consumer(conf) for _ in range(2)]
    assigned = [set() for _ in cks]

    def on_assign(i):
        def cb(c, parts):
            assigned[i] = {p.partition for p in parts}
        return cb

    for i, c in enumerate(cks):
        c.subscribe([topic], on_assign=on_assign(i))
    procs = [subprocess.Popen([spool_bin(), "consume", "--bootstrap-server", bootstrap, topic, "--group", group,
                               "--from-beginning", "--timeout-ms", "15000",
                               "--property", "partition.assignment.strategy=range"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    got = []
    try:
        # The group settles with every member owning something.
        def settled():
            for c in cks:
                c.poll(0.2)
            return all(assigned) and sum(len(a) for a in assigned) < nparts
        wait_until(settled, timeout=WAIT_S, what="the mixed group to share the partitions")
        n = 120
        for p in range(nparts):
            produce(bootstrap, topic, [{"value": f"{p}-{i}".encode()} for i in range(n // nparts)], partition=p)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            for c in cks:
                m = c.poll(0.2)
                if m is not None and not m.error():
                    got.append(m.value().decode())
    finally:
        for c in cks:
            c.close()
    for proc in procs:
        out, err = proc.communicate(timeout=90)
        assert proc.returncode == 0, err.decode()
        got.extend(out.decode().splitlines())
    assert sorted(got) == sorted(f"{p}-{i}" for p in range(nparts) for i in range(120 // nparts))


def test_empty_partition_from_the_beginning(bootstrap, topic):
    """An empty partition read from offset 0: the consumer's position carries
    the leader epoch ListOffsets gave it, so its Fetch names that epoch as the
    last fetched one. The broker must serve it (nothing to read), not answer
    OFFSET_OUT_OF_RANGE for ever (a single Spool node had no epoch entry
    before its first batch)."""
    import os
    create_topic(bootstrap, topic, 2)
    produce(bootstrap, topic, [{"value": b"only on partition 0"}], partition=0)
    r = subprocess.run([spool_bin(), "consume", topic, "--bootstrap-server", bootstrap, "--partition", "1",
                        "--from-beginning", "--timeout-ms", "1500"],
                       capture_output=True, timeout=90, env=dict(os.environ, SPOOL_CLI_LOG="info"))
    err = r.stderr.decode(errors="replace")
    assert r.returncode == 0, err
    assert r.stdout == b""
    assert "out of range" not in err, err[-2000:]
    assert "Processed a total of 0 messages" in err


@pytest.mark.parametrize("codec", ["none", "gzip", "snappy", "lz4", "zstd"])
def test_every_codec(bootstrap, topic, codec):
    """Batches librdkafka compressed with each codec decode in the native
    consumer: values, keys and order exact."""
    create_topic(bootstrap, topic, 1)
    p = ck_util.producer(bootstrap, acks="all", **{"compression.type": codec, "linger.ms": 20})
    msgs = [{"key": f"k{i % 5}".encode(), "value": f"{codec} value {i} {'z' * (i % 70)}".encode()}
            for i in range(500)]
    for err, _, _ in ck_util.produce_all(p, topic, msgs, partition=0):
        assert err is None, err
    lines = ok_lines(bootstrap, topic, "--partition", "0", "--from-beginning", "--timeout-ms", "3000",
                     "--print-key", "--print-offset")
    assert len(lines) == len(msgs)
    for i, line in enumerate(lines):
        assert line.split("\t") == [f"Offset:{i}", f"k{i % 5}", msgs[i]["value"].decode()], line


def test_include_regex_follows_new_topics(bootstrap, topic):
    """--include: a group subscribed by pattern reads every matching topic
    (whole-name match), not the others, and a matching topic created while it
    runs joins at the next metadata refresh."""
    a, b, late, other = f"{topic}.a", f"{topic}.b", f"{topic}.late", f"x{topic}.a"
    create_topic(bootstrap, a, 2)
    create_topic(bootstrap, b, 1)
    create_topic(bootstrap, other, 1)
    produce(bootstrap, a, [{"value": b"a0"}], partition=0)
    produce(bootstrap, a, [{"value": b"a1"}], partition=1)
    produce(bootstrap, b, [{"value": b"b0"}])
    produce(bootstrap, other, [{"value": b"other"}])
    proc = subprocess.Popen([spool_bin(), "consume", "--bootstrap-server", bootstrap, "--include",
                             topic.replace(".", "\\.") + "\\..*", "--group", f"{topic}-g", "--from-beginning",
                             "--max-messages", "5", "--timeout-ms", "60000", "--property", "metadata.max.age.ms=500"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        seen = []
        for _ in range(3):
            seen.append(proc.stdout.readline().decode().strip())
        assert sorted(seen) == ["a0", "a1", "b0"], seen
        create_topic(bootstrap, late, 1)
        produce(bootstrap, late, [{"value": b"late0"}, {"value": b"late1"}])
        out, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err.decode()
    assert out.decode().split() == ["late0", "late1"], (seen, out, err.decode()[-2000:])

