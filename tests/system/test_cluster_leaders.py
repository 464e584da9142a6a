"""Preferred leaders (issue 15 item 2) on a 3-node cluster (real ZooKeeper,
or the Kafka 4.4 peer): after a broker restart its partitions are led by
others; ElectLeaders (through `spool cluster elect-leaders`, i.e. sent to the
controller Metadata names) moves every one back at once, and with
auto.leader.rebalance.enable the controller does it by itself within
leader.imbalance.check.interval.seconds. Bad input: ElectLeaders for an
unknown partition answers UNKNOWN_TOPIC_OR_PARTITION, an UNCLEAN election of
a partition with a live leader ELECTION_NOT_NEEDED, an unknown election type
INVALID_REQUEST, and none of them changes a leader epoch.

Against Kafka (KRaft) every broker forwards ElectLeaders to the controller
quorum; Spool (ZooKeeper mode, as Kafka 3.x's ZooKeeper mode) answers
NOT_CONTROLLER on a broker that is not the controller: that one check is
Spool's only.
  cd tests/system && SPOOL_TEST_PEER=kafka /usr/bin/python3 -m pytest -q -s test_cluster_leaders.py
"""

import json
import subprocess
import time

import pytest

import meta_wire
from cluster_fixtures import module_cluster, wait_until
from harness import spool_bin
from meta_wire import A
from peer_cluster import which_cluster_peer

PEER = which_cluster_peer()
NPARTS = 6
CHECK_INTERVAL_S = 3
BASE = {"min.insync.replicas": "2", "default.replication.factor": "3", "offsets.topic.replication.factor": "3",
        "unclean.leader.election.enable": "false"}

ELECT_LEADERS = {  # v1: ElectionType; not flexible
    "key": 43, "flex": 2,
    "req": [("ElectionType", "i8", 1, None),
            ("TopicPartitions", A([("Topic", "str", 0, None), ("Partitions", ["i32"], 0, None)]), 0, None),
            ("TimeoutMs", "i32", 0, None)],
    "resp": [("ThrottleTimeMs", "i32", 0, None), ("ErrorCode", "i16", 1, None),
             ("ReplicaElectionResults", A([("Topic", "str", 0, None),
                                            ("PartitionResult", A([("PartitionId", "i32", 0, None),
                                                                   ("ErrorCode", "i16", 0, None),
                                                                   ("ErrorMessage", "str", 0, None)]), 0, None)]),
              0, None)],
}
UNKNOWN_TOPIC_OR_PARTITION, INVALID_REQUEST, NOT_CONTROLLER, ELECTION_NOT_NEEDED = 3, 42, 41, 84


@pytest.fixture(scope="module")
def manual(request):
    yield from module_cluster(request, dict(BASE, **{"auto.leader.rebalance.enable": "false"}), "leaders-manual", PEER)


@pytest.fixture(scope="module")
def auto(request):
    yield from module_cluster(request, dict(BASE, **{"auto.leader.rebalance.enable": "true",
                                                      "leader.imbalance.check.interval.seconds": str(CHECK_INTERVAL_S)}),
                              "leaders-auto", PEER)



def partitions(c, topic):
    return c.metadata(topics=[topic])["Topics"][0]["Partitions"]


def not_preferred(c, topic):
    """Partitions not led by their first replica."""
    return [(p["PartitionIndex"], p["LeaderId"], p["ReplicaNodes"]) for p in partitions(c, topic)
            if p["LeaderId"] != p["ReplicaNodes"][0]]


def full_isr(c, topic):
    ps = partitions(c, topic)
    return len(ps) == NPARTS and all(p["LeaderId"] >= 0 and len(p["IsrNodes"]) == 3 for p in ps)


def create(c, topic):
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": c.bootstrap, "socket.timeout.ms": 10000})
    admin.create_topics([NewTopic(topic, NPARTS, 3)], operation_timeout=30)[topic].result(60)
    del admin
    wait_until(lambda: full_isr(c, topic) and not not_preferred(c, topic), f"{topic} created and led by preferred", 60)


def bounce(c, topic, check_moved=True):
    """SIGTERM a broker that prefers some partitions (its leadership moves
    away), start it again, wait for full ISRs: without a balance check those
    partitions are then led by other brokers. Returns the broker id and the
    partitions led elsewhere, with the leader epochs before the stop."""
    before = epochs(c, topic)
    victim = partitions(c, topic)[0]["ReplicaNodes"][0]
    c.stop(victim)
    c.start_broker(victim)
    c.wait_ready()
    wait_until(lambda: full_isr(c, topic), f"{topic} back to full ISRs", 60)
    moved = not_preferred(c, topic)
    if check_moved:
        assert moved, f"broker {victim} still leads what it prefers after its restart: {partitions(c, topic)}"
    return victim, moved, before


def epochs(c, topic):
    return {p["PartitionIndex"]: p["LeaderEpoch"] for p in partitions(c, topic)}


def test_elect_leaders_moves_leadership_back_at_once(manual):
    topic = "leaders-manual"
    create(manual, topic)
    victim, moved, _ = bounce(manual, topic)
    print(f"  broker {victim} restarted; led elsewhere now: {moved}")
    time.sleep(CHECK_INTERVAL_S + 1)
    assert not_preferred(manual, topic) == moved, "leadership moved without an election (auto rebalance is off)"
    r = subprocess.run([spool_bin(), "cluster", "elect-leaders", "--preferred", "--topic", topic, "--output", "json",
                        "--bootstrap-server", manual.brokers[0].bootstrap], capture_output=True, text=True,
                       timeout=90)
    assert r.returncode == 0, r.stdout + r.stderr
    out = json.loads(r.stdout)
    results = {p["partition"]: p["result"] for p in out["partitions"]}
    assert results == {p: ("elected" if p in {m[0] for m in moved} else "already elected") for p in range(NPARTS)}, out
    wait_until(lambda: not not_preferred(manual, topic), "every partition led by its preferred replica", 30)


def test_auto_rebalance_moves_leadership_back(auto):
    topic = "leaders-auto"
    create(auto, topic)
    # The check may already have moved leadership back while the ISRs filled.
    victim, moved, before = bounce(auto, topic, check_moved=False)
    t0 = time.monotonic()
    wait_until(lambda: not not_preferred(auto, topic),
               f"leadership back on broker {victim} (check interval {CHECK_INTERVAL_S} s)", 4 * CHECK_INTERVAL_S + 30)
    # Its partitions did move away (controlled shutdown) and back: two new epochs.
    preferred = [p["PartitionIndex"] for p in partitions(auto, topic) if p["ReplicaNodes"][0] == victim]
    after = epochs(auto, topic)
    assert preferred and all(after[p] >= before[p] + 2 for p in preferred), (preferred, before, after)
    print(f"  broker {victim} restarted; its {len(preferred)} partition(s) back on it "
          f"{time.monotonic() - t0:.1f} s after full ISRs ({len(moved)} still elsewhere then; "
          f"check interval {CHECK_INTERVAL_S} s)")


def elect(port, election_type, topic_partitions):
    with meta_wire.Conn(port, 60) as conn:
        r = conn.call(ELECT_LEADERS, 1, {"ElectionType": election_type, "TopicPartitions": topic_partitions,
                                         "TimeoutMs": 30000})
    return r["ErrorCode"], {(t["Topic"], p["PartitionId"]): p["ErrorCode"]
                            for t in r["ReplicaElectionResults"] for p in t["PartitionResult"]}


def test_bad_elect_leaders_change_nothing(manual):
    topic = "leaders-manual"
    before = epochs(manual, topic)
    controller = manual.controller()
    port = next(b.port for b in manual.brokers if b.id == controller) if PEER != "kafka" else manual.brokers[0].port
    top, res = elect(port, 0, [{"Topic": topic, "Partitions": [NPARTS + 5]},
                                {"Topic": "no-such-topic", "Partitions": [0]}])
    assert (top, res) == (0, {(topic, NPARTS + 5): UNKNOWN_TOPIC_OR_PARTITION,
                              ("no-such-topic", 0): UNKNOWN_TOPIC_OR_PARTITION}), res
    top, res = elect(port, 1, [{"Topic": topic, "Partitions": [0, 1]}])
    assert (top, res) == (0, {(topic, 0): ELECTION_NOT_NEEDED, (topic, 1): ELECTION_NOT_NEEDED}), res
    top, res = elect(port, 7, [{"Topic": topic, "Partitions": [0]}])
    assert top == INVALID_REQUEST, (top, res)
    if PEER != "kafka":
        other = next(b for b in manual.brokers if b.id != controller)
        top, res = elect(other.port, 0, [{"Topic": topic, "Partitions": [0]}])
        assert (top, res) == (0, {(topic, 0): NOT_CONTROLLER}), res
    assert epochs(manual, topic) == before
