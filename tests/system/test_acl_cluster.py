"""ACLs in a cluster (issue 17, Deliver 4): an ACL added through any broker
is stored in ZooKeeper (/kafka-acl/Topic/<name>, Kafka's layout) and
announced under /kafka-acl-changes, and every broker applies it; a broker
that restarts loads it from ZooKeeper; removing it through another broker
takes the permission away everywhere.

Three brokers (ZooKeeper mode, so Spool only: the peer is a KRaft cluster,
whose ACLs live in its metadata log), each with CLIENT (PLAINTEXT,
inter-broker, whose anonymous principal is the super user, as Kafka needs
for an unauthenticated inter-broker listener) and SASL (SASL_PLAINTEXT,
PLAIN user alice) listeners. alice's Produce v3 goes by hand to every
broker: authorization comes before leadership, so a broker that has not
applied the ACL answers TOPIC_AUTHORIZATION_FAILED whether it leads or not.
"""

import struct
import subprocess

import pytest

import kafka_wire as w
import sasl_wire as s
from cluster_fixtures import wait_until
from harness import free_port, spool_bin
from peer_cluster import which_cluster_peer

TOPIC_AUTHORIZATION_FAILED = 29
JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";')


def cli(*args):
    r = subprocess.run([spool_bin(), *args], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def alice_produce_error(port, topic):
    """The error of one record produced by alice to partition 0 through `port`."""
    with w.connect(port, timeout=10) as sock:
        assert s.parse_handshake(w.roundtrip(sock, s.handshake(1, "PLAIN")))[0] == 0
        ans = s.parse_authenticate(w.roundtrip(sock, s.authenticate(2, s.plain_token("alice", "alice-secret"))))
        assert ans["error"] == 0, ans
        batch = w.record_batch([(None, b"from-alice", ())], 1_700_000_000_000)
        frame = w.roundtrip(sock, w.produce_v3(3, topic, 0, batch, acks=1))
        _, results = w.parse_produce_v3(frame)
        return results[(topic, 0)][0]


def test_acls_reach_every_broker(cluster_factory):
    if which_cluster_peer() == "kafka":
        pytest.skip("ZooKeeper-mode cluster: the Kafka peer is a KRaft cluster (ACLs in its metadata log)")
    client = [free_port() for _ in range(3)]
    sasl = [free_port() for _ in range(3)]
    per_broker = {i: {"listeners": f"CLIENT://127.0.0.1:{client[i]},SASL://127.0.0.1:{sasl[i]}"} for i in range(3)}
    c = cluster_factory(3, overrides={"listener.security.protocol.map": "CLIENT:PLAINTEXT,SASL:SASL_PLAINTEXT",
                                      "inter.broker.listener.name": "CLIENT",
                                      "sasl.enabled.mechanisms": "PLAIN",
                                      "listener.name.sasl.plain.sasl.jaas.config": JAAS,
                                      "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
                                      "super.users": "User:ANONYMOUS"},
                        ports=client, broker_overrides=per_broker)
    topic = "acl-cluster"
    cli("topic", "create", topic, "--partitions", "1", "--replication-factor", "3",
        "--bootstrap-server", f"127.0.0.1:{client[0]}")
    for i in range(3):
        wait_until(lambda: alice_produce_error(sasl[i], topic) == TOPIC_AUTHORIZATION_FAILED,
                   f"broker {i} refuses alice", 30)
    cli("acl", "add", "--topic", topic, "--allow-principal", "User:alice", "--operation", "Write",
        "--bootstrap-server", f"127.0.0.1:{client[1]}")
    for i in range(3):
        # NONE on the leader, NOT_LEADER_OR_FOLLOWER elsewhere: authorized either way.
        wait_until(lambda: alice_produce_error(sasl[i], topic) != TOPIC_AUTHORIZATION_FAILED,
                   f"broker {i} applies alice's ACL", 30)
    with c.zk.session() as z:
        data = z.get_data(f"{c.chroot}/kafka-acl/Topic/{topic}")[0].decode()
        assert data == ('{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow",'
                        '"operation":"Write","host":"*"}]}'), data
        assert z.get_children(f"{c.chroot}/kafka-acl-changes"), "no change notification"
    # A restarted broker loads the ACL from ZooKeeper.
    c.restart(2)
    wait_until(lambda: alice_produce_error(sasl[2], topic) != TOPIC_AUTHORIZATION_FAILED,
               "restarted broker 2 applies alice's ACL", 30)
    # Removed through another broker: refused everywhere again.
    cli("acl", "remove", "--topic", topic, "--bootstrap-server", f"127.0.0.1:{client[0]}")
    for i in range(3):
        wait_until(lambda: alice_produce_error(sasl[i], topic) == TOPIC_AUTHORIZATION_FAILED,
                   f"broker {i} drops alice's ACL", 30)
    with c.zk.session() as z:
        assert z.exists(f"{c.chroot}/kafka-acl/Topic/{topic}") is None
