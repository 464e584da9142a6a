"""SCRAM users in a cluster (issue 17): a credential set through any broker
is stored in ZooKeeper (/config/users/<user>) and reaches every broker by
the /config/changes notification; deleting it locks the user out everywhere;
a broker that restarts loads it from ZooKeeper.

Three brokers (ZooKeeper mode, so Spool only: the peer is a KRaft cluster),
each with CLIENT (PLAINTEXT, inter-broker) and SASL (SASL_PLAINTEXT,
SCRAM-SHA-512) listeners. Logins are whole SCRAM exchanges by hand
(sasl_wire.scram_login), each checking the server's signature.
"""

import subprocess

import pytest

import kafka_wire as w
import sasl_wire as s
from cluster_fixtures import wait_until
from harness import free_port, spool_bin
from peer_cluster import which_cluster_peer

SASL_AUTHENTICATION_FAILED = 58


def cli(*args):
    r = subprocess.run([spool_bin(), *args], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def logs_in(port, password):
    err, sock = s.scram_login(port, "dave", password)
    if sock is not None:
        # Authenticated: the connection serves.
        frame = w.roundtrip(sock, s.metadata_v1(9))
        sock.close()
        return frame is not None
    return False if err == SASL_AUTHENTICATION_FAILED else None


def test_scram_users_reach_every_broker(cluster_factory, tmp_path):
    if which_cluster_peer() == "kafka":
        pytest.skip("ZooKeeper-mode cluster: the Kafka peer is a KRaft cluster (credentials in its metadata log)")
    client = [free_port() for _ in range(3)]
    sasl = [free_port() for _ in range(3)]
    per_broker = {i: {"listeners": f"CLIENT://127.0.0.1:{client[i]},SASL://127.0.0.1:{sasl[i]}"} for i in range(3)}
    c = cluster_factory(3, overrides={"listener.security.protocol.map": "CLIENT:PLAINTEXT,SASL:SASL_PLAINTEXT",
                                      "inter.broker.listener.name": "CLIENT",
                                      "sasl.enabled.mechanisms": "SCRAM-SHA-512"},
                        ports=client, broker_overrides=per_broker)
    pw = tmp_path / "pw"
    pw.write_text("dave-secret\n")
    cli("user", "scram", "set", "--user", "dave", "--mechanism", "SCRAM-SHA-512", "--password-file", str(pw),
        "--bootstrap-server", f"127.0.0.1:{client[1]}")
    for i in range(3):
        wait_until(lambda: logs_in(sasl[i], "dave-secret") is True, f"dave logs in on broker {i}", 30)
        assert logs_in(sasl[i], "wrong") is False
    # A restarted broker loads the credential from ZooKeeper.
    c.restart(2)
    wait_until(lambda: logs_in(sasl[2], "dave-secret") is True, "dave logs in on restarted broker 2", 30)
    # Deleted through another broker: locked out everywhere.
    cli("user", "scram", "delete", "--user", "dave", "--mechanism", "SCRAM-SHA-512",
        "--bootstrap-server", f"127.0.0.1:{client[0]}")
    for i in range(3):
        wait_until(lambda: logs_in(sasl[i], "dave-secret") is False, f"dave locked out of broker {i}", 30)
    with c.zk.session() as z:
        node = c.chroot + "/config/users/dave"
        assert z.exists(node) is not None
        assert b"SCRAM" not in z.get_data(node)[0]
