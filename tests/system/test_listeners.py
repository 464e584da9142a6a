"""Named listeners (issue 17, Deliver 1): a broker serves every entry of
`listeners`, and each answer that names brokers (Metadata, DescribeCluster,
FindCoordinator) gives the endpoints of the listener the request came in on,
as Kafka does. Real clients bootstrapped on one listener stay on it.

- test_each_listener_answers_with_its_own_endpoints: one broker, listeners
  PLAINTEXT and SECOND. Passes against Spool and against the Apache Kafka 4.4
  peer: cd tests/system && SPOOL_TEST_PEER=kafka /usr/bin/python3 -m pytest -q test_listeners.py
- test_cluster_replicates_over_the_inter_broker_listener: three brokers
  (ZooKeeper mode, so Spool only: the peer is a KRaft cluster) with CLIENT,
  REPLICATION and CONTROL listeners, inter.broker.listener.name=REPLICATION
  and control.plane.listener.name=CONTROL. Every acks=all write needs all
  three replicas (min.insync.replicas=3), so replication runs; the open
  TCP connections and the survivors' lost-connection lines after a kill -9
  show which ports the brokers used.
"""

import os
import time

import pytest
from confluent_kafka import Consumer, KafkaError
from confluent_kafka.admin import AdminClient

import ck_util
import group_wire as g
import kafka_wire as w
from cluster_fixtures import wait_until
from harness import Broker, free_port
from meta_wire import DESCRIBE_CLUSTER, METADATA, Conn
from peer_cluster import which_cluster_peer
from workload import create_topic

NONE, COORDINATOR_NOT_AVAILABLE = 0, 15


def brokers_seen(port):
    """(node, host, port) of every broker in Metadata v1 and v12 and
    DescribeCluster v0 answers on `port`; asserts the three agree."""
    with Conn(port) as c:
        v1 = c.call(METADATA, 1, {"Topics": []})
        v12 = c.call(METADATA, 12, {"Topics": None, "AllowAutoTopicCreation": False,
                                    "IncludeTopicAuthorizedOperations": False})
        dc = c.call(DESCRIBE_CLUSTER, 0, {"IncludeClusterAuthorizedOperations": False})
    seen = [sorted((b["NodeId"], b["Host"], b["Port"]) for b in md["Brokers"]) for md in (v1, v12)]
    seen.append(sorted((b["BrokerId"], b["Host"], b["Port"]) for b in dc["Brokers"]))
    assert seen[0] == seen[1] == seen[2], seen
    return seen[0]


def coordinator_port(port, group):
    """FindCoordinator v0 on `port`, retried while the offsets topic is being
    created; -> (node, host, port)."""
    deadline = time.monotonic() + 30
    while True:
        with w.connect(port, timeout=30) as s:
            fc = g.parse_find_coordinator(w.roundtrip(s, g.find_coordinator(1, group, 0)), 0)
        if fc["error"] != COORDINATOR_NOT_AVAILABLE or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert fc["error"] == NONE, fc
    return fc["node_id"], fc["host"], fc["port"]


def group_consume(bootstrap, topic, group, expected):
    """Values read by a group member on `bootstrap` (the group coordinator is
    found and joined through that listener), until `expected` arrived."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "earliest",
                  "enable.auto.commit": False})
    try:
        c.subscribe([topic])
        got = []
        deadline = time.monotonic() + 60
        while len(got) < expected and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None or (m.error() and m.error().code() == KafkaError._PARTITION_EOF):
                continue
            assert m.error() is None, m.error()
            got.append(m.value().decode())
        return got
    finally:
        c.close()


def test_each_listener_answers_with_its_own_endpoints():
    second = free_port()
    b = Broker(extra_listeners={"SECOND": second}, name="listeners")
    try:
        b.start()
        ports = {"PLAINTEXT": b.port, "SECOND": second}
        nodes = set()
        for name, port in ports.items():
            seen = brokers_seen(port)
            assert [(h, p) for _, h, p in seen] == [("127.0.0.1", port)], (name, seen)
            nodes.add(seen[0][0])
            node, host, cport = coordinator_port(port, f"listeners-{os.urandom(3).hex()}")
            assert (host, cport) == ("127.0.0.1", port), (name, node, host, cport)
        assert len(nodes) == 1, nodes  # one broker, seen through both

        # librdkafka on SECOND learns only SECOND's address; a producer there
        # and a group member there (found through FindCoordinator on SECOND),
        # and a reader on PLAINTEXT, see the same log.
        on_second = f"127.0.0.1:{second}"
        md = AdminClient({"bootstrap.servers": on_second}).list_topics(timeout=10)
        assert {(m.host, m.port) for m in md.brokers.values()} == {("127.0.0.1", second)}, md.brokers
        topic = f"listeners-{os.urandom(3).hex()}"
        create_topic(b.bootstrap, topic, 1, 1)
        values = [f"v{i}" for i in range(200)]
        reports = ck_util.produce_all(ck_util.producer(on_second, acks="all"), topic, [{"value": v} for v in values])
        assert [r[0] for r in reports] == [None] * len(values), reports[:3]
        assert [r[2] for r in reports] == list(range(len(values)))
        read = [m.value().decode() for m in ck_util.consume(b.bootstrap, topic, expected=len(values))]
        assert read == values
        assert group_consume(on_second, topic, f"listeners-g-{os.urandom(3).hex()}", len(values)) == values
    finally:
        b.stop()
        b.cleanup()


def accepted_ports():
    """Local ports of the established TCP connections on this machine (the
    server side of each shows its listening port)."""
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[3] == "01":  # ESTABLISHED
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def test_cluster_replicates_over_the_inter_broker_listener(cluster_factory):
    if which_cluster_peer() == "kafka":
        pytest.skip("ZooKeeper-mode cluster: the Kafka peer is a KRaft cluster (its own listener rules)")
    client = [free_port() for _ in range(3)]
    replication = [free_port() for _ in range(3)]
    control = [free_port() for _ in range(3)]
    per_broker = {i: {"listeners": f"CLIENT://127.0.0.1:{client[i]},REPLICATION://127.0.0.1:{replication[i]},"
                                   f"CONTROL://127.0.0.1:{control[i]}"}
                  for i in range(3)}
    c = cluster_factory(3, overrides={"listener.security.protocol.map":
                                      "CLIENT:PLAINTEXT,REPLICATION:PLAINTEXT,CONTROL:PLAINTEXT",
                                      "inter.broker.listener.name": "REPLICATION",
                                      "control.plane.listener.name": "CONTROL"},
                        ports=client, broker_overrides=per_broker)
    # Each listener's answers name every broker on that listener only.
    assert brokers_seen(client[1]) == [(i, "127.0.0.1", client[i]) for i in range(3)]
    assert brokers_seen(replication[2]) == [(i, "127.0.0.1", replication[i]) for i in range(3)]
    with c.zk.session() as s:
        reg = s.get_data(c.broker_znode(0))[0].decode()
    assert f'"CLIENT://127.0.0.1:{client[0]}"' in reg and f'"REPLICATION://127.0.0.1:{replication[0]}"' in reg, reg

    topic = f"ibl-{os.urandom(3).hex()}"
    create_topic(c.bootstrap, topic, 3, 3, {"min.insync.replicas": "3"})
    values = [f"w{i}" for i in range(300)]
    p = ck_util.producer(c.bootstrap, acks="all", **{"enable.idempotence": True})
    reports = ck_util.produce_all(p, topic, [{"value": v} for v in values], partition=None)
    assert all(r[0] is None for r in reports), [r for r in reports if r[0] is not None][:3]
    read = ck_util.consume(c.bootstrap, topic, partitions=(0, 1, 2), expected=len(values))
    assert sorted(m.value().decode() for m in read) == sorted(values)
    # Nobody else knows the REPLICATION and CONTROL ports: the connections
    # there are the replica fetchers' (every broker leads a partition) and
    # the controller's (it talks to every broker, itself included).
    open_ports = accepted_ports()
    assert set(replication) <= open_ports and set(control) <= open_ports, (replication, control, open_ports)

    # The others reached broker 0 on its REPLICATION port, never its CLIENT one.
    c.kill9(0)
    wait_until(lambda: all(f"127.0.0.1:{replication[0]}" in c.brokers[i].log() for i in (1, 2))
               or [c.brokers[i].log()[-2000:] for i in (1, 2)], "the survivors' lines about broker 0", 30)
    for i in (1, 2):
        assert f"127.0.0.1:{client[0]}" not in c.brokers[i].log(), c.brokers[i].log()[-3000:]
    c.restart(0)
