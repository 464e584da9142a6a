"""The admin APIs at Kafka 4.4's newest versions, over raw frames, with the
exact values each version adds: the advertised ranges; CreateTopics v5-7
(partition count, replication factor, every config with its source, the
topic id, also for validateOnly; error answers keep the defaults);
DescribeConfigs v3-4 (ConfigType per entry, Documentation only on request);
DescribeLogDirs v1-5 (v0 gone, top-level error, the volume's bytes,
IsCordoned); CreatePartitions v3; DeleteRecords v2; AlterConfigs v2 and
IncrementalAlterConfigs v1. Passes against Spool and the Kafka 4.4 peer
(SPOOL_TEST_PEER=kafka); the one documented difference (no documentation
text in Spool) is checked per broker."""

import base64
import os
import re
import time

import pytest
from confluent_kafka.admin import AdminClient

import admin_wire as a
import ck_util
import kafka_wire as w
from harness import which_peer

PEER = which_peer()
TIMEOUT_S = 30
TOPIC = 2  # ConfigResource.Type.TOPIC
BROKER = 4  # ConfigResource.Type.BROKER

# Kafka 4.4's ranges (the JSON definitions' validVersions).
KAFKA_44_RANGES = {19: (2, 7), 21: (0, 2), 32: (1, 4), 33: (0, 2), 35: (1, 5), 37: (0, 3), 44: (0, 1)}


def roundtrip(port, frame):
    with w.connect(port, timeout=TIMEOUT_S) as s:
        return w.roundtrip(s, frame)


def closes_connection(port, frame):
    with w.connect(port, timeout=TIMEOUT_S) as s:
        s.sendall(frame)
        return w.read_frame(s) is None


def name_for(request, suffix=""):
    return f"av-{re.sub(r'[^A-Za-z0-9._-]', '_', request.node.name)[:40]}-{os.urandom(3).hex()}{suffix}"


def partitions_in_metadata(bootstrap, topic):
    # Metadata for all topics: naming one would auto-create it.
    t = AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=TIMEOUT_S).topics.get(topic)
    if t is None or t.error is not None:
        return 0
    return len([p for p in t.partitions.values() if p.leader >= 0])


def wait_partitions(bootstrap, topic, n):
    """Kafka answers once its controller committed; the broker follows a moment later."""
    deadline = time.monotonic() + TIMEOUT_S
    while partitions_in_metadata(bootstrap, topic) != n:
        assert time.monotonic() < deadline, f"{topic} has not {n} partitions {TIMEOUT_S} s after the answer"
        time.sleep(0.05)


def create(port, bootstrap, topic, partitions=1, configs=None, version=7):
    got = a.parse_create_topics(roundtrip(port, a.create_topics(3, version, [(topic, partitions, 1, configs or {})])),
                                3, version)[topic]
    assert got["error"] == a.NONE, got
    wait_partitions(bootstrap, topic, partitions)
    return got


def produce(bootstrap, topic, n, partition=0):
    p = ck_util.producer(bootstrap, acks="all")
    reports = ck_util.produce_all(p, topic, [{"value": f"v{i}".encode()} for i in range(n)], partition)
    assert [r[2] for r in reports] == list(range(n)) and all(r[0] is None for r in reports), reports


def id_on_disk(log_dir, topic):
    """The topic id in the partition.metadata of partition 0 (both brokers write it)."""
    path = os.path.join(log_dir, f"{topic}-0", "partition.metadata")
    deadline = time.monotonic() + TIMEOUT_S
    while not os.path.exists(path):
        assert time.monotonic() < deadline, f"no {path}"
        time.sleep(0.05)
    m = re.search(r"^topic_id: (\S+)$", open(path).read(), re.M)
    assert m, f"no topic_id in {path}"
    return base64.urlsafe_b64decode(m.group(1) + "==")


def test_advertised_ranges_are_kafka_44s(broker):
    corr, err, apis = w.parse_api_versions_v0(roundtrip(broker.port, w.request(18, 0, 1)))
    assert (corr, err) == (1, 0)
    assert {k: apis.get(k) for k in KAFKA_44_RANGES} == KAFKA_44_RANGES


@pytest.mark.parametrize("version", [5, 6, 7])
def test_create_topics_answers_counts_configs_and_id(broker, request, version):
    topic = name_for(request)
    frame = a.create_topics(7, version, [(topic, 3, -1, {"cleanup.policy": "compact", "retention.ms": "12345"})])
    got = a.parse_create_topics(roundtrip(broker.port, frame), 7, version)[topic]
    assert (got["error"], got["message"]) == (a.NONE, None)
    assert (got["num_partitions"], got["replication_factor"]) == (3, 1)
    assert got["tags"] == {}, "TopicConfigErrorCode is NONE: no tag"
    names = [c[0] for c in got["config_list"]]
    assert names == sorted(names) and len(names) == len(set(names))
    cfg = got["configs"]
    # (value, read_only, source, sensitive)
    assert cfg["cleanup.policy"] == ("compact", False, a.DYNAMIC_TOPIC_CONFIG, False)
    assert cfg["retention.ms"] == ("12345", False, a.DYNAMIC_TOPIC_CONFIG, False)
    assert cfg["segment.bytes"] == ("1073741824", False, a.DEFAULT_CONFIG, False)
    assert cfg["max.message.bytes"] == ("1048588", False, a.DEFAULT_CONFIG, False)
    assert cfg["index.interval.bytes"] == ("4096", False, a.DEFAULT_CONFIG, False)
    assert all(not c[1] and not c[3] for c in cfg.values()), "topic configs: writable, none sensitive"
    if version >= 7:
        assert got["topic_id"] != bytes(16)
        assert got["topic_id"] == id_on_disk(broker.log_dir, topic)
    wait_partitions(broker.bootstrap, topic, 3)


def test_create_topics_v4_has_no_v5_fields(broker, request):
    topic = name_for(request)
    got = a.parse_create_topics(roundtrip(broker.port, a.create_topics(8, 4, [(topic, 2, 1, {})])), 8, 4)
    assert got == {topic: {"name": topic, "error": a.NONE, "message": None}}
    wait_partitions(broker.bootstrap, topic, 2)


def test_create_topics_validate_only_v7(broker, request):
    topic = name_for(request)
    frame = a.create_topics(9, 7, [(topic, 4, 1, {"retention.ms": "5000"})], validate_only=True)
    got = a.parse_create_topics(roundtrip(broker.port, frame), 9, 7)[topic]
    assert (got["error"], got["num_partitions"], got["replication_factor"]) == (a.NONE, 4, 1)
    assert got["configs"]["retention.ms"] == ("5000", False, a.DYNAMIC_TOPIC_CONFIG, False)
    # Kafka's controller answers a fresh random id that names no topic.
    assert got["topic_id"] != bytes(16)
    time.sleep(0.5)
    assert partitions_in_metadata(broker.bootstrap, topic) == 0, "validateOnly created the topic"
    assert not os.path.exists(os.path.join(broker.log_dir, f"{topic}-0"))
    real = create(broker.port, broker.bootstrap, topic, 4)
    assert real["topic_id"] not in (bytes(16), got["topic_id"])
    assert real["topic_id"] == id_on_disk(broker.log_dir, topic)


def test_create_topics_errors_keep_defaults_v7(broker, request):
    existing, bad_config, bad_rf, dup = (name_for(request, s) for s in ("-e", "-c", "-r", "-d"))
    create(broker.port, broker.bootstrap, existing)
    frame = a.create_topics(10, 7, [(existing, 1, 1, {}), (bad_config, 1, 1, {"retention.ms": "soon"}),
                                    (bad_rf, 1, 3, {}), (dup, 1, 1, {}), (dup, 2, 1, {})])
    got = a.parse_create_topics(roundtrip(broker.port, frame), 10, 7)
    assert len(got) == 4 and got.answers == 4, "a name listed twice is answered once"
    assert got[dup]["message"] == "Duplicate topic name."
    errors = {n: got[n]["error"] for n in (existing, bad_config, bad_rf, dup)}
    assert errors == {existing: a.TOPIC_ALREADY_EXISTS, bad_config: a.INVALID_CONFIG,
                      bad_rf: a.INVALID_REPLICATION_FACTOR, dup: a.INVALID_REQUEST}
    for n in errors:
        t = got[n]
        assert t["message"], f"{n}: error without a message"
        assert (t["topic_id"], t["num_partitions"], t["replication_factor"], t["config_list"], t["tags"]) == \
            (bytes(16), -1, -1, [], {}), f"{n}: a failed topic keeps the defaults: {t}"
    time.sleep(0.5)
    assert [partitions_in_metadata(broker.bootstrap, n) for n in (bad_config, bad_rf, dup)] == [0, 0, 0]


# Topic keys of each Kafka type, and their id (DescribeConfigsResponse.ConfigType).
TOPIC_KEY_TYPES = {"preallocate": "BOOLEAN", "compression.type": "STRING", "segment.bytes": "INT",
                   "retention.ms": "LONG", "min.cleanable.dirty.ratio": "DOUBLE", "cleanup.policy": "LIST"}
BROKER_KEY_TYPES = {"num.io.threads": "INT", "offsets.topic.replication.factor": "SHORT",
                    "log.retention.ms": "LONG", "auto.create.topics.enable": "BOOLEAN",
                    "sasl.enabled.mechanisms": "LIST", "principal.builder.class": "CLASS",
                    "ssl.key.password": "PASSWORD", "log.cleaner.min.cleanable.ratio": "DOUBLE",
                    "compression.type": "STRING"}


def node_id(bootstrap):
    [nid] = AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=TIMEOUT_S).brokers.keys()
    return nid


def describe(port, version, resources, **kw):
    return a.parse_describe_configs(roundtrip(port, a.describe_configs(11, version, resources, **kw)), 11, version)


@pytest.mark.parametrize("version", [3, 4])
def test_describe_configs_types_and_documentation(broker, request, version):
    topic = name_for(request)
    create(broker.port, broker.bootstrap, topic, configs={"retention.ms": "7000"})
    keys = sorted(TOPIC_KEY_TYPES)
    [plain] = describe(broker.port, version, [(TOPIC, topic, keys)])
    assert (plain["error"], plain["type"], plain["name"]) == (a.NONE, TOPIC, topic)
    assert sorted(plain["configs"]) == keys
    assert {k: c["type"] for k, c in plain["configs"].items()} == \
        {k: a.TYPE_IDS[t] for k, t in TOPIC_KEY_TYPES.items()}
    assert all(c["documentation"] is None for c in plain["configs"].values()), "documentation only on request"
    assert plain["configs"]["retention.ms"]["value"] == "7000"
    assert plain["configs"]["retention.ms"]["source"] == a.DYNAMIC_TOPIC_CONFIG
    assert plain["configs"]["retention.ms"]["synonyms"] == [], "synonyms only on request"

    [docs] = describe(broker.port, version, [(TOPIC, topic, keys)], synonyms=True, documentation=True)
    assert {k: c["type"] for k, c in docs["configs"].items()} == {k: c["type"] for k, c in plain["configs"].items()}
    assert docs["configs"]["retention.ms"]["synonyms"][0] == ("retention.ms", "7000", a.DYNAMIC_TOPIC_CONFIG)
    for k, c in docs["configs"].items():
        if PEER:
            assert c["documentation"], f"Kafka documents {k}"
        else:
            # Difference (README): Spool's key tables carry no documentation text.
            assert c["documentation"] is None, k

    nid = str(node_id(broker.bootstrap))
    [b] = describe(broker.port, version, [(BROKER, nid, sorted(BROKER_KEY_TYPES))])
    assert (b["error"], b["type"], b["name"]) == (a.NONE, BROKER, nid)
    assert {k: c["type"] for k, c in b["configs"].items()} == \
        {k: a.TYPE_IDS[t] for k, t in BROKER_KEY_TYPES.items()}
    pw = b["configs"]["ssl.key.password"]
    assert (pw["sensitive"], pw["value"]) == (True, None)


def test_describe_configs_v1_v2_still_answer(broker, request):
    topic = name_for(request)
    create(broker.port, broker.bootstrap, topic, configs={"retention.ms": "8000"})
    for v in (1, 2):
        [r] = describe(broker.port, v, [(TOPIC, topic, ["retention.ms"])])
        c = r["configs"]["retention.ms"]
        assert (r["error"], c["value"], c["source"], "type" in c) == (a.NONE, "8000", a.DYNAMIC_TOPIC_CONFIG, False)


def test_describe_log_dirs_versions(broker, request):
    topic = name_for(request)
    create(broker.port, broker.bootstrap, topic, 2)
    produce(broker.bootstrap, topic, 10)
    # Kafka 4.0 removed v0 (KIP-896): the connection is closed.
    assert closes_connection(broker.port, a.describe_log_dirs(12, 0))
    for version in range(1, 6):
        top, dirs = a.parse_describe_log_dirs(roundtrip(broker.port, a.describe_log_dirs(12, version)), 12, version)
        assert top == (a.NONE if version >= 3 else None)
        [(d, r)] = dirs.items()
        assert d == os.path.abspath(broker.log_dir)
        assert r["error"] == a.NONE
        size, lag, future = r["partitions"][(topic, 0)]
        assert size > 0 and (lag, future) == (0, False)
        assert r["partitions"][(topic, 1)] == (0, 0, False)
        if version >= 4:
            vfs = os.statvfs(d)
            assert r["total"] == vfs.f_blocks * vfs.f_frsize
            # Free space moves with every write on the machine: within 256 MiB.
            assert abs(r["usable"] - vfs.f_bavail * vfs.f_frsize) < 256 << 20, (r["usable"], vfs)
            assert 0 < r["usable"] <= r["total"]
        if version >= 5:
            assert r["cordoned"] is False
    _, only = a.parse_describe_log_dirs(
        roundtrip(broker.port, a.describe_log_dirs(13, 4, {topic: [1, 7], topic + "-missing": [0]})), 13, 4)
    [r] = only.values()
    assert r["partitions"] == {(topic, 1): (0, 0, False)}


@pytest.mark.parametrize("version", [2, 3])
def test_create_partitions_flexible(broker, request, version):
    topic = name_for(request)
    create(broker.port, broker.bootstrap, topic, 1)
    nid = node_id(broker.bootstrap)

    def send(topics, validate_only=False):
        frame = a.create_partitions(14, version, topics, validate_only)
        return a.parse_create_partitions(roundtrip(broker.port, frame), 14, version)
    assert send([(topic, 3, None)], validate_only=True) == {topic: (a.NONE, None)}
    time.sleep(0.3)
    assert partitions_in_metadata(broker.bootstrap, topic) == 1, "validateOnly grew the topic"
    assert send([(topic, 3, [[nid], [nid]])]) == {topic: (a.NONE, None)}
    wait_partitions(broker.bootstrap, topic, 3)
    got = send([(topic, 2, None), (topic + "-missing", 2, None)])
    assert {n: e for n, (e, _) in got.items()} == \
        {topic: a.INVALID_PARTITIONS, topic + "-missing": a.UNKNOWN_TOPIC_OR_PARTITION}
    assert got[topic][1], got
    dup = send([(topic, 5, None), (topic, 6, None)])
    assert (dup, dup.answers) == ({topic: (a.INVALID_REQUEST, "Duplicate topic name.")}, 1)
    # Error messages differ (README): Kafka gives UNKNOWN_TOPIC_OR_PARTITION none.
    assert (got[topic + "-missing"][1] is None) == bool(PEER), got


def test_delete_records_v2(broker, request):
    topic = name_for(request)
    create(broker.port, broker.bootstrap, topic, 2)
    produce(broker.bootstrap, topic, 10)

    def send(offsets):
        return a.parse_delete_records(roundtrip(broker.port, a.delete_records(15, 2, offsets)), 15, 2)
    assert send({(topic, 0): 4, (topic, 1): 0}) == {(topic, 0): (4, a.NONE), (topic, 1): (0, a.NONE)}
    assert send({(topic, 0): 11, (topic, 5): 0}) == \
        {(topic, 0): (-1, a.OFFSET_OUT_OF_RANGE), (topic, 5): (-1, a.UNKNOWN_TOPIC_OR_PARTITION)}
    assert send({(topic, 0): -1}) == {(topic, 0): (10, a.NONE)}, "-1 deletes up to the high watermark"


def wait_config(port, topic, key, value):
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        [r] = describe(port, 4, [(TOPIC, topic, [key])])
        c = r["configs"].get(key)
        if c is not None and c["value"] == value:
            return c
        assert time.monotonic() < deadline, f"{topic} {key}={c and c['value']}, not {value}"
        time.sleep(0.05)


def test_incremental_alter_configs_v1(broker, request):
    topic = name_for(request)
    create(broker.port, broker.bootstrap, topic, configs={"segment.ms": "600000"})

    def send(ops, validate_only=False, target=topic):
        frame = a.incremental_alter_configs(16, 1, [(TOPIC, target, ops)], validate_only)
        return a.parse_alter_configs(roundtrip(broker.port, frame), 16, True)[(TOPIC, target)]
    assert send([("retention.ms", a.SET, "9000")], validate_only=True) == (a.NONE, None)
    assert send([("retention.ms", a.SET, "9000"), ("cleanup.policy", a.APPEND, "compact"),
                 ("segment.ms", a.DELETE, None)]) == (a.NONE, None)
    assert wait_config(broker.port, topic, "retention.ms", "9000")["source"] == a.DYNAMIC_TOPIC_CONFIG
    assert wait_config(broker.port, topic, "cleanup.policy", "delete,compact")["source"] == a.DYNAMIC_TOPIC_CONFIG
    assert wait_config(broker.port, topic, "segment.ms", "604800000")["source"] == a.DEFAULT_CONFIG
    err, msg = send([("retention.ms", a.SET, "soon")])
    assert err == a.INVALID_CONFIG and msg
    assert send([("retention.ms", a.SET, "1")], target=topic + "-missing")[0] == a.UNKNOWN_TOPIC_OR_PARTITION


def test_alter_configs_v2(broker, request):
    topic = name_for(request)
    create(broker.port, broker.bootstrap, topic, configs={"segment.ms": "600000"})

    def send(configs, validate_only=False):
        frame = a.alter_configs(17, 2, [(TOPIC, topic, configs)], validate_only)
        return a.parse_alter_configs(roundtrip(broker.port, frame), 17, True)[(TOPIC, topic)]
    assert send({"retention.ms": "11000"}, validate_only=True) == (a.NONE, None)
    time.sleep(0.3)
    assert wait_config(broker.port, topic, "retention.ms", "604800000")["source"] == a.DEFAULT_CONFIG
    assert send({"retention.ms": "11000"}) == (a.NONE, None)
    assert wait_config(broker.port, topic, "retention.ms", "11000")["source"] == a.DYNAMIC_TOPIC_CONFIG
    # AlterConfigs replaces the whole set: segment.ms is back to its default.
    assert wait_config(broker.port, topic, "segment.ms", "604800000")["source"] == a.DEFAULT_CONFIG
    err, msg = send({"retention.ms": "soon"})
    assert err == a.INVALID_CONFIG and msg
