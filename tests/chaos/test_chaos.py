"""Chaos runs (chaos.py) with a CI-sized schedule: a three-broker ZooKeeper
cluster and a single broker, each under every nemesis that applies to it,
judged by the checker (no anomaly allowed); and the negative control: with
durable.writes=false (no fsync before the acknowledgement), power cuts must
make the checker report lost writes, so a run that passes is not passing for
want of teeth.

CHAOS_SEED replays a schedule. The long run is test_chaos_long.py
(`make chaos DURATION=...`).
"""

from chaos import PARTITIONS, Run, execute


def judge(run, results):
    """A run passes: no anomaly, faults were injected, every topic had
    acknowledged writes, was drained and has every replica's log."""
    assert all(r.valid for r in results.values()), {t: r.describe() for t, r in results.items()}
    assert run.faults, "the schedule injected no fault"
    for topic, r in results.items():
        assert r.stats["ok"] > 100 and r.stats["drained"], (topic, r.stats)
        assert r.stats["replica_logs"] == PARTITIONS * min(3, run.n), (topic, r.stats)
    assert not run.hung, f"client threads did not stop: {run.hung}"


def test_cluster_short():
    run, results = execute(60, brokers=3)
    judge(run, results)
    # every topic saw transactions end both ways
    txns = next(p for p in run.producers if p.kind == "txn").txns
    assert txns["committed"] > 0 and txns["aborted"] > 0, txns


def test_single_broker_short():
    run, results = execute(40, brokers=1)
    judge(run, results)


# The anomalies by which the checker sees acknowledged writes taken back.
LOSS = ("lost-write", "inconsistent-offsets", "shared-ack-offset")


def test_power_cuts_without_fsync_lose_acknowledged_writes():
    run = Run(25, brokers=1, nemeses=["power-cut"], overrides={"durable.writes": "false"}, fault=(0.5, 1),
              calm=(3, 5))
    try:
        run.start()
        run.run_schedule()
        results = run.finish()
        print(run.summary(results))
        # An acknowledged write the cut took back shows as a lost write when
        # nobody had read it, and as offsets reused under values already read
        # or acknowledged otherwise: any of them proves the loss.
        lost = sum(len(r.anomalies.get(k, [])) for r in results.values() for k in LOSS)
        assert lost > 0, f"no lost acknowledged write after {len(run.faults)} power cuts without fsync " \
                         f"(seed {run.seed})"
    finally:
        run.close()
