"""Partition reassignment (issue 15 item 3, KIP-455) on a 3-node cluster (real
ZooKeeper, or the Kafka 4.4 peer), judged by the Jepsen-style checker.

1. test_reassignment_under_load: a 3-partition topic with two replicas per
   partition, an idempotent acks=all producer and a read_committed consumer
   running; every partition is moved to a new pair of brokers
   (AlterPartitionReassignments), ListPartitionReassignments shows them in
   progress and then none; Metadata shows the targets; nothing acknowledged
   is lost, duplicated or reordered, and every remaining replica's log is
   byte-identical below the high watermark (the removed replicas deleted
   their copies).
2. test_reassignment_continues_after_controller_kill: a partition with a
   backlog (so that the new replica takes a while to catch up) is moved, the
   controller is killed -9 right after it accepted the request, and the new
   controller completes the reassignment.
3. test_bad_reassignments_change_nothing: a broker that does not exist
   (INVALID_REPLICA_ASSIGNMENT), an unknown partition
   (UNKNOWN_TOPIC_OR_PARTITION), a duplicate replica, a cancel with nothing in
   progress (NO_REASSIGNMENT_IN_PROGRESS); Spool only: a broker that is not the
   controller answers NOT_CONTROLLER (Kafka's KRaft brokers forward to the
   controller quorum; Kafka 3.x's ZooKeeper mode answers NOT_CONTROLLER too).

Against the peer:
  cd tests/system && SPOOL_TEST_PEER=kafka /usr/bin/python3 -m pytest -q -s test_cluster_reassign.py
Env: WORKLOAD_SEED replays the workload.
"""

import os
import time

import pytest

import meta_wire
from cluster_fixtures import module_cluster, wait_until
from log_dump import record_replicas
from meta_wire import A
from peer_cluster import which_cluster_peer
from workload import Workload, create_topic

PEER = which_cluster_peer()
BASE = {"min.insync.replicas": "1", "default.replication.factor": "2", "offsets.topic.replication.factor": "3",
        "unclean.leader.election.enable": "false", "auto.leader.rebalance.enable": "false"}

ALTER = {  # AlterPartitionReassignments v0 (flexible)
    "key": 45, "flex": 0,
    "req": [("TimeoutMs", "i32", 0, None),
            ("Topics", A([("Name", "str", 0, None),
                          ("Partitions", A([("PartitionIndex", "i32", 0, None), ("Replicas", ["i32"], 0, None)]),
                           0, None)]), 0, None)],
    "resp": [("ThrottleTimeMs", "i32", 0, None), ("ErrorCode", "i16", 0, None), ("ErrorMessage", "str", 0, None),
             ("Responses", A([("Name", "str", 0, None),
                              ("Partitions", A([("PartitionIndex", "i32", 0, None), ("ErrorCode", "i16", 0, None),
                                                ("ErrorMessage", "str", 0, None)]), 0, None)]), 0, None)],
}
LIST = {  # ListPartitionReassignments v0 (flexible)
    "key": 46, "flex": 0,
    "req": [("TimeoutMs", "i32", 0, None),
            ("Topics", A([("Name", "str", 0, None), ("PartitionIndexes", ["i32"], 0, None)]), 0, None)],
    "resp": [("ThrottleTimeMs", "i32", 0, None), ("ErrorCode", "i16", 0, None), ("ErrorMessage", "str", 0, None),
             ("Topics", A([("Name", "str", 0, None),
                           ("Partitions", A([("PartitionIndex", "i32", 0, None), ("Replicas", ["i32"], 0, None),
                                             ("AddingReplicas", ["i32"], 0, None),
                                             ("RemovingReplicas", ["i32"], 0, None)]), 0, None)]), 0, None)],
}
UNKNOWN_TOPIC_OR_PARTITION, INVALID_REPLICA_ASSIGNMENT, NOT_CONTROLLER, NO_REASSIGNMENT_IN_PROGRESS = 3, 39, 41, 85


@pytest.fixture(scope="module")
def cluster(request):
    yield from module_cluster(request, BASE, "reassign", PEER)



def controller_port(c):
    """Where an admin client sends these APIs: the controller (Spool, and
    Kafka 3.x's ZooKeeper mode); any broker forwards on KRaft."""
    if PEER == "kafka":
        return next(b.port for b in c.brokers if b.alive())
    cid = c.controller()
    return next(b.port for b in c.brokers if b.id == cid)


def alter(c, moves, port=None):
    """moves: {(topic, partition): [replicas] or None}; -> (top error, {(t, p): error})."""
    topics = {}
    for (t, p), reps in moves.items():
        topics.setdefault(t, []).append({"PartitionIndex": p, "Replicas": reps})
    with meta_wire.Conn(port or controller_port(c), 60) as conn:
        r = conn.call(ALTER, 0, {"TimeoutMs": 30000,
                                 "Topics": [{"Name": t, "Partitions": ps} for t, ps in topics.items()]})
    return r["ErrorCode"], {(t["Name"], p["PartitionIndex"]): p["ErrorCode"] for t in r["Responses"]
                            for p in t["Partitions"]}


def ongoing(c):
    with meta_wire.Conn(controller_port(c), 30) as conn:
        r = conn.call(LIST, 0, {"TimeoutMs": 30000, "Topics": None})
    assert r["ErrorCode"] == 0, r
    return {(t["Name"], p["PartitionIndex"]): (p["Replicas"], p["AddingReplicas"], p["RemovingReplicas"])
            for t in r["Topics"] for p in t["Partitions"]}


def replicas(c, topic, i=None):
    return {p["PartitionIndex"]: p["ReplicaNodes"]
            for p in c.metadata(i, topics=[topic])["Topics"][0]["Partitions"]}


def created(c, topic, partitions):
    """Waits until every live broker's metadata has all the topic's partitions
    with the same replicas (create_topic waits for one broker only; the others
    learn of the topic by UpdateMetadata a moment later), -> those replicas."""
    def same_everywhere():
        seen = [replicas(c, topic, b.id) for b in c.brokers if b.alive() and not b.paused]
        return (len(seen[0]) == partitions and all(s == seen[0] for s in seen)) or seen
    wait_until(same_everywhere, f"{topic} in every broker's metadata", 30)
    return replicas(c, topic)


def done(c, topic, targets):
    """Every partition has exactly its target replicas, all in sync, and no
    reassignment is left."""
    parts = {p["PartitionIndex"]: p for p in c.metadata(topics=[topic])["Topics"][0]["Partitions"]}
    return not ongoing(c) and all(sorted(parts[p]["ReplicaNodes"]) == sorted(t) and
                                  sorted(parts[p]["IsrNodes"]) == sorted(t) for p, t in targets.items())


def test_reassignment_under_load(cluster):
    topic = "reassign-load"
    create_topic(cluster.bootstrap, topic, 3, 2)
    before = created(cluster, topic, 3)
    ids = sorted(b.id for b in cluster.brokers)
    # Each partition moves to the pair it does not fully have: the broker it
    # lacks plus one of its own, leadership included.
    targets = {}
    for p, reps in before.items():
        missing = [b for b in ids if b not in reps][0]
        targets[p] = [missing, reps[1]]
    wl = Workload(cluster.bootstrap, topic, 3, rate=300).start()
    assert wl.wait_acked(300, 60) >= 300, wl.errors[-5:]
    top, res = alter(cluster, {(topic, p): t for p, t in targets.items()})
    assert top == 0 and set(res.values()) == {0}, (top, res)
    print(f"  {topic}: {before} -> {targets}")
    wait_until(lambda: done(cluster, topic, targets), f"reassignment of {topic} to {targets}", 90)
    acked = wl.acked()
    assert wl.wait_acked(acked + 300, 60) >= acked + 300, "no progress after the reassignment"
    wl.stop(timeout=90)
    ends = wl.drain(timeout=90)
    assert wl.history.drained, f"drain did not reach {ends}"
    failed, fatal = wl.producer_errors()
    assert not failed and not fatal, f"producer errors during the reassignment: {failed[:5]} {fatal}"
    if PEER != "kafka":  # the logs on disk, in Spool's layout
        for b in cluster.brokers:
            assert cluster.stop(b.id) == 0
        record_replicas(wl.history, {b.id: b.data_dir for b in cluster.brokers}, topic, range(3), as_bytes=True)
        for b in cluster.brokers:
            cluster.start_broker(b.id)
        cluster.wait_ready()
        holders = {p: sorted(b.id for b in cluster.brokers if os.path.isdir(os.path.join(b.data_dir, f"{topic}-{p}")))
                   for p in range(3)}
        assert holders == {p: sorted(t) for p, t in targets.items()}, f"replica dirs {holders}, want {targets}"
    res = wl.check()
    assert res.valid, f"{res.describe()}; seed {wl.seed}"
    print(f"  checker: {res.stats}")


def test_reassignment_continues_after_controller_kill(cluster):
    """The partition starts on the controller's broker V and X and moves to X
    and Y: V's death does not block the move (its target does not need V)."""
    topic = "reassign-kill"
    victim = cluster.controller()
    x, y = [b.id for b in cluster.brokers if b.id != victim]
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap, "socket.timeout.ms": 10000})
    admin.create_topics([NewTopic(topic, 1, replica_assignment=[[victim, x]])], operation_timeout=30)[topic].result(60)
    del admin
    wait_until(lambda: replicas(cluster, topic) == {0: [victim, x]}, f"{topic} created", 30)
    reps = [victim, x]
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all", "linger.ms": 20,
                  "compression.type": "none"})
    payload = os.urandom(16 * 1024)
    for _ in range(2000):  # ~32 MB: the new replica needs a moment to catch up
        p.produce(topic, payload, partition=0)
        p.poll(0)
    assert p.flush(120) == 0
    target = [x, y]
    assert cluster.controller() == victim
    top, res = alter(cluster, {(topic, 0): target})
    assert top == 0 and res == {(topic, 0): 0}, (top, res)
    cluster.kill9(victim)
    print(f"  {topic}: {reps} -> {target}; controller {victim} killed -9 right after it accepted the request")
    wait_until(lambda: done(cluster, topic, {0: target}), f"reassignment of {topic} to {target} after the kill",
               120)
    cluster.start_broker(victim)
    cluster.wait_ready()


def test_bad_reassignments_change_nothing(cluster):
    topic = "reassign-bad"
    create_topic(cluster.bootstrap, topic, 1, 2)
    before = created(cluster, topic, 1)
    top, res = alter(cluster, {(topic, 0): [before[0][0], 97]})
    assert (top, res) == (0, {(topic, 0): INVALID_REPLICA_ASSIGNMENT}), res
    top, res = alter(cluster, {(topic, 0): [before[0][0], before[0][0]]})
    assert (top, res) == (0, {(topic, 0): INVALID_REPLICA_ASSIGNMENT}), res
    top, res = alter(cluster, {(topic, 5): [0, 1], ("no-such-topic", 0): [0, 1]})
    assert (top, res) == (0, {(topic, 5): UNKNOWN_TOPIC_OR_PARTITION,
                              ("no-such-topic", 0): UNKNOWN_TOPIC_OR_PARTITION}), res
    top, res = alter(cluster, {(topic, 0): None})
    assert (top, res) == (0, {(topic, 0): NO_REASSIGNMENT_IN_PROGRESS}), res
    if PEER != "kafka":
        other = next(b for b in cluster.brokers if b.id != cluster.controller())
        top, res = alter(cluster, {(topic, 0): [0, 1]}, port=other.port)
        assert top == NOT_CONTROLLER, (top, res)
    assert not ongoing(cluster)
    assert replicas(cluster, topic) == before
