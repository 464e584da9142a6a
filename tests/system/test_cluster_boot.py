"""Cluster mode, the membership half (issue 13 items 2-5, 8): 3 `spool
broker` processes on one real ZooKeeper register, elect one controller and
agree on the cluster; topics are created, refused and deleted through
ZooKeeper and seen on every broker; the controller's kill -9 elects another;
a log dir of another cluster refuses the start naming both ids; a broker
started before ZooKeeper logs a clear error per attempt and registers once it
runs; a restarted broker serves nothing before it has registered; a
LeaderAndIsr from a stale controller epoch is refused and changes nothing.
Every wait is bounded."""

import os
import re
import socket
import subprocess
import time

import pytest

import meta_wire
from cluster import ZooKeeper, _wait
from harness import free_port, port_accepts, spool_bin
from meta_wire import A

SESSION_MS = 4000
OVERRIDES = {"default.replication.factor": "1"}

LEADER_AND_ISR = {  # v2 (topic states, broker epoch; not flexible)
    "key": 4, "flex": 4,
    "req": [("ControllerId", "i32", 0, None), ("ControllerEpoch", "i32", 0, None), ("BrokerEpoch", "i64", 2, None),
            ("TopicStates", A([("TopicName", "str", 0, None),
                               ("PartitionStates", A([("PartitionIndex", "i32", 0, None),
                                                      ("ControllerEpoch", "i32", 0, None), ("Leader", "i32", 0, None),
                                                      ("LeaderEpoch", "i32", 0, None), ("Isr", ["i32"], 0, None),
                                                      ("ZkVersion", "i32", 0, None), ("Replicas", ["i32"], 0, None),
                                                      ("IsNew", "bool", 1, None)]), 0, None)]), 2, None),
            ("LiveLeaders", A([("BrokerId", "i32", 0, None), ("HostName", "str", 0, None), ("Port", "i32", 0, None)]),
             0, None)],
    "resp": [("ErrorCode", "i16", 0, None),
             ("PartitionErrors", A([("TopicName", "str", 0, None), ("PartitionIndex", "i32", 0, None),
                                    ("ErrorCode", "i16", 0, None)]), 0, None)],
}
STALE_CONTROLLER_EPOCH = 11
INVALID_REPLICATION_FACTOR = 38


def _cluster(cluster_factory, **extra):
    return cluster_factory(n=3, overrides=dict(OVERRIDES, **extra), session_timeout_ms=SESSION_MS)


def _describe(c, i):
    out = subprocess.run([spool_bin(), "cluster", "describe", "--bootstrap", c.brokers[i].bootstrap],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def _create(port, name, partitions, rf, timeout_ms=20000):
    with meta_wire.Conn(port, 30) as conn:
        r = conn.call(meta_wire.CREATE_TOPICS, 4, {
            "Topics": [{"Name": name, "NumPartitions": partitions, "ReplicationFactor": rf, "Assignments": [],
                        "Configs": []}], "TimeoutMs": timeout_ms, "ValidateOnly": False})
    return r["Topics"][0]


def _topic(md, name):
    return next((t for t in md["Topics"] if t["Name"] == name), None)


def test_three_brokers_register_and_agree(cluster_factory):
    c = _cluster(cluster_factory)
    mds = [c.metadata(i) for i in range(3)]
    assert all(sorted(b["NodeId"] for b in md["Brokers"]) == [0, 1, 2] for md in mds), mds
    assert len({md["ControllerId"] for md in mds}) == 1 and mds[0]["ControllerId"] in (0, 1, 2), mds
    assert len({md["ClusterId"] for md in mds}) == 1 and mds[0]["ClusterId"], mds
    with meta_wire.Conn(c.brokers[0].port) as conn:
        dc = conn.call(meta_wire.DESCRIBE_CLUSTER, 0, {"IncludeClusterAuthorizedOperations": False})
    assert dc["ControllerId"] == mds[0]["ControllerId"] and dc["ClusterId"] == mds[0]["ClusterId"]
    assert sorted(b["BrokerId"] for b in dc["Brokers"]) == [0, 1, 2]
    for i in range(3):
        out = _describe(c, i)
        assert f"Controller: {mds[0]['ControllerId']}" in out and "Brokers: 3" in out, out
        assert f"Cluster id: {mds[0]['ClusterId']}" in out, out
    # A cluster member advertises the inter-broker APIs; they are refused to
    # nobody, but single-node brokers never list them (test_admin_versions).
    with meta_wire.Conn(c.brokers[1].port) as conn:
        av = conn.call(meta_wire.API_VERSIONS, 3, {"ClientSoftwareName": "t", "ClientSoftwareVersion": "1"})
    keys = {k["ApiKey"]: (k["MinVersion"], k["MaxVersion"]) for k in av["ApiKeys"]}
    assert keys[4] == (0, 7) and keys[5] == (0, 4) and keys[6] == (0, 8) and keys[7] == (0, 3) and keys[56] == (0, 3)


def test_topics_created_refused_and_deleted_everywhere(cluster_factory):
    c = _cluster(cluster_factory)
    r = _create(c.brokers[1].port, "rf3", 3, 3)
    assert r["ErrorCode"] in (0, 7), r  # 7: REQUEST_TIMED_OUT if leaders came late (still created)

    def shown_everywhere():
        for i in range(3):
            t = _topic(c.metadata(i, ["rf3"]), "rf3")
            if t is None or t["ErrorCode"] != 0 or len(t["Partitions"]) != 3:
                return False
            for p in t["Partitions"]:
                if p["LeaderId"] < 0 or sorted(p["ReplicaNodes"]) != [0, 1, 2] or sorted(p["IsrNodes"]) != [0, 1, 2]:
                    return False
        return True
    assert _wait(shown_everywhere, 30), [c.metadata(i, ["rf3"]) for i in range(3)]
    leaders = sorted(p["LeaderId"] for p in _topic(c.metadata(0, ["rf3"]), "rf3")["Partitions"])
    assert leaders == [0, 1, 2], leaders  # Kafka's round-robin: one preferred leader per broker

    r = _create(c.brokers[2].port, "rf4", 1, 4)
    assert r["ErrorCode"] == INVALID_REPLICATION_FACTOR, r
    assert "larger than available brokers: 3" in (r["ErrorMessage"] or ""), r
    assert _topic(c.metadata(0, ["rf4"]), "rf4")["ErrorCode"] == 3

    with meta_wire.Conn(c.brokers[0].port, 30) as conn:
        d = conn.call(meta_wire.DELETE_TOPICS, 4, {"TopicNames": ["rf3"], "TimeoutMs": 20000})
    assert d["Responses"][0]["ErrorCode"] in (0, 7), d
    assert _wait(lambda: all(_topic(c.metadata(i, ["rf3"]), "rf3")["ErrorCode"] == 3 for i in range(3)), 30)


def test_controller_kill9_elects_another(cluster_factory):
    c = _cluster(cluster_factory)
    first = c.controller(0)
    c.kill9(first)
    survivors = [i for i in range(3) if i != first]

    def moved():
        ids = {c.metadata(i)["ControllerId"] for i in survivors}
        return len(ids) == 1 and ids.pop() in survivors
    assert _wait(moved, 30), [c.metadata(i) for i in survivors]
    now = c.controller(survivors[0])
    assert f"Controller: {now}" in _describe(c, survivors[0])


def test_log_dir_of_another_cluster_refuses_the_start(cluster_factory, tmp_path):
    c = _cluster(cluster_factory)
    cluster_id = c.metadata(0)["ClusterId"]
    data = tmp_path / "data"
    data.mkdir()
    (data / "meta.properties").write_text("version=0\nbroker.id=7\ncluster.id=OtherClusterIdAAAAAAAAA\n")
    port = free_port()
    p = subprocess.run([spool_bin(), "broker", "--override", "broker.id=7", "--override",
                        f"listeners=PLAINTEXT://127.0.0.1:{port}", "--override", f"log.dirs={data}",
                        "--override", f"zookeeper.connect={c.brokers[0].zk_connect}"],
                       capture_output=True, text=True, timeout=60)
    out = p.stdout + p.stderr
    assert p.returncode != 0, out
    assert "OtherClusterIdAAAAAAAAA" in out and cluster_id in out, out
    assert not port_accepts(port)


def test_zookeeper_unreachable_at_start_then_registers(tmp_path):
    zk = ZooKeeper(str(tmp_path / "zk"), free_port())
    port = free_port()
    log = tmp_path / "broker.log"
    with open(log, "wb") as f:
        proc = subprocess.Popen([spool_bin(), "broker", "--override", "broker.id=5", "--override",
                                 f"listeners=PLAINTEXT://127.0.0.1:{port}", "--override",
                                 f"log.dirs={tmp_path / 'data'}", "--override", f"zookeeper.connect={zk.connect}",
                                 "--override", "zookeeper.connection.timeout.ms=1000",
                                 "--override", f"zookeeper.session.timeout.ms={SESSION_MS}"],
                                stdout=f, stderr=subprocess.STDOUT)
    try:
        attempts = lambda: re.findall(r"cannot reach ZooKeeper at \S+ \(attempt (\d+)\)", log.read_text())  # noqa
        assert _wait(lambda: len(attempts()) >= 2, 30), log.read_text()
        assert proc.poll() is None and not port_accepts(port), log.read_text()  # not serving before registering
        zk.start()

        def registered():
            if not port_accepts(port):
                return False
            try:
                with meta_wire.Conn(port, 3) as conn:
                    md = conn.call(meta_wire.METADATA, 7, {"Topics": None, "AllowAutoTopicCreation": False})
            except (OSError, AssertionError):
                return False
            return [b["NodeId"] for b in md["Brokers"]] == [5] and md["ControllerId"] == 5
        assert _wait(registered, 60), log.read_text()
        assert "registered broker 5 in ZooKeeper" in log.read_text()
        proc.terminate()
        assert proc.wait(60) == 0, log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        zk.stop()


def test_stale_controller_epoch_leader_and_isr_is_refused(cluster_factory):
    c = _cluster(cluster_factory)
    target = (c.controller(0) + 1) % 3
    req = {"ControllerId": 0, "ControllerEpoch": 0, "BrokerEpoch": -1,
           "TopicStates": [{"TopicName": "ghost", "PartitionStates": [
               {"PartitionIndex": 0, "ControllerEpoch": 0, "Leader": target, "LeaderEpoch": 5, "Isr": [target],
                "ZkVersion": 0, "Replicas": [target], "IsNew": True}]}],
           "LiveLeaders": [{"BrokerId": target, "HostName": "127.0.0.1", "Port": c.brokers[target].port}]}
    with meta_wire.Conn(c.brokers[target].port) as conn:
        r = conn.call(LEADER_AND_ISR, 2, req)
    assert r["ErrorCode"] == STALE_CONTROLLER_EPOCH, r
    assert [e["ErrorCode"] for e in r["PartitionErrors"]] == [STALE_CONTROLLER_EPOCH], r
    time.sleep(0.5)
    assert _topic(c.metadata(target, ["ghost"]), "ghost")["ErrorCode"] == 3
    assert not os.path.exists(os.path.join(c.brokers[target].data_dir, "ghost-0"))
    assert "LeaderAndIsr from controller 0 refused with STALE_CONTROLLER_EPOCH" in c.brokers[target].log()


def test_alter_configs_seen_on_every_broker(cluster_factory):
    import admin_wire
    import kafka_wire
    c = _cluster(cluster_factory)
    assert _create(c.brokers[0].port, "cfg", 1, 3)["ErrorCode"] in (0, 7)
    alter = subprocess.run([spool_bin(), "topic", "alter-config", "cfg", "--set", "retention.ms=123456",
                            "--set", "min.insync.replicas=2", "--bootstrap", c.brokers[2].bootstrap],
                           capture_output=True, text=True, timeout=30)
    assert alter.returncode == 0, alter.stdout + alter.stderr

    def described(i):
        with socket.create_connection(("127.0.0.1", c.brokers[i].port), timeout=10) as s:
            frame = kafka_wire.roundtrip(s, admin_wire.describe_configs(5, 1, [(2, "cfg", None)]))
        r = admin_wire.parse_describe_configs(frame, 5, 1)[0]
        assert r["error"] == 0, r
        return r["configs"]
    for i in range(3):
        cfg = described(i)
        assert cfg["retention.ms"]["value"] == "123456" and cfg["retention.ms"]["source"] == 1, cfg["retention.ms"]
        assert cfg["min.insync.replicas"]["value"] == "2", cfg["min.insync.replicas"]
    # Every broker's change listener saw the notification.
    assert _wait(lambda: all("config changes: topic 'cfg' overrides now 2 key(s)" in c.brokers[i].log()
                             for i in range(3)), 20), c.log_tails()


def test_session_expiry_registers_again_with_a_new_epoch(cluster_factory):
    c = _cluster(cluster_factory)
    victim = (c.controller(0) + 1) % 3  # not the controller: its resignation is another test
    before = c.registration(victim)
    old_owner = c.expire_session(victim)

    def back():
        st = c.registration(victim)
        return st is not None and st["ephemeral_owner"] != old_owner
    assert _wait(back, 30), c.log_tails()
    after = c.registration(victim)
    assert after["czxid"] > before["czxid"], (before, after)  # the broker epoch grows (KIP-380)
    assert _wait(lambda: f"registered broker {victim} again (broker epoch {after['czxid']})" in c.brokers[victim].log(),
                 10), c.brokers[victim].log()
    c.wait_ready(60)
    assert all(sorted(b["NodeId"] for b in c.metadata(i)["Brokers"]) == [0, 1, 2] for i in range(3))


ALTER_PARTITION = {  # v0 (KIP-497 AlterIsr; flexible from v0)
    "key": 56, "flex": 0,
    "req": [("BrokerId", "i32", 0, None), ("BrokerEpoch", "i64", 0, None),
            ("Topics", A([("Name", "str", 0, None),
                          ("Partitions", A([("PartitionIndex", "i32", 0, None), ("LeaderEpoch", "i32", 0, None),
                                            ("NewIsr", ["i32"], 0, None), ("PartitionEpoch", "i32", 0, None)]),
                           0, None)]), 0, None)],
    "resp": [("ThrottleTimeMs", "i32", 0, None), ("ErrorCode", "i16", 0, None),
             ("Topics", A([("Name", "str", 0, None),
                           ("Partitions", A([("PartitionIndex", "i32", 0, None), ("ErrorCode", "i16", 0, None),
                                             ("LeaderId", "i32", 0, None), ("LeaderEpoch", "i32", 0, None),
                                             ("Isr", ["i32"], 0, None), ("PartitionEpoch", "i32", 0, None)]),
                            0, None)]), 0, None)],
}
NOT_CONTROLLER = 41


def test_nothing_is_served_before_registration(cluster_factory):
    """A restarted broker binds its port but serves nobody while its
    registration still waits for the old process's session to expire (Kafka
    enables request processing only at the end of its startup): a client's
    Metadata and another broker's AlterPartition meant for its previous
    process (the controller) wait unanswered, and are answered once it has
    registered. (It used to answer before registering: a Metadata without
    itself, and it crashed on the controller it had not made yet.)"""
    c = cluster_factory(n=1, overrides=OVERRIDES, session_timeout_ms=SESSION_MS)
    b = c.brokers[0]
    c.kill9(0)
    b.spawn()
    b.wait_port()
    assert _wait(lambda: "waiting up to" in _read_log(b), 10), b.log()
    req = {"BrokerId": 7, "BrokerEpoch": 1,
           "Topics": [{"Name": "t", "Partitions": [{"PartitionIndex": 0, "LeaderEpoch": 0, "NewIsr": [7],
                                                    "PartitionEpoch": 0}]}]}
    registered = lambda: "registered broker" in _read_log(b).split("waiting up to")[-1]  # noqa: E731
    with meta_wire.Conn(b.port, 60) as alter, meta_wire.Conn(b.port, 60) as client:
        alter.send(ALTER_PARTITION, 0, req)
        client.send(meta_wire.METADATA, 7, {"Topics": None, "AllowAutoTopicCreation": False})
        for conn in (alter, client):
            conn.s.settimeout(1.0)
            with pytest.raises(socket.timeout):
                conn.s.recv(1, socket.MSG_PEEK)
            conn.s.settimeout(60)
        assert not registered(), "the broker registered before the check: the test means nothing"
        r = alter.recv(ALTER_PARTITION, 0)
        assert registered(), "AlterPartition answered before registration"
        assert r is not None and r["ErrorCode"] != 0, r
        md = client.recv(meta_wire.METADATA, 7)
        assert md is not None
    assert b.alive()
    c.wait_ready(60)
    assert b.alive()


def _read_log(b):
    with open(b.log_path(), errors="replace") as f:
        return f.read()
