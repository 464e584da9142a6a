"""kafka-python 3.x KafkaAdminClient against a real broker: create, list,
describe and delete topics; describe_configs and alter_configs (incremental
SET/DELETE and the legacy whole-set AlterConfigs); list_groups and
describe_groups of a live and an empty group; list_group_offsets,
alter_group_offsets and delete_groups; list_partition_offsets and
delete_records; describe_cluster."""

import time

import pytest
from kafka import TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType, OffsetSpec
from kafka.errors import TopicAlreadyExistsError, UnknownTopicOrPartitionError
from kafka.structs import OffsetAndMetadata

import kp3
from py_common import BASE_OVERRIDES, wait_until

BROKER_OVERRIDES = dict(BASE_OVERRIDES)


@pytest.fixture(scope="module")
def admin(bootstrap):
    a = kp3.admin(bootstrap)
    yield a
    a.close()


def _configs(admin, topic, keys=None):
    res = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic, keys)],
                                 config_filter="all")
    return res["topic"][topic]


def test_topics(admin, topic):
    admin.create_topics({topic: {"num_partitions": 3, "replication_factor": 1,
                                 "configs": {"retention.ms": "3600000"}}}, wait_for_metadata=True)
    with pytest.raises(TopicAlreadyExistsError):
        admin.create_topics({topic: {"num_partitions": 1, "replication_factor": 1}})
    assert topic in admin.list_topics()
    [desc] = admin.describe_topics([topic])
    assert desc["name"] == topic and desc["error_code"] == 0 and desc["is_internal"] is False
    parts = sorted(desc["partitions"], key=lambda p: p["partition_index"])
    assert [p["partition_index"] for p in parts] == [0, 1, 2]
    leader = parts[0]["leader_id"]
    for p in parts:
        assert p["error_code"] == 0 and p["leader_id"] == leader >= 0
        assert p["replica_nodes"] == [leader] and p["isr_nodes"] == [leader]

    admin.delete_topics([topic])
    wait_until(lambda: topic not in admin.list_topics(), 20, "the topic gone")
    with pytest.raises(UnknownTopicOrPartitionError):
        admin.delete_topics([topic])


def test_describe_cluster(broker, admin):
    cluster = admin.describe_cluster()
    [node] = cluster["brokers"]
    assert (node["host"], node["port"], node["is_fenced"]) == ("127.0.0.1", broker.port, False)
    assert isinstance(cluster["cluster_id"], str) and cluster["cluster_id"]
    assert cluster["controller_id"] == node["broker_id"]


def test_configs(admin, bootstrap, topic):
    kp3.create_topic(bootstrap, topic, configs={"retention.ms": "3600000", "cleanup.policy": "compact"})
    cfg = _configs(admin, topic)
    assert cfg["retention.ms"]["value"] == "3600000"
    assert cfg["cleanup.policy"]["value"] == "compact"
    assert cfg["max.message.bytes"]["value"] == "1048588"

    # Incremental (the client's default on brokers with IncrementalAlterConfigs).
    admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic,
                                        {"retention.bytes": ("SET", "1048576"),
                                         "retention.ms": ("DELETE", None)})])
    cfg = _configs(admin, topic)
    assert cfg["retention.bytes"]["value"] == "1048576"
    assert cfg["retention.ms"]["value"] == "604800000"
    assert cfg["cleanup.policy"]["value"] == "compact"

    # Legacy AlterConfigs: the client fills in the other modified keys itself.
    admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic, {"segment.ms": "3600000"})],
                        incremental=False)
    cfg = _configs(admin, topic)
    assert cfg["segment.ms"]["value"] == "3600000"
    assert cfg["retention.bytes"]["value"] == "1048576"
    assert cfg["cleanup.policy"]["value"] == "compact"

    only = _configs(admin, topic, ["segment.ms"])
    assert list(only) == ["segment.ms"]


def test_offsets_and_delete_records(admin, bootstrap, topic):
    kp3.create_topic(bootstrap, topic)
    base = int(time.time() * 1000) - 600_000
    p = kp3.producer(bootstrap, acks="all", linger_ms=0)
    for i in range(10):
        p.send(topic, value=f"v{i}".encode(), partition=0, timestamp_ms=base + i * 1000).get(timeout=30)
    p.close()
    tp = TopicPartition(topic, 0)
    got = admin.list_partition_offsets({tp: OffsetSpec.EARLIEST})
    assert got[tp].offset == 0
    assert admin.list_partition_offsets({tp: OffsetSpec.LATEST})[tp].offset == 10
    r = admin.list_partition_offsets({tp: base + 2500})[tp]
    assert (r.offset, r.timestamp) == (3, base + 3000)

    res = admin.delete_records({tp: 4})
    assert res[tp]["low_watermark"] == 4
    assert admin.list_partition_offsets({tp: OffsetSpec.EARLIEST})[tp].offset == 4
    recs = kp3.read_partition(bootstrap, topic, 0, 6)
    assert [(r["offset"], r["value"]) for r in recs] == [(i, f"v{i}".encode()) for i in range(4, 10)]


def test_groups(admin, bootstrap, topic):
    kp3.create_topic(bootstrap, topic, partitions=2)
    p = kp3.producer(bootstrap, acks="all")
    for i in range(10):
        p.send(topic, value=b"x", partition=i % 2)
    p.flush()
    p.close()
    group = f"g-{topic}"
    c = kp3.member(bootstrap, group, topic, "admin-probe", partitions=2)
    try:
        kp3.poll_until(c, 10, 30, "group consumer")
        c.commit({TopicPartition(topic, 0): OffsetAndMetadata(3, "", -1),
                  TopicPartition(topic, 1): OffsetAndMetadata(5, "", -1)})
        desc = admin.describe_groups([group])[group]
        assert desc["error"] is None and desc["group_state"] == "Stable"
        assert desc["protocol_type"] == "consumer"
        [member] = desc["members"]
        assert member["client_id"] == "admin-probe"
        tps = sorted((t["topic"], pp) for t in member["member_assignment"]["assigned_partitions"]
                     for pp in t["partitions"])
        assert tps == [(topic, 0), (topic, 1)]
        listed = {g["group_id"]: g for g in admin.list_groups()}
        assert listed[group]["protocol_type"] == "consumer"
        stable = [g["group_id"] for g in admin.list_groups(states_filter=["Stable"])]
        assert group in stable
    finally:
        c.close(autocommit=False)

    assert admin.describe_groups([group])[group]["group_state"] == "Empty"
    assert group not in [g["group_id"] for g in admin.list_groups(states_filter=["Stable"])]
    offs = admin.list_group_offsets({group: None})[group]
    assert {(tp.topic, tp.partition): om.offset for tp, om in offs.items()} == \
        {(topic, 0): 3, (topic, 1): 5}

    admin.alter_group_offsets(group, {TopicPartition(topic, 1): OffsetAndMetadata(2, "", -1)})
    offs = admin.list_group_offsets({group: [TopicPartition(topic, 1)]})[group]
    assert {tp.partition: om.offset for tp, om in offs.items()} == {1: 2}

    admin.delete_groups([group])
    assert group not in [g["group_id"] for g in admin.list_groups()]
