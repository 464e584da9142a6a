"""`spool cluster describe` and `spool topic describe` against a real broker:
the brokers, controller and cluster id the CLI prints are the ones a real
client (confluent-kafka / librdkafka's AdminClient) sees, and a healthy
broker reports no under-replicated or offline partitions. Passes on Spool
and on the Apache Kafka 4.4 peer (SPOOL_TEST_PEER=kafka)."""

import json
import subprocess

from confluent_kafka.admin import AdminClient, NewTopic

from harness import spool_bin

TIMEOUT_S = 30


def spool(*args):
    return subprocess.run([spool_bin(), *args], capture_output=True, text=True, timeout=120)


def test_cluster_describe_matches_the_client_view(bootstrap, topic):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 3, 1)])[topic].result(TIMEOUT_S)
    meta = admin.list_topics(timeout=TIMEOUT_S)

    r = spool("cluster", "describe", "--bootstrap-server", bootstrap, "-o", "json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["cluster_id"] == meta.cluster_id and meta.cluster_id
    assert got["controller_id"] == meta.controller_id
    assert [b["id"] for b in got["brokers"]] == sorted(meta.brokers)
    port = int(bootstrap.rsplit(":", 1)[1])
    assert [b["port"] for b in got["brokers"]] == [port]
    assert got["under_replicated_partitions"] == []
    assert got["offline_partitions"] == []

    r = spool("cluster", "describe", "--bootstrap-server", bootstrap)
    assert r.returncode == 0, r.stderr
    assert f"Cluster id: {meta.cluster_id}\n" in r.stdout
    assert "Under-replicated partitions: 0\nOffline partitions: 0\n" in r.stdout


def test_topic_describe_shows_leader_replicas_isr(bootstrap, topic):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 2, 1)])[topic].result(TIMEOUT_S)
    parts = admin.list_topics(topic, timeout=TIMEOUT_S).topics[topic].partitions
    r = spool("topic", "describe", topic, "--bootstrap-server", bootstrap, "-o", "json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert len(got) == 1 and got[0]["name"] == topic
    by_index = {p["partition"]: p for p in got[0]["partitions"]}
    assert sorted(by_index) == [0, 1]
    for i, p in parts.items():
        assert by_index[i]["leader"] == p.leader
        assert by_index[i]["replicas"] == list(p.replicas)
        assert by_index[i]["isr"] == list(p.isrs)


def test_cluster_describe_unreachable_broker_fails():
    r = spool("cluster", "describe", "--bootstrap-server", "127.0.0.1:1", "--timeout-ms", "2000")
    assert r.returncode == 1
    assert "spool cluster describe: " in r.stderr
