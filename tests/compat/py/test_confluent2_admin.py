"""confluent-kafka 2.x AdminClient against a real broker: create, describe,
list and delete topics; describe_configs, alter_configs and
incremental_alter_configs (SET, DELETE, APPEND); list_offsets (earliest,
latest, for_timestamp, max_timestamp); delete_records; describe_cluster;
list/describe consumer groups and list_consumer_group_offsets."""

import time

import pytest
from confluent_kafka import (ConsumerGroupState, ConsumerGroupTopicPartitions, IsolationLevel, KafkaError,
                             KafkaException, TopicCollection, TopicPartition)
from confluent_kafka.admin import (AlterConfigOpType, ConfigEntry, ConfigResource, ConfigSource, NewTopic,
                                   OffsetSpec, ResourceType)

import ck2
from py_common import BASE_OVERRIDES, wait_until

BROKER_OVERRIDES = dict(BASE_OVERRIDES)


@pytest.fixture(scope="module")
def admin(bootstrap):
    return ck2.admin(bootstrap)


def _topic_configs(admin, topic):
    res = ConfigResource(ResourceType.TOPIC, topic)
    return admin.describe_configs([res])[res].result(30)


def test_create_describe_delete_topics(broker, admin, topic):
    fut = admin.create_topics([NewTopic(topic, num_partitions=3, replication_factor=1,
                                        config={"retention.ms": "3600000"})], operation_timeout=20)
    assert fut[topic].result(30) is None
    again = admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)])
    with pytest.raises(KafkaException) as err:
        again[topic].result(30)
    assert err.value.args[0].code() == KafkaError.TOPIC_ALREADY_EXISTS

    md = wait_until(lambda: (m := admin.list_topics(timeout=10)).topics.get(topic) and m, 20,
                    "the new topic in metadata")
    assert sorted(md.topics[topic].partitions) == [0, 1, 2]
    node = list(md.brokers.values())
    assert len(node) == 1 and node[0].host == "127.0.0.1" and node[0].port == broker.port

    desc = admin.describe_topics(TopicCollection([topic]))[topic].result(30)
    assert desc.name == topic and desc.is_internal is False
    assert [p.id for p in desc.partitions] == [0, 1, 2]
    for p in desc.partitions:
        assert p.leader.id == node[0].id
        assert [r.id for r in p.replicas] == [node[0].id] and [r.id for r in p.isr] == [node[0].id]

    assert admin.delete_topics([topic], operation_timeout=20)[topic].result(30) is None
    wait_until(lambda: topic not in admin.list_topics(timeout=10).topics, 20, "the topic gone from metadata")
    with pytest.raises(KafkaException) as err:
        admin.delete_topics([topic])[topic].result(30)
    assert err.value.args[0].code() == KafkaError.UNKNOWN_TOPIC_OR_PART


@pytest.mark.filterwarnings("ignore:alter_configs has been deprecated")
def test_describe_and_alter_configs(admin, bootstrap, topic):
    ck2.create_topic(bootstrap, topic, config={"retention.ms": "3600000", "cleanup.policy": "compact"})
    cfg = _topic_configs(admin, topic)
    assert cfg["retention.ms"].value == "3600000"
    assert cfg["retention.ms"].source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
    assert cfg["cleanup.policy"].value == "compact"
    assert cfg["max.message.bytes"].value == "1048588"
    assert cfg["max.message.bytes"].source == ConfigSource.DEFAULT_CONFIG.value
    assert cfg["max.message.bytes"].is_default

    # Legacy AlterConfigs replaces the whole set: cleanup.policy returns to its default.
    res = ConfigResource(ResourceType.TOPIC, topic, set_config={"retention.ms": "7200000"})
    assert admin.alter_configs([res])[res].result(30) is None
    cfg = _topic_configs(admin, topic)
    assert cfg["retention.ms"].value == "7200000"
    assert cfg["cleanup.policy"].value == "delete"
    assert cfg["cleanup.policy"].source == ConfigSource.DEFAULT_CONFIG.value

    res = ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[
        ConfigEntry("retention.bytes", "1048576", incremental_operation=AlterConfigOpType.SET),
        ConfigEntry("retention.ms", None, incremental_operation=AlterConfigOpType.DELETE),
        ConfigEntry("cleanup.policy", "compact", incremental_operation=AlterConfigOpType.APPEND)])
    assert admin.incremental_alter_configs([res])[res].result(30) is None
    cfg = _topic_configs(admin, topic)
    assert cfg["retention.bytes"].value == "1048576"
    assert cfg["retention.bytes"].source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
    assert cfg["retention.ms"].value == "604800000"
    assert cfg["retention.ms"].source == ConfigSource.DEFAULT_CONFIG.value
    assert cfg["cleanup.policy"].value == "delete,compact"

    bad = ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[
        ConfigEntry("no.such.config", "1", incremental_operation=AlterConfigOpType.SET)])
    with pytest.raises(KafkaException) as err:
        admin.incremental_alter_configs([bad])[bad].result(30)
    assert err.value.args[0].code() == KafkaError.INVALID_CONFIG


def _timed_partition(bootstrap, topic, base_ts, stamps):
    """One record per batch (flushed one by one) with timestamps base_ts+s."""
    ck2.create_topic(bootstrap, topic)
    p = ck2.producer(bootstrap, acks="all", **{"linger.ms": 0})
    for i, s in enumerate(stamps):
        ck2.produce_all(p, topic, [{"key": None, "value": f"v{i}".encode(), "headers": [],
                                    "timestamp": base_ts + s, "partition": 0}])


def _list_offsets(admin, tp, spec, **kw):
    return admin.list_offsets({tp: spec}, **kw)[tp].result(30)


def test_list_offsets_and_delete_records(admin, bootstrap, topic):
    base = int(time.time() * 1000) - 600_000
    stamps = [0, 1000, 2000, 3000, 4000, 5000, 6000, 90000, 8000, 9000]
    _timed_partition(bootstrap, topic, base, stamps)
    tp = TopicPartition(topic, 0)
    assert _list_offsets(admin, tp, OffsetSpec.earliest()).offset == 0
    assert _list_offsets(admin, tp, OffsetSpec.latest()).offset == 10
    assert _list_offsets(admin, tp, OffsetSpec.latest(),
                         isolation_level=IsolationLevel.READ_COMMITTED).offset == 10
    r = _list_offsets(admin, tp, OffsetSpec.for_timestamp(base + 2500))
    assert (r.offset, r.timestamp) == (3, base + 3000)
    assert _list_offsets(admin, tp, OffsetSpec.for_timestamp(base + 100000)).offset == -1

    deleted = admin.delete_records([TopicPartition(topic, 0, 4)])
    assert [v.result(30).low_watermark for v in deleted.values()] == [4]
    assert _list_offsets(admin, tp, OffsetSpec.earliest()).offset == 4
    got = ck2.read_partition(bootstrap, topic, 0, 6)
    assert [r["offset"] for r in got] == list(range(4, 10))
    assert [r["value"] for r in got] == [f"v{i}".encode() for i in range(4, 10)]


def test_list_offsets_max_timestamp(admin, bootstrap, topic):
    base = int(time.time() * 1000) - 600_000
    _timed_partition(bootstrap, topic, base, [0, 1000, 2000, 3000, 4000, 5000, 6000, 90000, 8000, 9000])
    r = _list_offsets(admin, TopicPartition(topic, 0), OffsetSpec.max_timestamp())
    assert (r.offset, r.timestamp) == (7, base + 90000)


def test_describe_cluster(broker, admin):
    d = admin.describe_cluster().result(30)
    assert isinstance(d.cluster_id, str) and d.cluster_id
    assert [(n.host, n.port) for n in d.nodes] == [("127.0.0.1", broker.port)]
    assert d.controller is not None and d.controller.id == d.nodes[0].id


def test_consumer_groups(admin, bootstrap, topic):
    ck2.create_topic(bootstrap, topic, partitions=2)
    ck2.produce_all(ck2.producer(bootstrap, acks="all"), topic,
                    [{"key": None, "value": b"x", "headers": [], "timestamp": None, "partition": i % 2}
                     for i in range(10)])
    group = f"g-{topic}"
    c = ck2.consumer(bootstrap, group, **{"client.id": "admin-probe"})
    c.subscribe([topic])
    try:
        ck2.poll_until(c, 10, 30, "group consumer")
        c.commit(offsets=[TopicPartition(topic, 0, 3), TopicPartition(topic, 1, 5)], asynchronous=False)

        desc = admin.describe_consumer_groups([group])[group].result(30)
        assert desc.group_id == group and desc.is_simple_consumer_group is False
        assert desc.state == ConsumerGroupState.STABLE
        assert len(desc.members) == 1 and desc.members[0].client_id == "admin-probe"
        assert sorted((tp.topic, tp.partition) for tp in desc.members[0].assignment.topic_partitions) == \
            [(topic, 0), (topic, 1)]
        assert desc.partition_assignor in ("range", "roundrobin")

        listed = admin.list_consumer_groups(states={ConsumerGroupState.STABLE}).result(30)
        assert not listed.errors
        assert [(g.group_id, g.state) for g in listed.valid if g.group_id == group] == \
            [(group, ConsumerGroupState.STABLE)]
    finally:
        c.close()

    desc = admin.describe_consumer_groups([group])[group].result(30)
    assert desc.state == ConsumerGroupState.EMPTY and desc.members == []
    listed = admin.list_consumer_groups(states={ConsumerGroupState.STABLE}).result(30)
    assert group not in [g.group_id for g in listed.valid]
    listed = admin.list_consumer_groups().result(30)
    assert [g.state for g in listed.valid if g.group_id == group] == [ConsumerGroupState.EMPTY]

    offs = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[group].result(30)
    assert offs.group_id == group
    assert sorted((tp.topic, tp.partition, tp.offset) for tp in offs.topic_partitions) == \
        [(topic, 0, 3), (topic, 1, 5)]
    one = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(
        group, [TopicPartition(topic, 1)])])[group].result(30)
    assert [(tp.partition, tp.offset) for tp in one.topic_partitions] == [(1, 5)]

    assert admin.delete_consumer_groups([group])[group].result(30) is None
    listed = admin.list_consumer_groups().result(30)
    assert group not in [g.group_id for g in listed.valid]
