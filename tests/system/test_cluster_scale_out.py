"""Scale out with a replication throttle (issue 15, "Scale out"): a fourth
broker joins a cluster (ZooKeeper, or the Kafka 4.4 peer) and partitions
with a backlog move onto it through `spool topic reassign --execute
--throttle`, with a partition of a second topic that an idempotent acks=all
producer and a read_committed consumer use all along.

Judged:
  - the new replicas' growth (DescribeLogDirs on the new broker, sampled
    every 0.5 s) after the quota's first window: its rate (a least-squares
    fit) is within 20% of the throttle (the brokers use replication.quota.window.num=3 so that the
    burst Kafka's padded rate window lets through stays short);
  - `--verify` reports every partition completed, then removes the
    throttles: no broker keeps a leader/follower.replication.throttled.rate,
    the topic no throttled-replica list;
  - the checker: nothing acknowledged lost, duplicated or reordered.
The rates are printed.

  cd tests/system && SPOOL_TEST_PEER=kafka /usr/bin/python3 -m pytest -q -s test_cluster_scale_out.py
"""

import json
import os
import subprocess
import time

import pytest

import admin_wire as aw
import kafka_wire as kw
from cluster_fixtures import module_cluster
from harness import spool_bin
from peer_cluster import which_cluster_peer
from workload import Workload

PEER = which_cluster_peer()
THROTTLE = 2_000_000  # bytes/s
BACKLOG_MB = 36
NEW = 3
OVERRIDES = {"min.insync.replicas": "1", "default.replication.factor": "2", "offsets.topic.replication.factor": "3",
             "auto.leader.rebalance.enable": "false", "replication.quota.window.num": "3",
             "replication.quota.window.size.seconds": "1",
             "replica.fetch.max.bytes": "262144", "replica.fetch.backoff.ms": "200"}


@pytest.fixture(scope="module")
def cluster(request):
    def without_the_new_broker(c):
        assert c.stop(NEW) in (0, True), "the fourth broker did not stop cleanly"
        c.wait_ready()
    yield from module_cluster(request, OVERRIDES, "scaleout", PEER, prepare=without_the_new_broker, n=4)


def spool(*args, timeout=120):
    r = subprocess.run([spool_bin(), *args], capture_output=True, text=True, timeout=timeout)
    return r.returncode, r.stdout, r.stderr


def size_on(c, broker_id, topic, partitions):
    port = next(b.port for b in c.brokers if b.id == broker_id)
    with kw.connect(port, timeout=10) as s:
        _, dirs = aw.parse_describe_log_dirs(kw.roundtrip(s, aw.describe_log_dirs(3, 3, {topic: partitions})), 3, 3)
    return sum(size for d in dirs.values() for (t, _), (size, _lag, _f) in d["partitions"].items() if t == topic)


def configs(c, broker_id, rtype, name):
    port = next(b.port for b in c.brokers if b.id == broker_id)
    with kw.connect(port, timeout=10) as s:
        res = aw.parse_describe_configs(kw.roundtrip(s, aw.describe_configs(5, 1, [(rtype, name, None)])), 5, 1)
    assert res[0]["error"] == 0, res
    return res[0]["configs"]


def test_move_onto_a_new_broker_under_a_throttle(cluster, tmp_path):
    c = cluster
    topic = "scale-out"
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": c.brokers[0].bootstrap, "socket.timeout.ms": 10000})
    load = "scale-out-load"  # the workload's own topic (the checker knows only its values)
    fs = admin.create_topics([NewTopic(topic, 2, replica_assignment=[[0, 1], [1, 2]]),
                              NewTopic(load, 1, replica_assignment=[[0, 2]])], operation_timeout=30)
    for f in fs.values():
        f.result(60)
    del admin
    p = Producer({"bootstrap.servers": c.brokers[0].bootstrap, "acks": "all", "linger.ms": 20,
                  "compression.type": "none"})
    payload = os.urandom(16 * 1024)
    for i in range(BACKLOG_MB * 64):
        p.produce(topic, payload, partition=i % 2)
        p.poll(0)
    assert p.flush(120) == 0
    wl = Workload(c.brokers[0].bootstrap, load, 1, rate=100).start()
    assert wl.wait_acked(100, 60) >= 100, wl.errors[-5:]
    # The fourth broker joins.
    c.start_broker(NEW)
    c.wait_ready()
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": topic, "partition": 0, "replicas": [NEW, 0]},
        {"topic": topic, "partition": 1, "replicas": [NEW, 2]},
        {"topic": load, "partition": 0, "replicas": [NEW, 2]}]}))
    bootstrap = ["--bootstrap-server", c.brokers[0].bootstrap]
    rc, out, err = spool("topic", "reassign", "--execute", "--reassignment-json-file", str(plan),
                         "--throttle", str(THROTTLE), *bootstrap)
    assert rc == 0, out + err
    assert "The inter-broker throttle limit was set to" in out, out
    start = time.monotonic()
    samples = []  # (seconds since start, bytes on the new broker)
    while True:
        samples.append((time.monotonic() - start, size_on(c, NEW, topic, [0, 1])))
        rc, out, err = spool("topic", "reassign", "--verify", "--reassignment-json-file", str(plan),
                             "--preserve-throttles", "--output", "json", *bootstrap)
        assert rc == 0, out + err
        state = json.loads(out)
        assert 0.0 <= state["progress"] <= 1.0, state
        if state["complete"]:
            assert state["progress"] == 1.0, state
            break
        assert time.monotonic() - start < 120, f"not done after 120 s: {out}"
        time.sleep(0.5)
    # The rate after the quota window's first burst (3 x 1 s windows): the
    # least-squares slope of the samples from 3 s on (the last one, a partial
    # step at completion, left out). The replicas grow in steps (whole ~1 MB
    # batches, a window's worth at once), so a slope between two samples
    # would depend on where they fall in a step; the fit over several steps
    # does not.
    steady = [s for s in samples if s[0] >= 3.0][:-1]
    assert len(steady) >= 12, f"the move took only {samples[-1][0]:.1f} s: too short to measure {samples}"
    mt = sum(t for t, _ in steady) / len(steady)
    mb = sum(b for _, b in steady) / len(steady)
    rate = sum((t - mt) * (b - mb) for t, b in steady) / sum((t - mt) ** 2 for t, _ in steady)
    total = samples[-1][1]
    print(f"  moved {total / 1e6:.1f} MB onto broker {NEW} in {samples[-1][0]:.1f} s; steady rate "
          f"{rate / 1e6:.2f} MB/s with a throttle of {THROTTLE / 1e6:.2f} MB/s")
    assert 0.8 * THROTTLE <= rate <= 1.2 * THROTTLE, f"rate {rate:.0f} B/s, throttle {THROTTLE} B/s: {samples}"
    # Done: --verify removes the throttles.
    rc, out, err = spool("topic", "reassign", "--verify", "--reassignment-json-file", str(plan), *bootstrap)
    assert rc == 0 and "Clearing broker-level throttles" in out, out + err
    assert "Overall: " in out and "100% (" in out and "partitions completed)" in out, out
    for b in c.brokers:
        if not b.alive():
            continue
        got = configs(c, b.id, 4, str(b.id))
        for key in ("leader.replication.throttled.rate", "follower.replication.throttled.rate"):
            assert got.get(key, {}).get("source") not in (1, 2, 3), f"broker {b.id} still has {key}: {got.get(key)}"
    for t in (topic, load):
        tc = configs(c, 0, 2, t)
        for key in ("leader.replication.throttled.replicas", "follower.replication.throttled.replicas"):
            assert tc.get(key, {}).get("source") != 1, f"{t} still has {key}: {tc.get(key)}"
    wl.stop(timeout=90)
    ends = wl.drain(timeout=90)
    assert wl.history.drained, f"drain did not reach {ends}"
    res = wl.check()
    assert res.valid, f"{res.describe()}; seed {wl.seed}"
    print(f"  checker: {res.stats}")
