"""The workload driver (workload.py) and the checker on a real single
`spool broker` (RF=1, no ZooKeeper): a clean run passes the checker, and so
does a run with a kill -9 and restart of the broker in the middle (acks=all on
Spool means fsynced, so nothing acknowledged may be lost or duplicated). After
the drain the broker is stopped and its on-disk log (log_dump.py) joins the
history as a replica: it must hold exactly what the drain read.
The cluster-mode scenarios (RF=3, min.insync.replicas=2) use the same driver
once brokers can form a cluster.
"""

import os

import log_dump
from workload import Workload, create_topic

PARTITIONS = 3


def _run(c, topic, fault=None, seed=None):
    create_topic(c.bootstrap, topic, PARTITIONS, 1)
    wl = Workload(c.bootstrap, topic, PARTITIONS, seed=seed, rate=300).start()
    try:
        assert wl.wait_acked(200, timeout=30) >= 200, wl.errors[-5:]
        if fault:
            fault(wl)
        before = wl.acked()
        assert wl.wait_acked(before + 200, timeout=60) >= before + 200, wl.errors[-5:]
    finally:
        wl.stop(timeout=60)
    ends = wl.drain(timeout=60)
    # the broker's own log, read from disk after a clean stop, joins the history as a replica
    c.stop(0)
    log_dump.record_replicas(wl.history, {0: c.brokers[0].data_dir}, topic, range(PARTITIONS))
    res = wl.check()
    if not res.valid:
        path = wl.save(os.path.join(c.base, "history.json"))
        raise AssertionError(f"{res.describe()}\nhistory: {path} (seed {wl.seed})")
    assert wl.history.drained, f"drain did not reach the end offsets {ends}"
    # exact totals: every acked write was read by the drain, once
    drained = [r for r in wl.history.reads if r.consumer == "drain" and not r.reset]
    acked = {w.value for w in wl.history.writes if w.outcome == "ok"}
    assert acked <= {r.value for r in drained}
    assert sum(ends.values()) == len(drained)
    on_disk = sorted((rl.partition, o, v) for rl in wl.history.replicas for o, v in rl.records)
    assert on_disk == sorted((r.partition, r.offset, r.value) for r in drained)
    assert [rl.hw for rl in wl.history.replicas] == [ends[p] for p in range(PARTITIONS)]
    return wl, res


def test_clean_run_passes(cluster_factory, topic):
    c = cluster_factory(n=1, zookeeper=False)
    wl, res = _run(c, topic)
    assert res.stats["ok"] >= 400 and res.stats["fail"] == 0 and res.stats["info"] == 0, res.stats


def test_kill9_and_restart_in_the_middle_passes(cluster_factory, topic):
    c = cluster_factory(n=1, zookeeper=False)

    def fault(wl):
        c.kill9(0)
        c.restart(0)

    wl, res = _run(c, topic, fault)
    assert c.brokers[0].starts == 2
    assert res.stats["ok"] >= 400, res.stats
