"""Transactions across a cluster: markers to other brokers, and
transactions and an exactly-once pipeline through kill -9 of the transaction
coordinator's, the group coordinator's and an output partition leader's
broker, with three client ecosystems (librdkafka via confluent-kafka-python
2.0.x, the Java client 4.4, franz-go).

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
2b. test_coordinators_need_not_host_the_data: a topic whose one replica is
   on the broker that is neither the transaction nor the group coordinator
   gets a transaction with send_offsets_to_transaction and a plain
   OffsetCommit; both coordinators know it only from metadata.
3. Bad input (in test 1, after its transactions): WriteTxnMarkers from a
   client with a coordinator epoch below the one the partitions hold answers
   TRANSACTION_COORDINATOR_FENCED, sent to a follower NOT_LEADER_OR_FOLLOWER,
   and neither changes any partition's end offset.
4. test_producer_ids_unique_across_restarts: one thread per broker asks it
   for CLUSTER_PID_COUNT (10,000) idempotent producer ids (InitProducerId
   without a transactional id) while each broker in turn is killed -9 and
   restarted; all ids are distinct.
5. test_restarted_broker_sends_txn_offset_commit_to_the_coordinator: from the
   restart of a killed broker that is not a group's coordinator until it is
   ready, TxnOffsetCommit for that group sent to it answers only coordinator
   errors (NOT_COORDINATOR...), never UNKNOWN_TOPIC_OR_PARTITION for an
   existing topic: its metadata cache is still empty then, and a client that
   still takes it for the coordinator must be sent on (franz-go gave up on
   that answer in test 6).
6. test_exactly_once_pipeline_through_coordinator_kills[librdkafka|java|franz|native]:
   consume -> transform -> produce with sendOffsetsToTransaction, by a child
   process of each ecosystem with the same spec and JSON events
   (test_eos_pipeline.Processor): tests/compat/test_eos_pipeline.py's
   librdkafka processor, tests/compat/java EosProcessor (`mvn -B -o -q
   compile`, classic group protocol) and tests/compat/go/eosproc
   (GroupTransactSession, built once per run with GOPROXY=off) and Spool's
   native client (tests/compat/native/eos_processor.cc). Kills, each
   right after the processor printed `produced` (a transaction open, the
   pause before its commit is EOS_PAUSE_S), each victim restarted and ISRs full
   again before the next: the transaction coordinator's broker
   CLUSTER_EOS_TXN_KILLS times (CI: 2), then the group coordinator's, then the
   leader of an output partition (Metadata). EOS_CHUNK input records are
   written before each kill and once after, so there is work at every kill. A
   processor that gives up (exit 3 after an `error` line) is replaced by one
   with the same transactional.id and group. Afterwards a read_committed reader
   of the output sees every input exactly once (no loss, no duplicate, so no
   aborted data), on the input's partition, in input order per partition, and
   the group's committed offsets are the input's end offsets. A missing mvn,
   java or go skips that ecosystem, or fails it under CI=true.

Runs against the Kafka 4.4 peer too (KRaft, several minutes):
  cd tests/system && SPOOL_TEST_PEER=kafka /usr/bin/python3 -m pytest -q -s test_cluster_txn.py
Env: CLUSTER_TXN_SEED (replays the killer's choices), CLUSTER_TXN_KILLS,
CLUSTER_EOS_TXN_KILLS, CLUSTER_PID_COUNT.
No timing asserts: the kill-to-next-commit times (each kill until the next
commit a processor reported, or the next transaction begun after it committed)
are printed with the seed, not checked.
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
from cluster_fixtures import go_client_binary, java_client_argv, module_cluster  # noqa: E402
from harness import missing_tool  # noqa: E402
from peer_cluster import which_cluster_peer  # noqa: E402
from txn_util import (WAIT_S, kafka_error, parse, payload, produce, read_until_sentinels,  # noqa: E402
                      txn_producer, wait_until, write_sentinels)

SEED = int(os.environ.get("CLUSTER_TXN_SEED") or random.SystemRandom().randrange(1 << 31))
KILLS = int(os.environ.get("CLUSTER_TXN_KILLS") or 2)
PID_COUNT = int(os.environ.get("CLUSTER_PID_COUNT") or 10000)
EOS_TXN_KILLS = int(os.environ.get("CLUSTER_EOS_TXN_KILLS") or 2)
EOS_CHUNK = 80  # input records written before each kill of the pipeline test, and once after
EOS_BATCH = 8
EOS_PAUSE_S = 0.15  # between a batch's produce and its commit: the kill's window
TRANSACTION_COORDINATOR_FENCED = 52
NOT_LEADER_OR_FOLLOWER = 6
NOT_COORDINATOR = 16
COORDINATOR_LOAD_IN_PROGRESS = 14
COORDINATOR_NOT_AVAILABLE = 15
PEER = which_cluster_peer()
NPARTS = 6
TXN_STATE_PARTITIONS = 3
TOPIC_CONFIG = {"min.insync.replicas": "2", "unclean.leader.election.enable": "false"}
print(f"\ntest_cluster_txn: CLUSTER_TXN_SEED={SEED} KILLS={KILLS} peer={PEER}", file=sys.stderr)


@pytest.fixture(scope="module")
def cluster(request):
    yield from module_cluster(request, {
        "min.insync.replicas": "2", "default.replication.factor": "3",
        "offsets.topic.replication.factor": "3",
        "transaction.state.log.replication.factor": "3", "transaction.state.log.min.isr": "2",
        "transaction.state.log.num.partitions": str(TXN_STATE_PARTITIONS),
        "transaction.abort.timed.out.transaction.cleanup.interval.ms": "1000",
        "unclean.leader.election.enable": "false"}, "txn", PEER)


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


def test_coordinators_need_not_host_the_data(cluster):
    """The transaction and group coordinators answer for partitions they hold
    no replica of: a topic with its one replica on a third broker gets
    AddPartitionsToTxn, TxnOffsetCommit (send_offsets_to_transaction) and
    OffsetCommit through coordinators that know it only from metadata
    (Spool's handlers used to look for a local replica and answered
    UNKNOWN_TOPIC_OR_PARTITION)."""
    from confluent_kafka import Consumer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic
    tid, gid = f"remote-{uuid.uuid4().hex[:8]}", f"remote-g-{uuid.uuid4().hex[:8]}"
    txn_coord, group_coord = coordinator_of(cluster, tid), find_coordinator(cluster, gid, key_type=0)
    host = next(b.id for b in cluster.brokers if b.id not in (txn_coord, group_coord))
    topic = f"remote-{SEED}"
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap, "socket.timeout.ms": 10000})
    fs = admin.create_topics([NewTopic(topic, 1, replica_assignment=[[host]], config={"min.insync.replicas": "1"})],
                             operation_timeout=30)
    fs[topic].result(60)
    del admin
    wait_until(lambda: [p["LeaderId"] for _, p in partitions_of(cluster, [topic])] == [host], timeout=30,
               what=f"{topic} led by broker {host}")
    print(f"  {topic} only on broker {host}; transaction coordinator {txn_coord}, group coordinator {group_coord}")
    consumer = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": gid, "enable.auto.commit": False,
                         "isolation.level": "read_committed", "auto.offset.reset": "earliest"})
    try:
        p = producer(cluster, tid)
        p.init_transactions(WAIT_S)
        p.begin_transaction()
        errors = produce(p, topic, [(0, payload("r", i)) for i in range(5)])
        assert not errors, errors
        p.send_offsets_to_transaction([TopicPartition(topic, 0, 5)], consumer.consumer_group_metadata(), WAIT_S)
        p.commit_transaction(WAIT_S)
        got = consumer.committed([TopicPartition(topic, 0)], timeout=WAIT_S)[0]
        assert (got.error, got.offset) == (None, 5), f"offset committed in the transaction: {got}"
        consumer.commit(offsets=[TopicPartition(topic, 0, 3)], asynchronous=False)
        got = consumer.committed([TopicPartition(topic, 0)], timeout=WAIT_S)[0]
        assert (got.error, got.offset) == (None, 3), f"offset committed by OffsetCommit: {got}"
    finally:
        consumer.close()
    seen = read_until_sentinels_one(cluster, topic)
    assert seen == [payload("r", i) for i in range(5)], seen


def read_until_sentinels_one(c, topic):
    """The values of the one partition of `topic`, read_committed, up to the sentinel."""
    write_sentinels(c.bootstrap, topic, 1)
    return [v for _, _, v in read_until_sentinels(c.bootstrap, topic, 1, "read_committed", timeout=60)]


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

    def done():
        """The killer is through and a transaction begun after its last kill
        committed (or 60 s passed since it was through: the assert below says
        so). Stopping right after the killer raced the last failover."""
        if not stop.is_set():
            return False
        if not done.since:
            done.since = time.monotonic()
        after = kills and any(began > kills[-1][2] for began, _ in committed_at)
        return after or time.monotonic() - done.since > 60
    done.since = 0.0

    th = threading.Thread(target=killer, daemon=True)
    th.start()
    t = 0
    while not done():
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


def test_restarted_broker_sends_txn_offset_commit_to_the_coordinator(cluster):
    """A broker restarted after kill -9 serves requests before its metadata
    cache is filled (Spool: while its registration waits for the old ZooKeeper
    session to expire). A client that still takes it for the group's
    coordinator (franz-go, after the coordinator was killed and came back)
    sends it TxnOffsetCommit: the answer must send the client to the real
    coordinator (NOT_COORDINATOR, or another coordinator error it retries),
    never UNKNOWN_TOPIC_OR_PARTITION for a topic that exists, which clients
    take as final. Asked in a loop from the restart until the broker is ready."""
    topic = f"txn-restart-{SEED}"
    create_topic(cluster, topic)
    group = f"restart-{uuid.uuid4().hex[:8]}"
    coord = find_coordinator(cluster, group, key_type=0)
    victim = next(b.id for b in cluster.brokers if b.id != coord)
    retriable = {NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE}
    answers = collections.Counter()
    done = threading.Event()

    def probe():
        corr = 0
        while not done.is_set():
            corr += 1
            try:
                with kw.connect(port_of(cluster, victim), timeout=5) as s:
                    frame = kw.txn_offset_commit(corr, f"tid-{group}", group, 1000, 0, [(topic, 1, 5, "")], version=3)
                    _, out = kw.parse_txn_offset_commit(kw.roundtrip(s, frame), 3)
                answers[out[0][1]] += 1
            except (OSError, AssertionError):
                pass
            time.sleep(0.02)

    cluster.kill9(victim)
    th = threading.Thread(target=probe, daemon=True)
    th.start()
    try:
        cluster.start_broker(victim)
        cluster.wait_ready()
        time.sleep(0.5)
    finally:
        done.set()
        th.join(30)
    wait_full_isr(cluster, [topic])
    print(f"  TxnOffsetCommit to broker {victim} from its restart (group coordinator {coord}): errors {dict(answers)}")
    assert answers, "the restarted broker answered no TxnOffsetCommit"
    assert set(answers) <= retriable, \
        f"restarted broker {victim} answered TxnOffsetCommit for group {group} (coordinator {coord}) with " \
        f"{dict(answers)}; want only coordinator errors {sorted(retriable)} (3 = UNKNOWN_TOPIC_OR_PARTITION)"


def _processor_argv(ecosystem, tmpdir):
    """The command (before the spec argument) of `ecosystem`'s processor,
    compiled once here; None is test_eos_pipeline.py's librdkafka child."""
    if ecosystem == "librdkafka":
        return None
    if ecosystem == "java":
        return java_client_argv("dev.spool.compat.EosProcessor", "-Xmx256m", "-XX:+UseSerialGC",
                                "-XX:TieredStopAtLevel=1")
    if ecosystem == "native":
        # Spool's own client (tests/compat/native/eos_processor.cc), built
        # with spool; CMake passes its path.
        path = os.environ.get("NATIVE_EOS_PROCESSOR")
        if not path or not os.access(path, os.X_OK):
            missing_tool("native_eos_processor (NATIVE_EOS_PROCESSOR)")
        return [path]
    return [go_client_binary("eosproc", tmpdir)]


@pytest.mark.parametrize("ecosystem", ["librdkafka", "java", "franz", "native"])
def test_exactly_once_pipeline_through_coordinator_kills(cluster, ecosystem, tmp_path):
    """consume -> transform -> produce with sendOffsetsToTransaction over RF=3
    topics, by the processor of `ecosystem`: librdkafka (test_eos_pipeline.py's
    child), the Java client (tests/compat/java EosProcessor) or franz-go
    (tests/compat/go/eosproc, GroupTransactSession). While it runs, kill -9 of
    the transaction coordinator's broker EOS_TXN_KILLS times, then of the group
    coordinator's broker, then of the leader of an output partition, each right
    after a `produced` event (a transaction open) and each victim restarted,
    ISRs full again, before the next. The input is written in one chunk per
    phase so that there is work left at every kill. A processor that gives up
    (exit 3) is replaced by one with the same transactional.id and group.
    Afterwards a read_committed reader of the output sees every input exactly
    once, on its partition, in input order per partition, and the group's
    committed offsets are the input's end offsets."""
    from confluent_kafka.admin import AdminClient, NewTopic
    from test_eos_pipeline import NPARTS as EOS_PARTS, Processor, _committed
    from txn_util import plain_producer

    argv = _processor_argv(ecosystem, tmp_path)
    rng = random.Random(SEED ^ 11 ^ sum(map(ord, ecosystem)))
    src, dst = f"eos-{ecosystem}-in-{SEED}", f"eos-{ecosystem}-out-{SEED}"
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap, "socket.timeout.ms": 10000})
    fs = admin.create_topics([NewTopic(t, EOS_PARTS, 3, config=TOPIC_CONFIG) for t in (src, dst)],
                             operation_timeout=30)
    for f in fs.values():
        f.result(60)
    del admin
    wait_full_isr(cluster, [src, dst, "__transaction_state"])
    roles = ["transaction coordinator"] * EOS_TXN_KILLS + ["group coordinator", "output leader"]
    written = [0]

    def write_chunk():
        # Idempotent: a retry cannot reorder a partition's input.
        p = plain_producer(cluster.bootstrap, **{"enable.idempotence": True})
        n0 = written[0]
        errs = produce(p, src, [(i % EOS_PARTS, payload("in", i)) for i in range(n0, n0 + EOS_CHUNK)])
        assert p.flush(WAIT_S) == 0 and not errs, errs
        written[0] += EOS_CHUNK

    spec = {"bootstrap": cluster.bootstrap, "group": f"eos-{uuid.uuid4().hex[:8]}", "src": src, "dst": dst,
            "txn_id": f"eos-proc-{uuid.uuid4().hex[:8]}", "batch": EOS_BATCH, "pause_s": EOS_PAUSE_S}
    procs = []

    def live():
        if not procs or procs[-1].proc.poll() is not None:
            procs.append(Processor(dict(spec, name=f"{ecosystem}-proc{len(procs)}"), argv))
        return procs[-1]

    def committed_total():
        return sum(pr.count("committed") for pr in procs)

    def wait(pred, what, timeout=WAIT_S * 2, interval=0.05):
        deadline = time.monotonic() + timeout
        while not pred():
            assert time.monotonic() < deadline, \
                f"{ecosystem}: {what} within {timeout} s (seed {SEED}); processors:\n" + \
                "\n".join(pr.output()[-3000:] for pr in procs[-3:])
            time.sleep(interval)

    print(f"\n  {ecosystem}: seed {SEED}, kills {roles}")
    kills = []  # (role, victim, monotonic time of the kill, a transaction open)
    try:
        for role in roles:
            write_chunk()
            target = committed_total() + rng.randint(2, 4)
            wait(lambda: live() and committed_total() >= target, "more committed transactions")
            if role == "transaction coordinator":
                victim = coordinator_of(cluster, spec["txn_id"])
            elif role == "group coordinator":
                victim = find_coordinator(cluster, spec["group"], key_type=0)
            else:
                part = rng.randrange(EOS_PARTS)
                role, victim = f"leader of {dst}-{part}", cluster.leader_of(dst, part)
            assert victim >= 0, f"no {role} to kill"
            cur = live()
            n_prod = cur.count("produced")
            wait(lambda: cur.proc.poll() is not None or cur.count("produced") > n_prod, "a produced batch",
                 interval=0.002)
            mid_txn = cur.proc.poll() is None and cur.last_event() == "produced"
            cluster.kill9(victim)
            kills.append((role, victim, time.monotonic(), mid_txn))
            print(f"  {ecosystem}: kill -9 of broker {victim} ({role}) after {committed_total()} committed "
                  f"transactions, {'inside' if mid_txn else 'outside'} a transaction")
            time.sleep(rng.uniform(1.0, 2.5))
            cluster.start_broker(victim)
            cluster.wait_ready()
            wait_full_isr(cluster, [src, dst, "__transaction_state"])
        write_chunk()
        ends = {i: written[0] // EOS_PARTS for i in range(EOS_PARTS)}
        wait(lambda: live() and _committed(cluster.bootstrap, spec["group"], src) == ends,
             "group offsets at the input's end", timeout=180)
        rc = procs[-1].terminate()
        assert rc == 0, f"{ecosystem}: final processor exited {rc}:\n{procs[-1].output()}"
    finally:
        for pr in procs:
            pr.kill9()
    for role, victim, t_kill, mid_txn in kills:
        nxt = [t for t in (pr.first_after("committed", t_kill) for pr in procs) if t is not None]
        gap = f"{min(nxt) - t_kill:.2f} s" if nxt else "none"
        print(f"  {ecosystem}: kill -9 of {victim} ({role}{', transaction open' if mid_txn else ''}) "
              f"until the next commit: {gap}")
    errors = [e.get("error") for pr in procs for e in list(pr.events) if e.get("event") == "error"]
    print(f"  {ecosystem}: processors used: {len(procs)}; transactions committed: {committed_total()}, "
          f"aborted by the client: {sum(pr.count('aborted') for pr in procs)}; errors: {errors[:6]}")
    assert len(kills) == len(roles)
    assert any(pr.first_after("committed", kills[-1][2]) for pr in procs), "nothing committed after the last kill"
    write_sentinels(cluster.bootstrap, dst, EOS_PARTS)
    out = read_until_sentinels(cluster.bootstrap, dst, EOS_PARTS, "read_committed", timeout=120)
    counts = collections.Counter(parse(v[len(b"out:"):])[1] for _, _, v in out)
    missing = sorted(set(range(written[0])) - set(counts))
    dups = sorted(n for n, k in counts.items() if k > 1)
    assert not missing and not dups, \
        f"{ecosystem}: {len(missing)} inputs lost (e.g. {missing[:10]}), {len(dups)} duplicated " \
        f"(e.g. {dups[:10]}) (seed {SEED})"
    assert len(out) == written[0]
    for part in range(EOS_PARTS):
        seq = [parse(v[len(b"out:"):])[1] for pp, _, v in out if pp == part]
        assert seq == sorted(seq), f"{ecosystem}: output partition {part} out of input order (seed {SEED})"
        assert all(n % EOS_PARTS == part for n in seq), f"{ecosystem}: output on the wrong partition"
