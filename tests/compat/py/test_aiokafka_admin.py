"""aiokafka 0.14 AIOKafkaAdminClient against a real broker: create (and the
already-exists error), list, describe and delete topics; describe_cluster;
describe_configs and the legacy AlterConfigs; list and describe consumer
groups; list_consumer_group_offsets; delete_records."""

from aiokafka import TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic, RecordsToDelete
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType

from aio import STEP_S, consumer, create_topic, get_n, producer, read_partition, run, send_all
from py_common import BASE_OVERRIDES

BROKER_OVERRIDES = dict(BASE_OVERRIDES)
TOPIC_ALREADY_EXISTS, UNKNOWN_TOPIC_OR_PARTITION = 36, 3


async def _admin(bootstrap):
    a = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=STEP_S * 1000)
    await a.start()
    return a


def _plain(n, partition):
    return [{"key": None, "value": f"v{i}".encode(), "headers": [], "timestamp": None,
             "partition": partition} for i in range(n)]


def test_topics_and_cluster(broker, bootstrap, topic):
    async def go():
        await create_topic(bootstrap, topic, partitions=3)
        a = await _admin(bootstrap)
        try:
            again = await a.create_topics([NewTopic(topic, 1, 1)])
            assert [(t[0], t[1]) for t in again.topic_errors] == [(topic, TOPIC_ALREADY_EXISTS)]
            assert topic in await a.list_topics()
            cluster = await a.describe_cluster()
            [node] = cluster["brokers"]
            assert (node["host"], node["port"]) == ("127.0.0.1", broker.port)
            assert cluster["controller_id"] == node["node_id"]
            assert isinstance(cluster["cluster_id"], str) and cluster["cluster_id"]
            [desc] = await a.describe_topics([topic])
            assert (desc["topic"], desc["error_code"], desc["is_internal"]) == (topic, 0, False)
            parts = sorted(desc["partitions"], key=lambda p: p["partition"])
            assert [(p["partition"], p["error_code"], p["leader"], p["replicas"], p["isr"]) for p in parts] == \
                [(i, 0, node["node_id"], [node["node_id"]], [node["node_id"]]) for i in range(3)]
            gone = await a.delete_topics([topic])
            assert [(t[0], t[1]) for t in gone.topic_error_codes] == [(topic, 0)]
            again = await a.delete_topics([topic])
            assert [(t[0], t[1]) for t in again.topic_error_codes] == [(topic, UNKNOWN_TOPIC_OR_PARTITION)]
        finally:
            await a.close()

    run(go())


async def _configs(a, topic, keys):
    [resp] = await a.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic,
                                                      {k: None for k in keys})])
    [res] = resp.to_object()["resources"]
    assert (res["error_code"], res["resource_name"]) == (0, topic)
    return {e["config_names"]: (e["config_value"], e["config_source"]) for e in res["config_entries"]}


def test_configs(bootstrap, topic):
    dynamic_topic, default = 1, 5  # DescribeConfigs config_source values

    async def go():
        await create_topic(bootstrap, topic, configs={"retention.ms": "3600000", "cleanup.policy": "compact"})
        a = await _admin(bootstrap)
        try:
            keys = ["retention.ms", "cleanup.policy", "max.message.bytes"]
            assert await _configs(a, topic, keys) == {
                "retention.ms": ("3600000", dynamic_topic), "cleanup.policy": ("compact", dynamic_topic),
                "max.message.bytes": ("1048588", default)}
            # Legacy AlterConfigs replaces the whole set: cleanup.policy returns to its default.
            [resp] = await a.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic,
                                                           {"retention.ms": "7200000"})])
            assert [(r["error_code"], r["resource_name"]) for r in resp.to_object()["resources"]] == [(0, topic)]
            assert await _configs(a, topic, keys) == {
                "retention.ms": ("7200000", dynamic_topic), "cleanup.policy": ("delete", default),
                "max.message.bytes": ("1048588", default)}
        finally:
            await a.close()

    run(go())


def test_groups_offsets_and_delete_records(bootstrap, topic):
    group = f"g-{topic}"

    async def go():
        await create_topic(bootstrap, topic, partitions=2)
        p = producer(bootstrap, acks="all")
        await p.start()
        try:
            await send_all(p, topic, _plain(10, 0) + _plain(4, 1))
        finally:
            await p.stop()
        a = await _admin(bootstrap)
        c = consumer(bootstrap, topic, group_id=group, client_id="admin-probe")
        await c.start()
        try:
            await get_n(c, 14, STEP_S, "group consumer")
            await c.commit({TopicPartition(topic, 0): 3, TopicPartition(topic, 1): 4})
            assert (group, "consumer") in await a.list_consumer_groups()
            [resp] = await a.describe_consumer_groups([group])
            [g] = resp.to_object()["groups"]
            assert (g["error_code"], g["group"], g["state"], g["protocol_type"], g["protocol"]) == \
                (0, group, "Stable", "consumer", "roundrobin")
            assert [m["client_id"] for m in g["members"]] == ["admin-probe"]
        finally:
            await c.stop()
        try:
            [resp] = await a.describe_consumer_groups([group])
            [g] = resp.to_object()["groups"]
            assert (g["state"], g["members"]) == ("Empty", [])
            offs = await a.list_consumer_group_offsets(group)
            assert {tp: om.offset for tp, om in offs.items()} == \
                {TopicPartition(topic, 0): 3, TopicPartition(topic, 1): 4}
            tp0 = TopicPartition(topic, 0)
            assert await a.delete_records({tp0: RecordsToDelete(6)}) == {tp0: 6}
        finally:
            await a.close()
        got = await read_partition(bootstrap, topic, 0, 4)
        assert [(r["offset"], r["value"]) for r in got] == [(i, f"v{i}".encode()) for i in range(6, 10)]

    run(go())
