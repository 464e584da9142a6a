#!/usr/bin/python3
"""A Jepsen-style chaos run (issue 16): Spool brokers (a ZooKeeper cluster, or
one broker) behind a NetProxy, recorded clients of every kind, a seeded
schedule of nemeses, then heal, drain and judge every topic's history with
the checker.

  python3 tests/chaos/chaos.py --duration 3600 [--brokers 3] [--seed N]
                               [--nemeses kill,pause,...] [--keep]

(`make chaos DURATION=...` runs it; `make test` runs a short schedule
through test_chaos.py). SPOOL_BIN names the broker binary.

The run:
  * topic chaos-main (RF = min(3, brokers), min.insync.replicas 2 on a
    cluster): an idempotent producer p0 and a transactional producer t0
    (about one transaction in five aborted); consumers c0 (assigned,
    read_committed), u0 (assigned, read_uncommitted) and g0, g1 (one group,
    read_committed, auto commit).
  * topic chaos-plain: a producer q0 without idempotence (acks=all, retries)
    and an assigned consumer; duplicates and reordering are what that
    producer is allowed, so that topic's verdicts exclude "duplicate" and
    "nonmonotonic-send" (ALLOWED).
  * Until the duration is spent, and at least until every nemesis that
    applies ran once: a nemesis (nemesis.py) for 2-10 s, then 2-8 s of calm. One broker runs on the fault-injecting file system with
    durable writes, so power-cut applies to it.
  * Heal: everything restarted and reconnected; the producers must get
    acknowledgements again (liveness), then stop; a fresh read_committed
    consumer drains each topic to its end; the cluster stops and every
    replica's log is compared below the high watermark.
Everything random comes from one seed, printed first (CHAOS_SEED or
--seed replays the schedule; thread timing still varies). The summary table
gives per nemesis the faults injected and acknowledgements during them,
then per topic the checker's counts and anomalies.
"""

import argparse
import os
import random
import sys
import threading
import time
from collections import Counter, defaultdict

_HERE = os.path.dirname(os.path.abspath(__file__))
for _d in ("../system", "../compat"):
    sys.path.insert(0, os.path.normpath(os.path.join(_HERE, _d)))

import checker  # noqa: E402
import power_cut  # noqa: E402
from cluster import Cluster, _wait  # noqa: E402
from clients import RecordedConsumer, RecordedProducer, end_offsets  # noqa: E402
from log_dump import record_replicas  # noqa: E402
from nemesis import NEMESES  # noqa: E402
from netproxy import NetProxy  # noqa: E402
from harness import free_port  # noqa: E402
from workload import create_topic  # noqa: E402

PARTITIONS = 3
ALLOWED = {"chaos-plain": {"duplicate", "nonmonotonic-send"}}
CLUSTER_OVERRIDES = {"min.insync.replicas": "2", "default.replication.factor": "3",
                     "offsets.topic.replication.factor": "3", "transaction.state.log.replication.factor": "3",
                     "transaction.state.log.min.isr": "2", "replica.lag.time.max.ms": "3000",
                     "unclean.leader.election.enable": "false"}
SESSION_MS = 4000
RECOVERY_S = 120


class Env:
    def __init__(self, cluster, proxy, rng, power_cut_broker):
        self.cluster, self.proxy, self.rng, self.power_cut_broker = cluster, proxy, rng, power_cut_broker


class Run:
    def __init__(self, duration, brokers=3, seed=None, nemeses=None, base=None, log=print, calm=(2, 8),
                 fault=(2, 10), overrides=None):
        env_seed = os.environ.get("CHAOS_SEED")
        self.seed = seed if seed is not None else int(env_seed) if env_seed \
            else random.SystemRandom().randrange(2**31)
        self.log = log
        self.log(f"chaos seed={self.seed} (replay: CHAOS_SEED={self.seed}) duration={duration}s brokers={brokers}")
        self.rng = random.Random(self.seed)
        self.duration, self.n, self.calm, self.fault = duration, brokers, calm, fault
        self.history = {t: checker.History() for t in ("chaos-main", "chaos-plain")}
        self.errors = []
        self.faults = []  # (nemesis, aim, seconds, acks during, recovered in s)
        proxy_ports = [free_port() for _ in range(brokers)]
        self.proxy = NetProxy()
        self.cluster = Cluster(n=brokers, zookeeper=brokers > 1, base=base, name="chaos",
                               overrides={**(CLUSTER_OVERRIDES if brokers > 1 else {}), **(overrides or {})},
                               session_timeout_ms=SESSION_MS,
                               broker_overrides={i: {"advertised.listeners": f"PLAINTEXT://127.0.0.1:{q}"}
                                                 for i, q in enumerate(proxy_ports)})
        self.power_cut_broker = self.rng.randrange(brokers)
        self.cluster.broker(self.power_cut_broker).env = power_cut.fault_fs_env(self.rng.randrange(2**31))
        for i, q in enumerate(proxy_ports):
            self.proxy.listen(f"b{i}", q, self.cluster.broker(i).port)
        self.bootstrap = ",".join(f"127.0.0.1:{q}" for q in proxy_ports)
        names = [n for n in (nemeses or NEMESES)]
        self.env = Env(self.cluster, self.proxy, self.rng, self.power_cut_broker)
        self.nemeses = [NEMESES[n](self.env) for n in names if NEMESES[n](self.env).applicable()]
        self.producers, self.consumers = [], []
        self.hung = []  # client threads that did not stop

    # -- set-up ---------------------------------------------------------------------------
    def start(self):
        self.cluster.start()
        for i in range(self.n):  # a broker that lost the race for its port got another
            self.proxy.route(f"b{i}", self.cluster.broker(i).port)
        rf = min(3, self.n)
        for t in self.history:
            create_topic(self.bootstrap, t, PARTITIONS, rf)
        run_id = f"{self.seed:x}"
        main, plain = self.history["chaos-main"], self.history["chaos-plain"]

        def prod(h, topic, name, kind, rate):
            return RecordedProducer(h, self.bootstrap, topic, PARTITIONS, name, kind,
                                    random.Random(self.rng.randrange(2**31)), rate=rate, run_id=run_id,
                                    errors=self.errors)

        def cons(h, topic, name, mode="assign", committed=True, group=None):
            # Group members log librdkafka's group state machine (stderr),
            # so that a close that hangs can be told from a broker answer
            # that never came.
            return RecordedConsumer(h, self.bootstrap, topic, PARTITIONS, name, mode, committed,
                                    group=group and f"{group}-{run_id}", errors=self.errors,
                                    conf={"debug": "cgrp"} if group else None)
        self.producers = [prod(main, "chaos-main", "p0", "idempotent", 150),
                          prod(main, "chaos-main", "t0", "txn", 100),
                          prod(plain, "chaos-plain", "q0", "plain", 100)]
        self.consumers = [cons(main, "chaos-main", "c0"), cons(main, "chaos-main", "u0", committed=False),
                          cons(main, "chaos-main", "g0", "group", group="g"),
                          cons(main, "chaos-main", "g1", "group", group="g"),
                          cons(plain, "chaos-plain", "c1")]
        for c in self.producers + self.consumers:
            c.start()
        if not self.wait_acks(100, 60):
            raise AssertionError(f"no progress before any fault: {self.errors[-5:]}")

    # -- progress -------------------------------------------------------------------------
    def acked(self):
        return sum(1 for h in self.history.values() for w in list(h.writes) if w.outcome == checker.OK)

    def wait_acks(self, n, timeout):
        """Until n more writes are acknowledged (of every producer kind
        together); True if they were."""
        want = self.acked() + n
        return _wait(lambda: self.acked() >= want, timeout, 0.2)

    def crashed(self):
        return {c.thread.name: c.crash for c in self.producers + self.consumers if c.crash}

    def recovered(self, timeout=RECOVERY_S):
        """Every broker up and listed, and acknowledgements flowing again."""
        if self.crashed():
            raise AssertionError(f"client threads crashed: {self.crashed()}")
        for b in self.cluster.brokers:  # every nemesis is healed: a dead broker died on its own
            if not b.alive():
                tail = open(b.log_path(), errors="replace").read()[-3000:]
                raise AssertionError(f"broker {b.id} died by itself (exit {b.proc.returncode}):\n{tail}")
        self.cluster.wait_ready(timeout)
        return self.wait_acks(20, timeout)

    # -- the schedule ---------------------------------------------------------------------
    def run_schedule(self):
        end = time.monotonic() + self.duration
        first = list(self.nemeses)  # every nemesis once, in a seeded order, then at random
        self.rng.shuffle(first)
        while time.monotonic() < end or first:
            nem = first.pop() if first else self.rng.choice(self.nemeses)
            hold = self.rng.uniform(*self.fault)
            calm = self.rng.uniform(*self.calm)
            before = self.acked()
            t0 = time.monotonic()
            aim = nem.start()
            self.log(f"[{t0 - end + self.duration:7.1f}s] {nem.name}: {aim} for {hold:.1f} s")
            time.sleep(hold)
            during = self.acked() - before
            nem.heal()
            t1 = time.monotonic()
            ok = self.recovered()
            self.faults.append((nem.name, aim, time.monotonic() - t0, during,
                                time.monotonic() - t1 if ok else None))
            if not ok:
                raise AssertionError(f"no acknowledgement within {RECOVERY_S} s after healing {nem.name} "
                                     f"({aim}); last errors {self.errors[-5:]}")
            time.sleep(calm)

    # -- the end --------------------------------------------------------------------------
    def finish(self):
        """Stops the clients, drains, compares the replicas; returns
        {topic: checker.Result}."""
        self.proxy.heal()
        assert not self.crashed(), f"client threads crashed: {self.crashed()}"
        # A client whose close hangs (librdkafka's group consumer after many
        # coordinator moves, seen once in an hour) is reported, not waited
        # for: the histories are judged first, judge() fails on it after.
        for c in self.producers + self.consumers:
            if not c.stop(90):
                self.hung.append(c.thread.name)
                self.log(f"{c.thread.name} did not stop within 90 s")
        results = {}
        for topic, h in self.history.items():
            ends = end_offsets(self.bootstrap, topic, PARTITIONS)
            drain = RecordedConsumer(h, self.bootstrap, topic, PARTITIONS, f"drain-{topic}", errors=self.errors)
            h.drained = drain.read_to(ends, 120)
            if not h.drained:
                raise AssertionError(f"{topic}: the drain did not reach {ends}")
        if self.n > 1:
            self.wait_full_isr()
        rcs = self.cluster.stop_all()
        bad = {k: v for k, v in rcs.items() if k != "zk" and v != 0}
        assert not bad, f"brokers did not stop cleanly: {bad}"
        dirs = {b.id: b.data_dir for b in self.cluster.brokers}
        for topic, h in self.history.items():
            record_replicas(h, dirs, topic, range(PARTITIONS))
            res = checker.check(h)
            allowed = ALLOWED.get(topic, set())
            res.anomalies = {k: v for k, v in res.anomalies.items() if k not in allowed}
            results[topic] = res
        return results

    def wait_full_isr(self):
        want = list(range(min(3, self.n)))

        def full():
            md = self.cluster.metadata(topics=list(self.history))
            return all(len(x["IsrNodes"]) == len(want) for t in md["Topics"] for x in t["Partitions"])
        assert _wait(full, RECOVERY_S, 0.5), self.cluster.metadata(topics=list(self.history))

    def summary(self, results):
        lines = [f"chaos run seed={self.seed} brokers={self.n} duration={self.duration}s "
                 f"power-cut broker={self.power_cut_broker}",
                 f"{'nemesis':<11} {'faults':>6} {'seconds':>8} {'acks during':>11} {'recovery s (max)':>16}"]
        per = defaultdict(list)
        for f in self.faults:
            per[f[0]].append(f)
        for name in sorted(per):
            fs = per[name]
            rec = [f[4] for f in fs if f[4] is not None]
            lines.append(f"{name:<11} {len(fs):>6} {sum(f[2] for f in fs):>8.0f} {sum(f[3] for f in fs):>11} "
                         f"{max(rec) if rec else 0:>16.1f}")
        lines.append(f"{'topic':<12} {'writes':>7} {'ok':>7} {'info':>6} {'fail':>5} {'aborted':>7} "
                     f"{'reads':>8} {'replica logs':>12}  anomalies")
        for topic, res in results.items():
            s = res.stats
            lines.append(f"{topic:<12} {s['writes']:>7} {s['ok']:>7} {s['info']:>6} {s['fail']:>5} "
                         f"{s['aborted']:>7} {s['reads']:>8} {s['replica_logs']:>12}  "
                         f"{dict(Counter({k: len(v) for k, v in res.anomalies.items()})) or 'none'}")
        txns = Counter()
        for p in self.producers:
            txns.update(p.txns if p.kind == "txn" else {})
        lines.append(f"transactions: {dict(txns)}; rebalances: "
                     f"{sum(c.rebalances for c in self.consumers)}; client errors: {len(self.errors)}; "
                     f"clients that did not stop: {self.hung or 'none'}")
        return "\n".join(lines)

    def save(self):
        paths = []
        for topic, h in self.history.items():
            path = os.path.join(self.cluster.base, f"history-{topic}.json")
            with open(path, "w") as f:
                f.write(h.to_json())
            paths.append(path)
        return paths

    def close(self, keep_logs=False):
        self.proxy.close()
        self.cluster.close(keep_logs=keep_logs)


def execute(duration, brokers=3, seed=None, nemeses=None, log=print, keep=False, **kw):
    """One whole run; returns (Run, results). Raises AssertionError with the
    summary and where the histories and logs are when anything is wrong."""
    run = Run(duration, brokers, seed, nemeses, log=log, **kw)
    ok = False
    try:
        run.start()
        run.run_schedule()
        results = run.finish()
        log(run.summary(results))
        bad = {t: r for t, r in results.items() if not r.valid}
        if bad:
            paths = run.save()
            raise AssertionError("\n".join(r.describe() for r in bad.values()) +
                                 f"\nhistories: {paths}; seed {run.seed}")
        ok = True
        return run, results
    finally:
        if not ok:
            try:
                run.save()
            except OSError:
                pass
        run.close(keep_logs=keep or not ok)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--duration", type=float, default=60)
    ap.add_argument("--brokers", type=int, default=3)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--nemeses", help="comma-separated, of: " + ",".join(NEMESES))
    ap.add_argument("--keep", action="store_true", help="keep the logs and histories of a passing run")
    a = ap.parse_args(argv)
    nem = a.nemeses.split(",") if a.nemeses else None
    if nem and any(n not in NEMESES for n in nem):
        ap.error(f"unknown nemesis in {a.nemeses}; known: {','.join(NEMESES)}")
    execute(a.duration, a.brokers, a.seed, nem, keep=a.keep, log=lambda s: print(s, flush=True))
    return 0


if __name__ == "__main__":
    threading.current_thread().name = "chaos"
    sys.exit(main())
