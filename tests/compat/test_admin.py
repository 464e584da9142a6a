"""Admin APIs through real admin clients against a real spool broker:
CreatePartitions and DescribeConfigs via confluent-kafka-python's AdminClient
(librdkafka 2.0.x) and kafka-python's KafkaAdminClient. Neither client has
DeleteRecords or DescribeCluster at these versions, so those are driven with
hand-built frames (tests/system/kafka_wire.py helpers), and their effect is
checked through the real clients (watermarks, consuming).

Against the Kafka 4.4 peer (SPOOL_TEST_PEER=kafka) the broker's node id comes
from metadata (Spool is node 0, the peer node 1), error messages are checked
in each broker's own words, and the intended differences listed in
tests/compat/README.md are checked per broker (PEER)."""

import os
import struct
import sys
import time

import pytest
from confluent_kafka import KafkaError, KafkaException, TopicPartition
from confluent_kafka.admin import (AdminClient, ConfigResource, ConfigSource, NewPartitions, NewTopic)
from kafka.admin import ConfigResource as KpConfigResource
from kafka.admin import ConfigResourceType, KafkaAdminClient
from kafka.admin import NewPartitions as KpNewPartitions
from kafka.admin import NewTopic as KpNewTopic

import ck_util
import kafka.errors
from harness import topic_configs, which_peer

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "system"))
import kafka_wire as w  # noqa: E402

TIMEOUT_S = 30
PEER = which_peer()

# Kafka error codes used below.
NONE, OFFSET_OUT_OF_RANGE, UNKNOWN_TOPIC_OR_PARTITION = 0, 1, 3
INVALID_PARTITIONS, INVALID_REPLICA_ASSIGNMENT, INVALID_REQUEST = 37, 39, 42


def admin(bootstrap):
    return AdminClient({"bootstrap.servers": bootstrap})


def create_topic(bootstrap, topic, partitions=1, config=None):
    a = admin(bootstrap)  # must outlive the future: a destroyed handle fails it
    fs = a.create_topics([NewTopic(topic, partitions, 1, config=config or {})], operation_timeout=10)
    fs[topic].result(timeout=TIMEOUT_S)
    wait_topic(bootstrap, topic, partitions)


def wait_topic(bootstrap, topic, partitions):
    """Until the broker's metadata has the topic with every partition led.
    Kafka answers CreateTopics once its controller committed the topic; the
    broker learns it from the metadata log a moment later (Spool at once)."""
    a = admin(bootstrap)
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        t = a.list_topics(topic, timeout=TIMEOUT_S).topics.get(topic)
        if t is not None and t.error is None and len(t.partitions) == partitions \
                and all(p.leader >= 0 for p in t.partitions.values()):
            return
        assert time.monotonic() < deadline, f"topic {topic} not in metadata {TIMEOUT_S} s after CreateTopics"
        time.sleep(0.05)


def node_id(bootstrap):
    """The single broker's node id (Spool 0, the Kafka peer 1)."""
    [nid] = admin(bootstrap).list_topics(timeout=TIMEOUT_S).brokers.keys()
    return nid


def partition_count(bootstrap, topic):
    md = admin(bootstrap).list_topics(topic, timeout=TIMEOUT_S)
    return len(md.topics[topic].partitions)


def produce_n(bootstrap, topic, n, partition=0):
    p = ck_util.producer(bootstrap, acks="all")
    reports = ck_util.produce_all(p, topic, [{"key": f"k{i}".encode(), "value": f"v{i}".encode()}
                                             for i in range(n)], partition=partition)
    assert all(r[0] is None for r in reports), reports
    return reports


def port_of(bootstrap):
    return int(bootstrap.rsplit(":", 1)[1])


def watermarks(bootstrap, topic, partition=0):
    c = ck_util.consumer(bootstrap)
    try:
        return c.get_watermark_offsets(TopicPartition(topic, partition), timeout=TIMEOUT_S, cached=False)
    finally:
        c.close()


# --- raw frames for the APIs the clients lack ---------------------------------

def delete_records(port, topic, offsets, version=1, corr=11):
    """offsets: {partition: offset}. -> {partition: (low_watermark, error)}"""
    body = struct.pack(">i", 1) + w.string(topic) + struct.pack(">i", len(offsets))
    for p, off in offsets.items():
        body += struct.pack(">iq", p, off)
    body += struct.pack(">i", 10000)
    with w.connect(port) as s:
        s.sendall(w.request(21, version, corr, body, client_id="spool-admin-test"))
        frame = w.read_frame(s)
    assert frame is not None, "broker closed the connection on DeleteRecords"
    r = w.Reader(frame)
    assert r.take(">i") == corr
    r.take(">i")  # throttle
    out = {}
    for _ in range(r.take(">i")):
        assert r.string() == topic
        for _ in range(r.take(">i")):
            idx, low, err = r.take(">iqh")
            out[idx] = (low, err)
    assert r.pos == len(frame), "trailing bytes in DeleteRecords response"
    return out


def _read_uvarint(r):
    shift = n = 0
    while True:
        b = r.take(">B")
        n |= (b & 0x7F) << shift
        if not b & 0x80:
            return n
        shift += 7


def _compact_string(r):
    n = _read_uvarint(r) - 1
    if n < 0:
        return None
    s = r.data[r.pos:r.pos + n].decode()
    r.pos += n
    return s


def _skip_tags(r):
    for _ in range(_read_uvarint(r)):
        _read_uvarint(r)
        r.pos += _read_uvarint(r)


def describe_cluster(port, include_ops=False, corr=21):
    # v0 is flexible: request header v2 (header v1 + empty tag section).
    payload = struct.pack(">hhi", 60, 0, corr) + w.string("spool-admin-test") + b"\x00"
    payload += (b"\x01" if include_ops else b"\x00") + b"\x00"
    with w.connect(port) as s:
        s.sendall(struct.pack(">i", len(payload)) + payload)
        frame = w.read_frame(s)
    assert frame is not None, "broker closed the connection on DescribeCluster"
    r = w.Reader(frame)
    assert r.take(">i") == corr
    _skip_tags(r)  # response header v1
    out = {"throttle": r.take(">i"), "error": r.take(">h"), "error_message": _compact_string(r),
           "cluster_id": _compact_string(r), "controller_id": r.take(">i"), "brokers": []}
    for _ in range(_read_uvarint(r) - 1):
        b = {"id": r.take(">i"), "host": _compact_string(r), "port": r.take(">i"), "rack": _compact_string(r)}
        _skip_tags(r)
        out["brokers"].append(b)
    out["ops"] = r.take(">i")
    _skip_tags(r)
    assert r.pos == len(frame), "trailing bytes in DescribeCluster response"
    return out


# --- CreatePartitions -----------------------------------------------------------

def test_create_partitions_confluent(bootstrap, topic):
    create_topic(bootstrap, topic, 2)
    a = admin(bootstrap)

    a.create_partitions([NewPartitions(topic, 4)], validate_only=True)[topic].result(timeout=TIMEOUT_S)
    assert partition_count(bootstrap, topic) == 2, "validate_only must not change the topic"

    a.create_partitions([NewPartitions(topic, 5)])[topic].result(timeout=TIMEOUT_S)
    wait_topic(bootstrap, topic, 5)

    # The new partitions take writes and serve them back.
    reports = produce_n(bootstrap, topic, 3, partition=4)
    assert [r[1:] for r in reports] == [(4, 0), (4, 1), (4, 2)]
    got = ck_util.consume(bootstrap, topic, partitions=(4,), expected=3)
    assert [(m.offset(), m.value()) for m in got] == [(0, b"v0"), (1, b"v1"), (2, b"v2")]

    for count, code in ((5, INVALID_PARTITIONS), (3, INVALID_PARTITIONS)):
        with pytest.raises(KafkaException) as ei:
            a.create_partitions([NewPartitions(topic, count)])[topic].result(timeout=TIMEOUT_S)
        assert ei.value.args[0].code() == code, ei.value
    with pytest.raises(KafkaException) as ei:
        a.create_partitions([NewPartitions(topic + "-missing", 3)])[topic + "-missing"].result(timeout=TIMEOUT_S)
    assert ei.value.args[0].code() == KafkaError.UNKNOWN_TOPIC_OR_PART
    assert partition_count(bootstrap, topic) == 5


def test_create_partitions_kafka_python(bootstrap, topic):
    kp = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=TIMEOUT_S * 1000)
    try:
        kp.create_topics([KpNewTopic(topic, 1, 1)])
        wait_topic(bootstrap, topic, 1)
        nid = node_id(bootstrap)
        resp = kp.create_partitions({topic: KpNewPartitions(3, [[nid], [nid]])})
        assert [(t, e) for t, e, _ in resp.topic_errors] == [(topic, NONE)]
        wait_topic(bootstrap, topic, 3)

        # kafka-python raises the per-topic error as an exception carrying the response.
        with pytest.raises(kafka.errors.InvalidReplicationAssignmentError) as ei:
            kp.create_partitions({topic: KpNewPartitions(4, [[99]])})
        assert ("no such broker is registered" if PEER else "exactly this broker") in str(ei.value)
        with pytest.raises(kafka.errors.InvalidReplicationAssignmentError) as ei:
            kp.create_partitions({topic: KpNewPartitions(5, [[nid]])})  # two new partitions, one assignment
        assert ("add 2 additional partition(s), but only 1 assignment(s)" if PEER
                else "by 2 but 1 assignments") in str(ei.value)
        with pytest.raises(kafka.errors.InvalidPartitionsError) as ei:
            kp.create_partitions({topic: KpNewPartitions(2)})
        assert "currently has 3 partition" in str(ei.value)
        with pytest.raises(kafka.errors.UnknownTopicOrPartitionError):
            kp.create_partitions({topic + "-missing": KpNewPartitions(2)})
        assert partition_count(bootstrap, topic) == 3
    finally:
        kp.close()


# --- DescribeConfigs --------------------------------------------------------------

def test_describe_configs_confluent(bootstrap, topic):
    create_topic(bootstrap, topic, 1, {"retention.ms": "123456", "cleanup.policy": "compact"})
    a = admin(bootstrap)
    res = ConfigResource("topic", topic)
    entries = a.describe_configs([res])[res].result(timeout=TIMEOUT_S)
    assert entries["retention.ms"].value == "123456"
    assert entries["retention.ms"].source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
    assert entries["cleanup.policy"].value == "compact"
    assert entries["segment.bytes"].source == ConfigSource.DEFAULT_CONFIG.value
    assert entries["segment.bytes"].value == "1073741824"
    assert not entries["retention.ms"].is_read_only
    assert not entries["retention.ms"].is_default
    assert entries["segment.bytes"].is_default
    # Synonyms (librdkafka asks for them): the override first, then the broker default.
    names = list(entries["retention.ms"].synonyms.keys())
    if PEER:
        # Kafka 4.4 lists no broker default under a topic override of
        # retention.ms (README: Differences from Kafka 4.4).
        assert names == ["retention.ms"], names
    else:
        assert names[0] == "retention.ms" and names[-1] == "log.retention.hours", names
        assert entries["retention.ms"].synonyms["log.retention.hours"].value == "168"

    broker = ConfigResource("broker", str(node_id(bootstrap)))
    bentries = a.describe_configs([broker])[broker].result(timeout=TIMEOUT_S)
    assert bentries["log.retention.hours"].value == "168"
    assert bentries["log.retention.hours"].is_read_only
    assert bentries["log.dirs"].source == ConfigSource.STATIC_BROKER_CONFIG.value

    missing = ConfigResource("topic", topic + "-missing")
    with pytest.raises(KafkaException) as ei:
        a.describe_configs([missing])[missing].result(timeout=TIMEOUT_S)
    assert ei.value.args[0].code() == KafkaError.UNKNOWN_TOPIC_OR_PART


def _kp_entries(resp):
    """kafka-python DescribeConfigsResponse -> [(error, type, name, {key: (value, read_only, source, synonyms)})]"""
    out = []
    for err, _msg, rtype, rname, entries in resp.resources:
        out.append((err, rtype, rname, {e[0]: (e[1], e[2], e[3], e[5]) for e in entries}))
    return out


def test_describe_configs_kafka_python(bootstrap, topic):
    kp = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=TIMEOUT_S * 1000)
    try:
        kp.create_topics([KpNewTopic(topic, 1, 1, topic_configs={"max.message.bytes": "65536"})])
        wait_topic(bootstrap, topic, 1)
        nid = str(node_id(bootstrap))
        # A key list narrows the answer; synonyms on request.
        [resp] = kp.describe_configs([KpConfigResource(ConfigResourceType.TOPIC, topic,
                                                       {"max.message.bytes": None, "retention.bytes": None})],
                                     include_synonyms=True)
        [(err, rtype, rname, entries)] = _kp_entries(resp)
        assert (err, rtype, rname) == (NONE, 2, topic)
        assert set(entries) == {"max.message.bytes", "retention.bytes"}
        value, read_only, source, synonyms = entries["max.message.bytes"]
        assert (value, read_only, source) == ("65536", False, 1)
        assert [s[0] for s in synonyms][:2] == ["max.message.bytes", "message.max.bytes"], synonyms
        assert synonyms[0][1:] == ("65536", 1) and synonyms[1][2] == 5
        assert entries["retention.bytes"][:3] == ("-1", False, 5)

        [resp] = kp.describe_configs([KpConfigResource(ConfigResourceType.TOPIC, topic)])
        [(err, _, _, entries)] = _kp_entries(resp)
        assert err == NONE and len(entries) > 10 and "segment.ms" in entries
        assert all(not e[3] for e in entries.values()), "no synonyms unless asked"

        [resp] = kp.describe_configs([KpConfigResource(ConfigResourceType.BROKER, nid)])
        [(err, rtype, rname, entries)] = _kp_entries(resp)
        assert (err, rtype, rname) == (NONE, 4, nid)
        assert entries["num.partitions"][:3] == ("1", True, 5)

        [resp] = kp.describe_configs([KpConfigResource(ConfigResourceType.TOPIC, topic + "-missing")])
        assert _kp_entries(resp)[0][0] == UNKNOWN_TOPIC_OR_PARTITION
    finally:
        kp.close()


def describe_configs_raw(port, resources, corr=41):
    """DescribeConfigs v1 by hand, for resources the clients will not send.
    resources: [(type, name)] -> [(error, message, type, name, [config names])]"""
    body = struct.pack(">i", len(resources))
    for rtype, name in resources:
        body += struct.pack(">b", rtype) + w.string(name) + struct.pack(">i", -1)
    body += b"\x00"  # include_synonyms
    with w.connect(port) as s:
        s.sendall(w.request(32, 1, corr, body, client_id="spool-admin-test"))
        frame = w.read_frame(s)
    assert frame is not None, "broker closed the connection on DescribeConfigs"
    r = w.Reader(frame)
    assert r.take(">i") == corr
    r.take(">i")  # throttle
    out = []
    for _ in range(r.take(">i")):
        err = r.take(">h")
        msg = r.string()
        rtype = r.take(">b")
        name = r.string()
        names = []
        for _ in range(r.take(">i")):
            names.append(r.string())
            r.string()
            r.take(">?b?")  # read_only, config_source, is_sensitive
            assert r.take(">i") == 0, "synonyms were not asked for"
        out.append((err, msg, rtype, name, names))
    assert r.pos == len(frame), "trailing bytes in DescribeConfigs response"
    return out


def test_describe_configs_resource_errors(bootstrap, topic):
    create_topic(bootstrap, topic, 1)
    port = port_of(bootstrap)
    got = describe_configs_raw(port, [(4, "7"), (4, "x1"), (4, ""), (2, "bad name!"),
                                      (2, topic), (2, topic + "-missing")])
    assert [(e, t, n) for e, _, t, n, _ in got] == [
        (INVALID_REQUEST, 4, "7"), (INVALID_REQUEST, 4, "x1"), (NONE, 4, ""),
        (17, 2, "bad name!"), (NONE, 2, topic), (UNKNOWN_TOPIC_OR_PARTITION, 2, topic + "-missing")]
    assert f"expected {node_id(bootstrap)}" in got[0][1]
    if not PEER:
        # The keys set in /config/brokers/<default>: none on this broker
        # (Kafka lists the cluster-wide dynamic defaults its controller holds).
        assert got[2][4] == [], "no cluster-wide dynamic broker defaults were set"
    assert "retention.ms" in got[4][4] and not got[4][1]
    # Spool explains every error; Kafka its INVALID_REQUESTs (its
    # UNKNOWN_TOPIC_OR_PARTITION comes without a message).
    assert all(msg for e, msg, *_ in got if e != NONE and (e == INVALID_REQUEST or not PEER)), \
        "every error carries a message"
    # An unknown resource type is refused (Kafka refuses the whole request
    # then, so it is asked alone).
    [(err, msg, rtype, name, _)] = describe_configs_raw(port, [(99, "a")])
    assert (err, rtype, name) == (INVALID_REQUEST, 99, "a") and msg


# --- DeleteRecords (raw frames) ------------------------------------------------------

def fetch_error(port, topic, offset, partition=0):
    with w.connect(port) as s:
        s.sendall(w.fetch_request(31, 0, -1, [(topic, partition, offset, 1 << 20)]))
        frame = w.read_frame(s)
    assert frame is not None
    [p] = w.parse_fetch(frame)["partitions"]
    return p["error"], p["log_start_offset"]


def out_of_range(log_start):
    """fetch_error's answer below the log start: Spool reports the log start
    offset with the error, Kafka -1 (its answer for every failed partition)."""
    return (OFFSET_OUT_OF_RANGE, -1 if PEER else log_start)


@pytest.mark.parametrize("version", [0, 1])
def test_delete_records(bootstrap, topic, version):
    create_topic(bootstrap, topic, 2)
    produce_n(bootstrap, topic, 30)
    port = port_of(bootstrap)

    assert delete_records(port, topic, {0: 10}, version) == {0: (10, NONE)}
    assert watermarks(bootstrap, topic) == (10, 30)
    assert fetch_error(port, topic, 5) == out_of_range(10)
    assert fetch_error(port, topic, 10) == (NONE, 10)
    # A consumer from the beginning starts at the new log start.
    got = ck_util.consume(bootstrap, topic, expected=20)
    assert [m.offset() for m in got] == list(range(10, 30))
    # Going backwards changes nothing; above the high watermark is refused.
    assert delete_records(port, topic, {0: 4}, version) == {0: (10, NONE)}
    assert delete_records(port, topic, {0: 31}, version) == {0: (-1, OFFSET_OUT_OF_RANGE)}
    assert delete_records(port, topic, {0: -7}, version) == {0: (-1, OFFSET_OUT_OF_RANGE)}
    assert delete_records(port, topic, {7: 0}, version) == {7: (-1, UNKNOWN_TOPIC_OR_PARTITION)}
    # -1 means "up to the high watermark"; an empty partition stays at 0.
    assert delete_records(port, topic, {0: -1, 1: -1}, version) == {0: (30, NONE), 1: (0, NONE)}
    assert watermarks(bootstrap, topic) == (30, 30)
    assert fetch_error(port, topic, 29) == out_of_range(30)

    # The log goes on from there.
    reports = produce_n(bootstrap, topic, 2)
    assert [r[2] for r in reports] == [30, 31]
    assert watermarks(bootstrap, topic) == (30, 32)


def test_delete_records_survive_kill9(broker_factory, topic):
    b = broker_factory()
    create_topic(b.bootstrap, topic, 1)
    produce_n(b.bootstrap, topic, 20)
    assert delete_records(b.port, topic, {0: 13}) == {0: (13, NONE)}
    b.kill9()  # no clean shutdown: only the checkpoint written for DeleteRecords remembers it
    b.start()
    if PEER:
        # Kafka checkpoints log start offsets every
        # log.flush.start.offset.checkpoint.interval.ms (60 s): a kill -9
        # before that forgets the deletion (README: Differences from Kafka 4.4).
        low, high = watermarks(b.bootstrap, topic)
        assert high == 20 and low in (0, 13), (low, high)
        return
    assert watermarks(b.bootstrap, topic) == (13, 20)
    assert fetch_error(b.port, topic, 12) == out_of_range(13)


# --- DescribeCluster (raw frames) -----------------------------------------------------

def test_describe_cluster(bootstrap):
    md = admin(bootstrap).list_topics(timeout=TIMEOUT_S)
    got = describe_cluster(port_of(bootstrap))
    assert got["error"] == NONE and got["error_message"] is None
    assert got["cluster_id"] == md.cluster_id and got["cluster_id"]
    [nid] = md.brokers.keys()
    assert got["controller_id"] == md.controller_id == nid
    assert got["brokers"] == [{"id": nid, "host": "127.0.0.1", "port": port_of(bootstrap), "rack": None}]
    assert got["ops"] == -2147483648, "authorized operations only when asked"
    ops = describe_cluster(port_of(bootstrap), include_ops=True)["ops"]
    assert ops & (1 << 8) and ops & (1 << 10), f"DESCRIBE and DESCRIBE_CONFIGS allowed: {ops:#x}"


# --- the spool CLI over the same APIs ---------------------------------------------------

def spool_cli(*args):
    from harness import spool_bin
    import subprocess
    return subprocess.run([spool_bin(), *args], capture_output=True, text=True, timeout=60)


def test_cli_add_partitions_and_delete_records(bootstrap, topic):
    import json
    create_topic(bootstrap, topic, 1)
    produce_n(bootstrap, topic, 12)

    r = spool_cli("topic", "add-partitions", topic, "--partitions", "3", "--bootstrap-server", bootstrap)
    assert r.returncode == 0, r.stderr
    assert f"resized topic '{topic}' (3 partitions)" in r.stdout
    wait_topic(bootstrap, topic, 3)
    r = spool_cli("topic", "add-partitions", topic, "--partitions", "2", "--bootstrap-server", bootstrap)
    assert r.returncode == 1 and "INVALID_PARTITIONS" in r.stderr, (r.stdout, r.stderr)

    r = spool_cli("topic", "delete-records", topic, "--partition", "0", "--offset", "5",
                  "--bootstrap-server", bootstrap, "-o", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [{"topic": topic, "partition": 0, "ok": True, "low_watermark": 5}]
    assert watermarks(bootstrap, topic) == (5, 12)
    r = spool_cli("topic", "delete-records", topic, "--offset", "-1", "--bootstrap-server", bootstrap)
    assert r.returncode == 0 and "log start offset is now 12" in r.stdout, (r.stdout, r.stderr)
    r = spool_cli("topic", "delete-records", topic, "--offset", "99", "--bootstrap-server", bootstrap)
    assert r.returncode == 1 and "OFFSET_OUT_OF_RANGE" in r.stderr, (r.stdout, r.stderr)
    # Every partition at once (requests of 100; progress lines go to stderr only).
    r = spool_cli("topic", "delete-records", topic, "--all-partitions", "--offset", "-1",
                  "--bootstrap-server", bootstrap, "-o", "json")
    assert r.returncode == 0, r.stderr
    assert sorted((x["partition"], x["ok"], x["low_watermark"]) for x in json.loads(r.stdout)) == \
        [(0, True, 12), (1, True, 0), (2, True, 0)], r.stdout
    r = spool_cli("topic", "delete-records", topic, "--all-partitions", "--partition", "1", "--offset", "-1",
                  "--bootstrap-server", bootstrap)
    assert r.returncode == 2 and "excludes" in r.stderr, (r.stdout, r.stderr)


# --- AlterConfigs / IncrementalAlterConfigs / DescribeLogDirs ---------------------------
# AlterConfigs replaces a topic's whole override set (keys left out return to
# their defaults); IncrementalAlterConfigs edits key by key. librdkafka 2.0.x
# and kafka-python 2.0.x only have AlterConfigs, so the incremental API is
# driven by raw frames and by the spool CLI, which uses it.

INVALID_CONFIG = 40


def topic_entries(bootstrap, topic):
    a = admin(bootstrap)
    res = ConfigResource("topic", topic)
    return a.describe_configs([res])[res].result(timeout=TIMEOUT_S)


def alter_confluent(bootstrap, rtype, name, configs, validate_only=False):
    a = admin(bootstrap)
    res = ConfigResource(rtype, name, set_config=configs)
    out = a.alter_configs([res], validate_only=validate_only)[res].result(timeout=TIMEOUT_S)
    if rtype == "topic" and not validate_only:
        # Kafka's broker applies a change its controller committed a moment
        # later; Spool before it answers. Either way, it shows once applied.
        deadline = time.monotonic() + TIMEOUT_S
        while any(topic_entries(bootstrap, name)[k].value != v for k, v in configs.items()):
            assert time.monotonic() < deadline, f"{configs} not applied to {name} after {TIMEOUT_S} s"
            time.sleep(0.05)
    return out


def test_alter_configs_confluent_replaces_overrides(bootstrap, topic):
    create_topic(bootstrap, topic, 1, {"retention.ms": "1000", "cleanup.policy": "compact"})
    alter_confluent(bootstrap, "topic", topic, {"retention.ms": "86400000"})
    e = topic_entries(bootstrap, topic)
    assert e["retention.ms"].value == "86400000"
    assert e["retention.ms"].source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
    # Left out of the new set: back to the default.
    assert e["cleanup.policy"].value == "delete"
    assert e["cleanup.policy"].source == ConfigSource.DEFAULT_CONFIG.value

    # validate_only checks and changes nothing.
    alter_confluent(bootstrap, "topic", topic, {"retention.ms": "5"}, validate_only=True)
    assert topic_entries(bootstrap, topic)["retention.ms"].value == "86400000"

    for bad in ({"retention.ms": "soon"}, {"no.such.key": "1"}):
        with pytest.raises(KafkaException) as ei:
            alter_confluent(bootstrap, "topic", topic, bad)
        assert ei.value.args[0].code() == KafkaError.INVALID_CONFIG, ei.value
    assert topic_entries(bootstrap, topic)["retention.ms"].value == "86400000"

    with pytest.raises(KafkaException) as ei:
        alter_confluent(bootstrap, "topic", topic + "-missing", {"retention.ms": "5"})
    assert ei.value.args[0].code() == KafkaError.UNKNOWN_TOPIC_OR_PART
    # Dynamic broker configs: a per-broker log.retention.ms is applied and
    # described as DYNAMIC_BROKER_CONFIG; a read-only key is INVALID_REQUEST.
    nid = str(node_id(bootstrap))
    alter_confluent(bootstrap, "broker", nid, {"log.retention.ms": "604800000"})
    res = ConfigResource("broker", nid)
    a = admin(bootstrap)  # must outlive the future
    deadline = time.monotonic() + TIMEOUT_S  # applied once the broker has the record
    while (e := a.describe_configs([res])[res].result(timeout=TIMEOUT_S))["log.retention.ms"].value is None:
        assert time.monotonic() < deadline, "dynamic broker config not applied"
        time.sleep(0.05)
    assert e["log.retention.ms"].value == "604800000"
    assert e["log.retention.ms"].source == ConfigSource.DYNAMIC_BROKER_CONFIG.value
    with pytest.raises(KafkaException) as ei:
        alter_confluent(bootstrap, "broker", nid, {"log.dirs": "/elsewhere"})
    assert ei.value.args[0].code() == KafkaError.INVALID_REQUEST
    alter_confluent(bootstrap, "broker", nid, {})  # back to the static set


def test_alter_configs_kafka_python(bootstrap, topic):
    kp = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=TIMEOUT_S * 1000)
    try:
        kp.create_topics([KpNewTopic(topic, 1, 1)])
        wait_topic(bootstrap, topic, 1)
        resp = kp.alter_configs([KpConfigResource(ConfigResourceType.TOPIC, topic, {"retention.ms": "4321"})])
        assert [(r[0], r[2], r[3]) for r in resp.resources] == [(NONE, 2, topic)]
        [resp] = kp.describe_configs([KpConfigResource(ConfigResourceType.TOPIC, topic, {"retention.ms": None})])
        [(err, _, _, entries)] = _kp_entries(resp)
        assert err == NONE and entries["retention.ms"][0] == "4321" and entries["retention.ms"][2] == 1
        resp = kp.alter_configs([KpConfigResource(ConfigResourceType.TOPIC, topic, {"segment.bytes": "-3"})])
        assert resp.resources[0][0] == INVALID_CONFIG and "segment.bytes" in resp.resources[0][1]
    finally:
        kp.close()


def test_alter_configs_survive_restart(broker_factory, topic):
    b = broker_factory()
    create_topic(b.bootstrap, topic, 1)
    alter_confluent(b.bootstrap, "topic", topic,
                    topic_configs({"retention.ms": "7654321", "durable.writes": "false"}))
    b.restart()
    wait_topic(b.bootstrap, topic, 1)
    e = topic_entries(b.bootstrap, topic)
    assert e["retention.ms"].value == "7654321"
    assert e["retention.ms"].source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
    if not PEER:
        assert e["durable.writes"].value == "false"


def test_alter_configs_take_effect_live(bootstrap, topic):
    create_topic(bootstrap, topic, 1)
    p = ck_util.producer(bootstrap, acks="1", **{"linger.ms": 0})
    big = {"value": b"x" * 20000}
    assert ck_util.produce_all(p, topic, [big])[0][0] is None
    alter_confluent(bootstrap, "topic", topic, {"max.message.bytes": "4096"})
    err = ck_util.produce_all(p, topic, [big])[0][0]
    assert err is not None and err.code() == KafkaError.MSG_SIZE_TOO_LARGE, err
    assert ck_util.produce_all(p, topic, [{"value": b"small"}])[0][0] is None

    # durable.writes=false: an acks=1 write is visible at the acknowledgement
    # (on Kafka always; it has no such key).
    if not PEER:
        alter_confluent(bootstrap, "topic", topic, {"durable.writes": "false"})
    c = ck_util.consumer(bootstrap)
    try:
        for i in range(10):
            r = ck_util.produce_all(p, topic, [{"value": f"m{i}".encode()}])
            assert r[0][0] is None
            high = c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10, cached=False)[1]
            assert high == r[0][2] + 1, f"write {i} acknowledged at {r[0][2]} but high watermark is {high}"
    finally:
        c.close()


def incremental_alter_raw(port, topic, ops, validate_only=False, corr=51):
    """IncrementalAlterConfigs v0 on one topic. ops: [(key, op, value or None)] -> (error, message)"""
    body = struct.pack(">i", 1) + struct.pack(">b", 2) + w.string(topic) + struct.pack(">i", len(ops))
    for key, op, value in ops:
        body += w.string(key) + struct.pack(">b", op)
        body += struct.pack(">h", -1) if value is None else w.string(value)
    body += b"\x01" if validate_only else b"\x00"
    with w.connect(port) as s:
        s.sendall(w.request(44, 0, corr, body, client_id="spool-admin-test"))
        frame = w.read_frame(s)
    assert frame is not None, "broker closed the connection on IncrementalAlterConfigs"
    r = w.Reader(frame)
    assert r.take(">i") == corr
    r.take(">i")  # throttle
    assert r.take(">i") == 1
    err = r.take(">h")
    msg = r.string()
    assert r.take(">b") == 2 and r.string() == topic
    assert r.pos == len(frame), "trailing bytes in IncrementalAlterConfigs response"
    return err, msg


def test_incremental_alter_configs(bootstrap, topic):
    create_topic(bootstrap, topic, 1, {"retention.ms": "1000", "segment.ms": "60000"})
    port = port_of(bootstrap)
    SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
    assert incremental_alter_raw(port, topic, [("retention.ms", SET, "2000"), ("segment.ms", DELETE, None),
                                               ("cleanup.policy", APPEND, "compact")]) == (NONE, None)
    e = topic_entries(bootstrap, topic)
    assert e["retention.ms"].value == "2000"
    assert e["segment.ms"].source == ConfigSource.DEFAULT_CONFIG.value
    assert e["cleanup.policy"].value == "delete,compact"
    assert incremental_alter_raw(port, topic, [("cleanup.policy", SUBTRACT, "delete")]) == (NONE, None)
    assert topic_entries(bootstrap, topic)["cleanup.policy"].value == "compact"
    err, msg = incremental_alter_raw(port, topic, [("cleanup.policy", SUBTRACT, "compact")])
    if PEER:  # Kafka leaves an empty policy list (README: Differences from Kafka 4.4)
        assert (err, msg) == (NONE, None)
        assert topic_entries(bootstrap, topic)["cleanup.policy"].value == ""
        assert incremental_alter_raw(port, topic, [("cleanup.policy", SET, "compact")]) == (NONE, None)
    else:
        assert err == INVALID_CONFIG and "cleanup.policy" in msg, "the last policy cannot be subtracted"
    assert topic_entries(bootstrap, topic)["cleanup.policy"].value == "compact"

    err, msg = incremental_alter_raw(port, topic, [("retention.ms", APPEND, "5")])
    assert err == INVALID_CONFIG and "retention.ms" in msg
    err, _ = incremental_alter_raw(port, topic, [("segment.bytes", SUBTRACT, "1")])
    assert err == INVALID_CONFIG, "SUBTRACT only on list keys"
    if not PEER:
        # An unknown operation: Kafka 4.4's controller fails the event with a
        # NullPointerException (UNKNOWN_SERVER_ERROR) and resigns, so the
        # peer is not asked (README: Differences from Kafka 4.4).
        err, _ = incremental_alter_raw(port, topic, [("retention.ms", 9, "5")])
        assert err == INVALID_REQUEST
    err, _ = incremental_alter_raw(port, topic, [("retention.ms", SET, "1"), ("retention.ms", DELETE, None)])
    assert err == INVALID_REQUEST
    assert incremental_alter_raw(port, topic, [("retention.ms", SET, "9")], validate_only=True) == (NONE, None)
    assert incremental_alter_raw(port, topic + "-missing", [("retention.ms", SET, "9")])[0] == \
        UNKNOWN_TOPIC_OR_PARTITION
    assert topic_entries(bootstrap, topic)["retention.ms"].value == "2000"


def describe_log_dirs_raw(port, topics=None, version=1, corr=61):
    """DescribeLogDirs v0/v1 (v0 is refused) -> {log_dir: (error, {(topic, partition): (size, lag, future)})}"""
    if topics is None:
        body = struct.pack(">i", -1)
    else:
        body = struct.pack(">i", len(topics))
        for t, parts in topics.items():
            body += w.string(t) + struct.pack(">i", len(parts)) + b"".join(struct.pack(">i", p) for p in parts)
    with w.connect(port) as s:
        s.sendall(w.request(35, version, corr, body, client_id="spool-admin-test"))
        frame = w.read_frame(s)
    assert frame is not None, "broker closed the connection on DescribeLogDirs"
    r = w.Reader(frame)
    assert r.take(">i") == corr
    r.take(">i")  # throttle
    out = {}
    for _ in range(r.take(">i")):
        err = r.take(">h")
        d = r.string()
        parts = {}
        for _ in range(r.take(">i")):
            t = r.string()
            for _ in range(r.take(">i")):
                idx, size, lag, future = r.take(">iqq?")
                parts[(t, idx)] = (size, lag, future)
        out[d] = (err, parts)
    assert r.pos == len(frame), "trailing bytes in DescribeLogDirs response"
    return out


@pytest.mark.parametrize("version", [0, 1])
def test_describe_log_dirs(broker, bootstrap, topic, version):
    create_topic(bootstrap, topic, 2)
    produce_n(bootstrap, topic, 10)
    port = port_of(bootstrap)
    if version == 0:
        # Kafka 4.0 dropped DescribeLogDirs v0 (KIP-896): both brokers close
        # the connection.
        with pytest.raises(AssertionError, match="broker closed the connection"):
            describe_log_dirs_raw(port, version=version)
        return
    got = describe_log_dirs_raw(port, version=version)
    assert len(got) == 1
    [(d, (err, parts))] = got.items()
    assert err == NONE
    if getattr(broker, "log_dir", None):
        assert d == os.path.abspath(broker.log_dir)
    size, lag, future = parts[(topic, 0)]
    assert size > 0 and lag == 0 and not future
    assert parts[(topic, 1)] == (0, 0, False)

    only = describe_log_dirs_raw(port, {topic: [1, 7], topic + "-missing": [0]}, version=version)
    assert only == {d: (NONE, {(topic, 1): (0, 0, False)})}


def test_cli_alter_config(bootstrap, topic):
    import json
    create_topic(bootstrap, topic, 1, {"segment.ms": "60000"})
    r = spool_cli("topic", "alter-config", topic, "--set", "retention.ms=3000", "--delete", "segment.ms",
                  "--append", "cleanup.policy=compact", "--bootstrap-server", bootstrap)
    assert r.returncode == 0, r.stderr
    assert f"altered topic '{topic}'" in r.stdout
    e = topic_entries(bootstrap, topic)
    assert e["retention.ms"].value == "3000"
    assert e["segment.ms"].source == ConfigSource.DEFAULT_CONFIG.value
    assert e["cleanup.policy"].value == "delete,compact"

    r = spool_cli("topic", "alter-config", topic, "--append", "retention.ms=1", "--bootstrap-server", bootstrap,
                  "-o", "json")
    assert r.returncode == 1, (r.stdout, r.stderr)
    [res] = json.loads(r.stderr)
    assert res["topic"] == topic and res["error"] == "INVALID_CONFIG" and not res["ok"]
    r = spool_cli("topic", "alter-config", topic, "--bootstrap-server", bootstrap)
    assert r.returncode == 2 and "nothing to change" in r.stderr


def test_topic_lifecycle_kafka_python(bootstrap, topic):
    """kafka-python's KafkaAdminClient creates, lists and deletes topics and
    gets Kafka's errors for a duplicate, an invalid name and an unknown topic."""
    kp = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=TIMEOUT_S * 1000)
    try:
        resp = kp.create_topics([KpNewTopic(topic, 2, 1, topic_configs={"retention.ms": "3600000"})])
        assert [(t, e) for t, e, *_ in resp.topic_errors] == [(topic, NONE)]
        assert topic in kp.list_topics()
        assert partition_count(bootstrap, topic) == 2
        with pytest.raises(kafka.errors.TopicAlreadyExistsError):
            kp.create_topics([KpNewTopic(topic, 1, 1)])
        with pytest.raises(kafka.errors.InvalidTopicError):
            kp.create_topics([KpNewTopic("bad name!", 1, 1)])
        with pytest.raises(kafka.errors.InvalidReplicationFactorError):
            kp.create_topics([KpNewTopic(topic + "-rf", 1, 3)])
        resp = kp.delete_topics([topic])
        assert [(t, e) for t, e, *_ in resp.topic_error_codes] == [(topic, NONE)]
        deadline = time.monotonic() + TIMEOUT_S  # Kafka's broker learns it a moment later
        while topic in kp.list_topics():
            assert time.monotonic() < deadline, f"{topic} still listed {TIMEOUT_S} s after DeleteTopics"
            time.sleep(0.05)
        with pytest.raises(kafka.errors.UnknownTopicOrPartitionError):
            kp.delete_topics([topic])
    finally:
        kp.close()
