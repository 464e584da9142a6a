"""Client quotas in a cluster (issue 17, Deliver 5): a quota set through any
broker is stored in ZooKeeper (/config/clients/<id>, Kafka's layout) and
reaches every broker by the /config/changes notification; each broker then
holds the client to it (quotas are per broker, as Kafka's); a broker that
restarts loads it from ZooKeeper; removing it through another broker lifts
it everywhere.

Three brokers (ZooKeeper mode, so Spool only: the peer is a KRaft cluster,
whose quotas live in its metadata log). The probe is one Produce v3 of a
20 kB record by hand through each broker, on a fresh connection: against
producer_byte_rate=1000 (10 kB over the minimum 10 s window), it measures
2,000 B/s, so the answer carries a throttle time of (2000 - 1000) / 1000 x
10 s. A non-leader answers NOT_LEADER_OR_FOLLOWER, but the request is
charged all the same (Kafka charges the request, not the append).
"""

import json
import struct
import subprocess

import pytest

import kafka_wire as w
from cluster_fixtures import wait_until
from harness import spool_bin
from peer_cluster import which_cluster_peer

RECORD = b"q" * 20_000


def cli(*args):
    r = subprocess.run([spool_bin(), *args], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def produce_throttle(port, topic, client_id):
    """The throttle_time_ms of one 20 kB record produced as `client_id` through `port`."""
    batch = w.record_batch([(None, RECORD, ())], 1_700_000_000_000)
    body = w.string(None) + struct.pack(">hi", 1, 10000)
    body += struct.pack(">i", 1) + w.string(topic) + struct.pack(">ii", 1, 0)
    body += struct.pack(">i", len(batch)) + batch
    with w.connect(port, timeout=10) as sock:
        frame = w.roundtrip(sock, w.request(0, 3, 7, body, client_id=client_id))
    w.parse_produce_v3(frame)  # well formed
    return struct.unpack(">i", frame[-4:])[0]


def test_quotas_reach_every_broker(cluster_factory):
    if which_cluster_peer() == "kafka":
        pytest.skip("ZooKeeper-mode cluster: the Kafka peer is a KRaft cluster (quotas in its metadata log)")
    c = cluster_factory(3)
    ports = [b.port for b in c.brokers]
    topic = "quota-cluster"
    cli("topic", "create", topic, "--partitions", "1", "--replication-factor", "3",
        "--bootstrap-server", f"127.0.0.1:{ports[0]}")
    for i in range(3):
        assert produce_throttle(ports[i], topic, "slow") == 0, f"broker {i} throttles before any quota"
    cli("quota", "alter", "--client-id", "slow", "--add", "producer_byte_rate=1000",
        "--bootstrap-server", f"127.0.0.1:{ports[1]}")
    for i in range(3):
        wait_until(lambda: produce_throttle(ports[i], topic, "slow") > 0, f"broker {i} throttles client slow", 30)
        assert produce_throttle(ports[i], topic, "fast") == 0, f"broker {i} throttles another client"
    with c.zk.session() as z:
        data = json.loads(z.get_data(f"{c.chroot}/config/clients/slow")[0].decode())
        assert data == {"version": 1, "config": {"producer_byte_rate": "1000"}}, data
    described = json.loads(cli("quota", "describe", "--output", "json", "--bootstrap-server", f"127.0.0.1:{ports[2]}"))
    assert described == [{"entity": {"client-id": "slow"}, "quotas": {"producer_byte_rate": 1000.0}}], described
    # A restarted broker loads the quota from ZooKeeper.
    c.restart(2)
    wait_until(lambda: produce_throttle(ports[2], topic, "slow") > 0, "restarted broker 2 throttles client slow", 30)
    # Removed through another broker: lifted everywhere.
    cli("quota", "alter", "--client-id", "slow", "--delete", "producer_byte_rate",
        "--bootstrap-server", f"127.0.0.1:{ports[0]}")
    for i in range(3):
        wait_until(lambda: produce_throttle(ports[i], topic, "slow") == 0, f"broker {i} lifts the quota", 30)
