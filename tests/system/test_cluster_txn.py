"""Transactions across a cluster (issue 14): markers to other brokers, and
transactions through kill -9 of the transaction coordinator's broker and of an
output partition's leader (confluent-kafka-python / librdkafka 2.0.x).

One 3-node cluster (real ZooKeeper) for the module, every topic RF=3 with
min.insync.replicas=2, __transaction_state RF=3 / min ISR 2 with
TXN_STATE_PARTITIONS partitions, unclean election off.

1. test_markers_reach_every_leader: one producer runs transactions that write
   one record to each of NPARTS partitions, led by all three brokers, and
   commits two of three, aborting the third. The coordinator must send
   WriteTxnMarkers to each partition's leader; a marker that does not arrive
   holds that partition's last stable offset back for ever, so the
   read_committed reader (taken to the end by sentinels written last, see
   txn_util.read_until_sentinels) would time out. It must see exactly the
   committed transactions, each whole and once, in order per partition.
2. test_txn_through_coordinator_and_leader_kills: the same loop runs while a
   killer SIGKILLs, in turn, the broker that is the producer's transaction
   coordinator (FindCoordinator) and the leader of an output
   partition, CLUSTER_TXN_KILLS times in all (CI: 2; `make chaos`-sized runs
   set more); each victim is restarted and the cluster's ISRs are full again
   before the next kill. Afterwards a read_committed reader must see every
   transaction whose commit the client saw succeed, whole and once; none whose
   abort succeeded; every one of unknown outcome all or nothing; and order per
   partition kept.

3. Bad input (in test 1, after its transactions): WriteTxnMarkers from a
   client with a coordinator epoch below the one the partitions hold answers
   TRANSACTION_COORDINATOR_FENCED, sent to a follower NOT_LEADER_OR_FOLLOWER,
   and neither changes any partition's end offset.
4. test_producer_ids_unique_across_restarts: one thread per broker asks it
   for CLUSTER_PID_COUNT (10,000) idempotent producer ids (InitProducerId
   without a transactional id) while each broker in turn is killed -9 and
   restarted; all ids are distinct.

Runs against the Kafka 4.4 peer too (KRaft, about 3 minutes):
  cd tests/system && SPOOL_TEST_PEER=kafka /usr/bin/python3 -m pytest -q -s test_cluster_txn.py
Env: CLUSTER_TXN_SEED (replays the killer's choices), CLUSTER_TXN_KILLS,
CLUSTER_PID_COUNT.
No timing asserts: the kill-to-next-commit times are printed, not checked.
"""

import collections
import os
import random
import sys
import threading
import time
import uuid

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "compat"))

from confluent_kafka import KafkaException  # noqa: E402

import kafka_wire as kw  # noqa: E402
from cluster import Cluster  # noqa: E402
from peer_cluster import PEER_FAST_FAILOVER, which_cluster_peer  # noqa: E402
from txn_util import (WAIT_S, kafka_error, parse, payload, produce, read_until_sentinels,  # noqa: E402
                      txn_producer, write_sentinels)

SEED = int(os.environ.get("CLUSTER_TXN_SEED") or random.SystemRandom().randrange(1 << 31))
KILLS = int(os.environ.get("CLUSTER_TXN_KILLS") or 2)
PID_COUNT = int(os.environ.get("CLUSTER_PID_COUNT") or 10000)
TRANSACTION_COORDINATOR_FENCED = 52
NOT_LEADER_OR_FOLLOWER = 6
PEER = which_cluster_peer()
NPARTS = 6
TXN_STATE_PARTITIONS = 3
TOPIC_CONFIG = {"min.insync.replicas": "2", "unclean.leader.election.enable": "false"}
print(f"\ntest_cluster_txn: CLUSTER_TXN_SEED={SEED} KILLS={KILLS} peer={PEER}", file=sys.stderr)


@pytest.fixture(scope="module")
def cluster(request):
    failed_before = request.session.testsfailed
    ov = {"min.insync.replicas": "2", "default.replication.factor": "3",
          "offsets.topic.replication.factor": "3",
          "transaction.state.log.replication.factor": "3", "transaction.state.log.min.isr": "2",
          "transaction.state.log.num.partitions": str(TXN_STATE_PARTITIONS),
          "transaction.abort.timed.out.transaction.cleanup.interval.ms": "1000",
          "unclean.leader.election.enable": "false"}
    if PEER == "kafka":
        ov.update(PEER_FAST_FAILOVER)
        c = Cluster(n=3, overrides=ov, name="txn")
    else:
        c = Cluster(n=3, overrides=ov, session_timeout_ms=3000, name="txn")
    try:
        c.start()
    except Exception:
        c.close(keep_logs=True)
        raise
    yield c
    for b in c.brokers:
        if not b.alive():
            c.start_broker(b.id)
    rcs = c.stop_all()
    bad = {k: v for k, v in rcs.items() if v not in (0, True)}
    c.close(keep_logs=bool(bad) or request.session.testsfailed > failed_before)
    assert not bad, f"unclean shutdown: {bad}"


def find_coordinator(c, key, key_type, timeout=30):
    """The broker id FindCoordinator v1 names for `key` (key_type 0: group,
    1: transaction), asked of the live brokers in turn until one answers."""
    deadline = time.monotonic() + timeout
    corr = 0
    while True:
        for b in c.brokers:
            if not b.alive():
                continue
            corr += 1
            try:
                with kw.connect(b.port, timeout=10) as s:
                    r = kw.parse_find_coordinator(kw.roundtrip(s, kw.find_coordinator(corr, key, key_type=key_type)))
            except (OSError, AssertionError):
                continue
            if r["error"] == 0:
                return r["node_id"]
        assert time.monotonic() < deadline, f"no coordinator (key type {key_type}) for {key} within {timeout} s"
        time.sleep(0.3)


def coordinator_of(c, tid):
    """The transaction coordinator's broker for `tid` (Kafka places it on the
    leader of __transaction_state-P, P = abs(hashCode(tid)) % partitions;
    asking keeps the test from assuming it)."""
    return find_coordinator(c, tid, key_type=1)


def partitions_of(c, topics):
    out = []
    for t in c.metadata(topics=topics)["Topics"]:
        out.extend((t["Name"], p) for p in t["Partitions"])
    return out


def wait_full_isr(c, topics, timeout=90):
    """Every partition of `topics` has a leader and all 3 replicas in its ISR."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            parts = partitions_of(c, topics)
        except Exception:
            parts = []
        short = [(t, p["PartitionIndex"], p["LeaderId"], p["IsrNodes"]) for t, p in parts
                 if p["LeaderId"] < 0 or len(p["IsrNodes"]) != 3]
        if parts and not short:
            return
        assert time.monotonic() < deadline, f"ISRs not full within {timeout} s: {short[:6]}"
        time.sleep(0.3)


def create_topic(c, topic):
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": c.bootstrap, "socket.timeout.ms": 10000})
    fs = admin.create_topics([NewTopic(topic, NPARTS, 3, config=TOPIC_CONFIG)], operation_timeout=30)
    fs[topic].result(60)
    del admin
    wait_full_isr(c, [topic])


def producer(c, tid):
    return txn_producer(c.bootstrap, tid, **{
        "transaction.timeout.ms": 10000, "socket.timeout.ms": 10000,
        "reconnect.backoff.ms": 20, "reconnect.backoff.max.ms": 500,
        "retry.backoff.ms": 50, "linger.ms": 1})


def judge(c, topic, outcome):
    """read_committed view against the client's outcomes; returns the problems."""
    write_sentinels(c.bootstrap, topic, NPARTS)
    seen = read_until_sentinels(c.bootstrap, topic, NPARTS, "read_committed", timeout=120)
    per_txn = collections.defaultdict(list)
    problems = []
    for part, off, v in seen:
        tag, n = parse(v)
        if not tag.startswith("t") or n != part:
            problems.append(f"foreign record {v!r} at {part}:{off}")
            continue
        per_txn[int(tag[1:])].append(part)
    for txn, what in sorted(outcome.items()):
        parts = per_txn.get(txn, [])
        if len(parts) != len(set(parts)):
            problems.append(f"txn {txn} ({what}): records duplicated {sorted(parts)}")
        if what == "committed" and len(set(parts)) != NPARTS:
            problems.append(f"txn {txn} committed but only {sorted(set(parts))} of {NPARTS} visible")
        if what == "aborted" and parts:
            problems.append(f"txn {txn} aborted but visible on {sorted(set(parts))}")
        if what == "unknown" and len(set(parts)) not in (0, NPARTS):
            problems.append(f"txn {txn} half visible: {sorted(set(parts))}")
    if set(per_txn) - set(outcome):
        problems.append(f"records of transactions never started: {sorted(set(per_txn) - set(outcome))}")
    for part in range(NPARTS):
        order = [int(parse(v)[0][1:]) for pp, _, v in seen if pp == part and parse(v)[0].startswith("t")]
        if order != sorted(order):
            problems.append(f"partition {part}: transactions out of order {order[:20]}")
    return problems, len(seen)


def end_txn(p, commit, events, t):
    """commit/abort, repeating the call on retriable errors (that resumes it);
    returns the outcome the client can vouch for."""
    for _ in range(20):
        try:
            if commit:
                p.commit_transaction(WAIT_S)
                return "committed"
            p.abort_transaction(WAIT_S)
            return "aborted"
        except KafkaException as e:
            err = kafka_error(e)
            events.append((t, f"{'commit' if commit else 'abort'}: {e}"))
            if err is not None and err.retriable():
                continue
            if err is not None and err.txn_requires_abort():
                commit = False
                continue
            raise
    return "unknown"


def run_txn(p, topic, t, commit, events):
    p.begin_transaction()
    errors = produce(p, topic, [(i, payload(f"t{t}", i)) for i in range(NPARTS)])
    if not commit:
        p.flush(WAIT_S)  # abort only once the records are on the brokers (librdkafka #4849)
    what = end_txn(p, commit, events, t)
    if what == "committed" and errors:
        events.append((t, f"delivery errors in a committed transaction: {errors[:3]}"))
    return what


def test_markers_reach_every_leader(cluster):
    topic = f"txn-span-{SEED}"
    create_topic(cluster, topic)
    leaders = {p["PartitionIndex"]: p["LeaderId"] for _, p in partitions_of(cluster, [topic])}
    print(f"  {topic} leaders {leaders}")
    assert len(set(leaders.values())) == 3, f"the partitions' leaders are not spread over 3 brokers: {leaders}"
    tid = f"span-{uuid.uuid4().hex[:8]}"
    p = producer(cluster, tid)
    p.init_transactions(WAIT_S)
    print(f"  transactional id {tid}, coordinator broker {coordinator_of(cluster, tid)}")
    outcome, events = {}, []
    for t in range(15):
        outcome[t] = run_txn(p, topic, t, t % 3 != 2, events)
    p.flush(WAIT_S)
    counts = collections.Counter(outcome.values())
    print(f"  outcomes {dict(counts)}; client events {events}")
    assert counts == {"committed": 10, "aborted": 5}, f"client outcomes {dict(counts)}, events {events}"
    problems, n = judge(cluster, topic, outcome)
    print(f"  read_committed saw {n} records")
    assert not problems, "\n".join(problems[:30]) + f"\n(seed {SEED})"
    stale_markers_change_nothing(cluster, topic, tid, leaders)


def port_of(c, broker_id):
    return next(b.port for b in c.brokers if b.id == broker_id)


def end_offsets(c, topic):
    from txn_util import watermarks
    return [watermarks(c.bootstrap, topic, i)[1] for i in range(NPARTS)]


def stale_markers_change_nothing(c, topic, tid, leaders):
    with kw.connect(port_of(c, coordinator_of(c, tid)), timeout=10) as s:
        d = kw.parse_describe_transactions(kw.roundtrip(s, kw.describe_transactions(1, [tid])))[0]
    assert d["error"] == 0 and d["state"] in ("CompleteCommit", "CompleteAbort"), f"DescribeTransactions {d}"
    pid, epoch = d["producer_id"], d["producer_epoch"]
    before = end_offsets(c, topic)
    for part, leader in sorted(leaders.items()):
        follower = next(b for b in (0, 1, 2) if b != leader)
        for broker, want in ((leader, TRANSACTION_COORDINATOR_FENCED), (follower, NOT_LEADER_OR_FOLLOWER)):
            with kw.connect(port_of(c, broker), timeout=10) as s:
                frame = kw.write_txn_markers_v1(7, [(pid, epoch, True, [(topic, [part])], -1)])
                _, errs = kw.parse_write_txn_markers_v1(kw.roundtrip(s, frame))
            assert errs == {(pid, topic, part): want}, \
                f"WriteTxnMarkers (coordinator epoch -1) for {topic}-{part} to broker {broker}: {errs}, want {want}"
    after = end_offsets(c, topic)
    assert after == before, f"a refused marker changed end offsets: {before} -> {after}"
    print(f"  stale WriteTxnMarkers refused on every leader ({TRANSACTION_COORDINATOR_FENCED}) and follower "
          f"({NOT_LEADER_OR_FOLLOWER}); end offsets unchanged {after}")


def test_producer_ids_unique_across_restarts(cluster):
    """Phases: every thread may allocate up to allowed[0]; then, per victim,
    once all threads reached the allowance the victim is killed -9, the
    allowance rises (the others allocate while it is down, its thread waits to
    reconnect) and it is restarted; finally everyone goes to PID_COUNT."""
    rng = random.Random(SEED ^ 7)
    order = [b.id for b in cluster.brokers]
    rng.shuffle(order)
    ids = {b.id: [] for b in cluster.brokers}
    allowed = [PID_COUNT // (len(order) + 1)]
    errors = []

    def allocate(broker_id):
        corr, s = 0, None
        try:
            while len(ids[broker_id]) < PID_COUNT:
                if len(ids[broker_id]) >= allowed[0]:
                    time.sleep(0.01)
                    continue
                if s is None:
                    deadline = time.monotonic() + 90
                    while s is None:
                        try:
                            s = kw.connect(port_of(cluster, broker_id), timeout=10)
                        except OSError:
                            assert time.monotonic() < deadline, f"broker {broker_id} not back within 90 s"
                            time.sleep(0.1)
                corr += 1
                try:
                    s.sendall(kw.init_producer_id(corr, version=1))
                    frame = kw.read_frame(s)
                except OSError:
                    frame = None
                if frame is None:  # killed: reconnect once it is back
                    s.close()
                    s = None
                    continue
                _, err, pid, _epoch = kw.parse_init_producer_id(frame, version=1)
                if err == 0:
                    ids[broker_id].append(pid)
                else:
                    time.sleep(0.05)  # e.g. COORDINATOR_NOT_AVAILABLE while the broker rejoins
        except BaseException as e:
            errors.append(e)
        finally:
            if s is not None:
                s.close()

    def wait_allowance(timeout=120):
        deadline = time.monotonic() + timeout
        while any(len(v) < allowed[0] for v in ids.values()) and not errors:
            assert time.monotonic() < deadline, f"allocation stalled below {allowed[0]}: {[len(v) for v in ids.values()]}"
            time.sleep(0.02)

    threads = [threading.Thread(target=allocate, args=(b.id,), daemon=True) for b in cluster.brokers]
    for th in threads:
        th.start()
    for k, victim in enumerate(order):
        wait_allowance()
        print(f"  kill -9 of broker {victim} after {len(ids[victim])} of its ids, then restart (seed {SEED})")
        cluster.kill9(victim)
        allowed[0] = PID_COUNT * (k + 2) // (len(order) + 1)
        time.sleep(rng.uniform(0.5, 2.0))
        cluster.start_broker(victim)
    allowed[0] = PID_COUNT
    for th in threads:
        th.join(300)
    assert not errors, f"allocation failed: {errors[0]!r}"
    every = [pid for got in ids.values() for pid in got]
    dup = [pid for pid, n in collections.Counter(every).items() if n > 1]
    print(f"  ids per broker {[len(v) for v in ids.values()]}, distinct {len(set(every))}, "
          f"range {min(every)}..{max(every)}")
    assert len(every) == PID_COUNT * len(ids)
    assert not dup, f"{len(dup)} producer ids handed out twice, e.g. {dup[:10]} (seed {SEED})"


def test_txn_through_coordinator_and_leader_kills(cluster):
    rng = random.Random(SEED)
    topic = f"txn-kill-{SEED}"
    create_topic(cluster, topic)
    wait_full_isr(cluster, [topic, "__transaction_state"])
    tid = f"kill-{uuid.uuid4().hex[:8]}"
    p = producer(cluster, tid)
    p.init_transactions(WAIT_S)
    outcome, events, kills = {}, [], []
    committed_at = []  # (monotonic begin, end) of each committed transaction
    stop = threading.Event()
    killer_error = []

    def killer():
        try:
            for k in range(KILLS):
                time.sleep(rng.uniform(1.0, 2.5))
                if k % 2 == 0:
                    role, victim = "transaction coordinator", coordinator_of(cluster, tid)
                else:
                    part = rng.randrange(NPARTS)
                    role, victim = f"leader of {topic}-{part}", cluster.leader_of(topic, part)
                assert victim >= 0, f"no {role} to kill"
                t_kill = time.monotonic()
                cluster.kill9(victim)
                kills.append((role, victim, t_kill))
                print(f"  kill -9 of broker {victim} ({role}), seed {SEED}")
                time.sleep(rng.uniform(3.0, 5.0))
                cluster.start_broker(victim)
                cluster.wait_ready()
                wait_full_isr(cluster, [topic, "__transaction_state"])
        except BaseException as e:  # reported by the main thread
            killer_error.append(e)
        finally:
            stop.set()

    th = threading.Thread(target=killer, daemon=True)
    th.start()
    t = 0
    while not stop.is_set():
        commit = t % 3 != 2
        outcome[t] = "unknown"
        began = time.monotonic()
        try:
            outcome[t] = run_txn(p, topic, t, commit, events)
            if outcome[t] == "committed":
                committed_at.append((began, time.monotonic()))
        except KafkaException as e:
            # Fatal (fenced after an epoch bump, timed out): start over;
            # init_transactions resolves whatever was pending.
            events.append((t, f"fatal: {e}"))
            p = producer(cluster, tid)
            p.init_transactions(WAIT_S)
        t += 1
    th.join()
    assert not killer_error, f"kill/restart failed: {killer_error[0]!r}"
    p.flush(WAIT_S)
    counts = collections.Counter(outcome.values())
    for role, victim, t_kill in kills:
        nxt = [end for began, end in committed_at if began > t_kill]
        gap = f"{nxt[0] - t_kill:.2f} s" if nxt else "none"
        print(f"  kill -9 of {victim} ({role}) until the commit of the next transaction begun after it: {gap}")
    print(f"  outcomes {dict(counts)}; client events {events[:10]}")
    assert len(kills) == KILLS
    assert counts["committed"] >= 5, f"too few committed transactions: {dict(counts)}, events {events[:10]}"
    assert any(began > kills[-1][2] for began, _ in committed_at), "no transaction begun after the last kill committed"
    problems, n = judge(cluster, topic, outcome)
    print(f"  read_committed saw {n} records")
    assert not problems, "\n".join(problems[:30]) + f"\n(seed {SEED})"


def test_exactly_once_pipeline_through_coordinator_kills(cluster):
    """consume -> transform -> produce with send_offsets_to_transaction
    (tests/compat/test_eos_pipeline.py's processor, librdkafka) over RF=3
    topics; while it runs, the transaction coordinator's broker and then the
    group coordinator's broker are killed -9 (each restarted, ISRs full again,
    before the next). A processor that gives up is replaced by one with the
    same transactional.id and group. Afterwards a read_committed reader of the
    output sees every input exactly once, in input order per partition, and
    the group's committed offsets are the input's end offsets."""
    from confluent_kafka.admin import AdminClient, NewTopic
    from test_eos_pipeline import N_INPUT, NPARTS as EOS_PARTS, Processor, _committed
    from txn_util import plain_producer

    rng = random.Random(SEED ^ 11)
    src, dst = f"eos-in-{SEED}", f"eos-out-{SEED}"
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap, "socket.timeout.ms": 10000})
    fs = admin.create_topics([NewTopic(t, EOS_PARTS, 3, config=TOPIC_CONFIG) for t in (src, dst)],
                             operation_timeout=30)
    for f in fs.values():
        f.result(60)
    del admin
    wait_full_isr(cluster, [src, dst, "__transaction_state"])
    p = plain_producer(cluster.bootstrap)
    errs = produce(p, src, [(i % EOS_PARTS, payload("in", i)) for i in range(N_INPUT)])
    assert p.flush(WAIT_S) == 0 and not errs, errs
    ends = {i: N_INPUT // EOS_PARTS for i in range(EOS_PARTS)}
    spec = {"bootstrap": cluster.bootstrap, "group": f"eos-{uuid.uuid4().hex[:8]}", "src": src, "dst": dst,
            "txn_id": f"eos-proc-{uuid.uuid4().hex[:8]}", "batch": 10, "pause_s": 0.05}
    procs = []

    def live():
        if not procs or procs[-1].proc.poll() is not None:
            procs.append(Processor(dict(spec, name=f"proc{len(procs)}")))
        return procs[-1]

    def committed_total():
        return sum(pr.count("committed") for pr in procs)

    def wait(pred, what, timeout=WAIT_S * 2):
        deadline = time.monotonic() + timeout
        while not pred():
            assert time.monotonic() < deadline, \
                f"{what} within {timeout} s; processors:\n" + "\n".join(pr.output()[-1500:] for pr in procs)
            time.sleep(0.05)

    kills = []
    try:
        for role in ("transaction coordinator", "group coordinator"):
            base = committed_total()
            wait(lambda: live() and committed_total() >= base + rng.randint(2, 4), "more committed transactions")
            victim = coordinator_of(cluster, spec["txn_id"]) if role.startswith("transaction") \
                else find_coordinator(cluster, spec["group"], key_type=0)
            cur = live()
            n_prod = cur.count("produced")
            wait(lambda: cur.proc.poll() is not None or cur.count("produced") > n_prod, "a produced batch")
            cluster.kill9(victim)
            kills.append((role, victim, committed_total()))
            print(f"  kill -9 of broker {victim} ({role}) after {kills[-1][2]} committed transactions (seed {SEED})")
            time.sleep(rng.uniform(2.0, 4.0))
            cluster.start_broker(victim)
            cluster.wait_ready()
            wait_full_isr(cluster, [src, dst, "__transaction_state"])
        wait(lambda: live() and _committed(cluster.bootstrap, spec["group"], src) == ends,
             "group offsets at the input's end", timeout=180)
        rc = procs[-1].terminate()
        assert rc == 0, f"final processor exited {rc}:\n{procs[-1].output()}"
    finally:
        for pr in procs:
            pr.kill9()
    print(f"  processors used: {len(procs)}; transactions committed: {committed_total()}")
    assert len(kills) == 2 and committed_total() > kills[-1][2], "nothing committed after the last kill"
    write_sentinels(cluster.bootstrap, dst, EOS_PARTS)
    out = read_until_sentinels(cluster.bootstrap, dst, EOS_PARTS, "read_committed", timeout=120)
    counts = collections.Counter(parse(v[len(b"out:"):])[1] for _, _, v in out)
    missing = sorted(set(range(N_INPUT)) - set(counts))
    dups = sorted(n for n, k in counts.items() if k > 1)
    assert not missing and not dups, \
        f"{len(missing)} inputs lost (e.g. {missing[:10]}), {len(dups)} duplicated (e.g. {dups[:10]}) (seed {SEED})"
    assert len(out) == N_INPUT
    for part in range(EOS_PARTS):
        seq = [parse(v[len(b"out:"):])[1] for pp, _, v in out if pp == part]
        assert seq == sorted(seq), f"output partition {part} out of input order (seed {SEED})"
        assert all(n % EOS_PARTS == part for n in seq), "output on the wrong partition"
