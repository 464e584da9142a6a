"""Real clients through a leader failover (issue 13, "Real clients through a
leader failover"): librdkafka (confluent-kafka), kafka-python, kafkajs
(failover_js.js) and the Java client 4.4 (tests/compat/java FailoverClient)
each produce N unique values with acks=all (idempotent: librdkafka, kafkajs,
Java) to partition 0 of their own topic (RF=3, min.insync.replicas=2) on a
3-node cluster; once KILL_AT values are acknowledged the partition leader
(from Metadata) is killed -9 and producing goes on; then the same client
consumes partition 0 from the beginning (read_committed where supported: not
kafka-python 2.0.2) up to its high watermark. checker.py judges the history:
every acknowledged value present (lost-write), exactly once (duplicate;
kafka-python is at-least-once: duplicates reported, not failed), order kept
(nonmonotonic-send/poll), no definitely failed value visible (G1a), no
offset with two values. Each test prints its seed, the killed leader, the
counts and the failover time (leader kill -9 until the first acks=all ack).
One cluster serves the whole module; the killed node is restarted before the
next client's topic is created.

Registered in ctest as `system_failover_clients` (make test,
against Spool). Against the Kafka 4.4 peer (about 2 minutes):
  cd tests/system && SPOOL_TEST_PEER=kafka /usr/bin/python3 -m pytest -q -s test_failover_clients.py
Against Spool (cluster mode, ZooKeeper):
  cd tests/system && SPOOL_BIN=/path/to/spool /usr/bin/python3 -m pytest -q -s test_failover_clients.py
Env: FAILOVER_SEED (replay a run), FAILOVER_N (values per client, default 300),
FAILOVER_PEER_DEFAULTS=1 (peer: Kafka's default session/election timeouts
instead of peer_cluster.PEER_FAST_FAILOVER, to measure its default failover).
Needs node with tests/compat/js/node_modules (npm ci) and mvn with ~/.m2
filled (scripts/deps); under CI=true a missing one fails, else it skips.
"""

import json
import os
import random
import shutil
import subprocess
import sys
import threading
import time

import pytest

from checker import FAIL, INFO, OK, History, check
from cluster import ClusterError
from cluster_fixtures import java_client_argv, missing_tool, module_cluster
from peer_cluster import which_cluster_peer

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
JS_DRIVER = os.path.join(HERE, "failover_js.js")
JS_MODULES = os.path.join(REPO, "tests", "compat", "js", "node_modules", "kafkajs")
JAVA_DIR = os.path.join(REPO, "tests", "compat", "java")

SEED = int(os.environ.get("FAILOVER_SEED") or random.SystemRandom().randrange(1 << 31))
N = int(os.environ.get("FAILOVER_N") or 300)
CLIENT_DEADLINE_S = 60  # produce + consume of one client
PEER = which_cluster_peer()
print(f"\ntest_failover_clients: FAILOVER_SEED={SEED} N={N} peer={PEER}", file=sys.stderr)

TOPIC_CONFIG = {"min.insync.replicas": "2", "unclean.leader.election.enable": "false"}


@pytest.fixture(scope="module")
def cluster(request):
    yield from module_cluster(request, {
        "min.insync.replicas": "2", "default.replication.factor": "3",
        "offsets.topic.replication.factor": "3", "unclean.leader.election.enable": "false"}, "failover", PEER,
        fast_failover=os.environ.get("FAILOVER_PEER_DEFAULTS") != "1", prepare=_create_offsets_topic)


def _create_offsets_topic(c, timeout=60):
    """__consumer_offsets exists before any fault, as in any running cluster:
    created later, with a broker down, its replication factor 3 could not be
    met (Kafka refuses that too), and kafkajs can consume only in a group."""
    from confluent_kafka import Consumer, KafkaException, TopicPartition
    consumer = Consumer({"bootstrap.servers": c.bootstrap, "group.id": f"warmup-{SEED}"})
    deadline = time.monotonic() + timeout
    try:
        while True:
            try:
                consumer.committed([TopicPartition("warmup", 0)], timeout=5)
                return
            except KafkaException:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
    finally:
        consumer.close()


def _admin(c):
    from confluent_kafka.admin import AdminClient
    return AdminClient({"bootstrap.servers": c.bootstrap, "socket.timeout.ms": 10000})


def prepare(c, name, rng):
    """All 3 nodes up; a fresh topic RF=3 with 1 partition whose ISR holds all
    three replicas. Returns (topic, kill_at)."""
    from confluent_kafka.admin import NewTopic
    for b in c.brokers:
        if not b.alive():
            t0 = time.monotonic()
            c.start_broker(b.id)
            print(f"  restarted node {b.id} in {time.monotonic() - t0:.1f} s")
    c.wait_ready()
    topic = f"failover-{name}-{SEED}"
    admin = _admin(c)  # kept alive until the result is in (its destruction cancels the request)
    fut = admin.create_topics([NewTopic(topic, 1, 3, config=TOPIC_CONFIG)], operation_timeout=30)
    fut[topic].result(60)
    del admin
    deadline = time.monotonic() + 60
    while True:
        parts = [p for t in c.metadata(topics=[topic])["Topics"] for p in t["Partitions"]]
        if parts and parts[0]["LeaderId"] >= 0 and len(parts[0]["IsrNodes"]) == 3:
            break
        assert time.monotonic() < deadline, f"{topic}: no leader with a full ISR within 60 s: {parts}"
        time.sleep(0.2)
    kill_at = rng.randrange(N // 3, N // 2)
    print(f"  topic {topic}, leader {parts[0]['LeaderId']}, kill -9 after {kill_at} acks")
    return topic, kill_at


class Killer:
    """kill -9 of the partition leader (fresh Metadata), once."""

    def __init__(self, c, topic):
        self.c, self.topic = c, topic
        self.t_kill = None
        self.victim = None

    def __call__(self):
        if self.t_kill is not None:
            return
        self.victim = self.c.leader_of(self.topic, 0)
        assert self.victim >= 0, f"{self.topic} has no leader before the kill"
        self.t_kill = time.time()
        self.c.kill9(self.victim)
        print(f"  killed leader {self.victim} (controller was {self.c.controller()})")


def verdict(name, h, killer, allowed=()):
    acks = [w for w in h.writes if w.outcome == OK]
    fails = [w for w in h.writes if w.outcome == FAIL]
    infos = [w for w in h.writes if w.outcome == INFO]
    after = sorted(w.end for w in acks if killer.t_kill is not None and w.end > killer.t_kill)
    # Failover time: kill -9 until the first ack of a value sent after the kill (an ack
    # that the dead leader had sent before it died may still be read after the kill).
    fresh = sorted(w.end for w in acks if killer.t_kill is not None and w.start > killer.t_kill)
    failover = fresh[0] - killer.t_kill if fresh else None
    res = check(h)
    reads = [r for r in h.reads if not r.reset]
    print(f"  {name}: sent {len(h.writes)}, acked {len(acks)} ({len(after)} after the kill), "
          f"failed {len(fails)}, unknown {len(infos)}, read {len(reads)}; failover (kill -9 of "
          f"{killer.victim} until the first ack of a value sent after it) "
          + (f"{failover:.2f} s" if failover is not None else "n/a"))
    for w in (fails + infos)[:5]:
        print(f"    {w.outcome} {w.value}: {w.error}")
    for kind in allowed:
        if kind in res.anomalies:
            print(f"  {name}: {len(res.anomalies[kind])} {kind} (allowed for this client): "
                  f"{res.anomalies[kind][:5]}")
    bad = {k: v for k, v in res.anomalies.items() if k not in allowed}
    assert not bad, f"{name}: checker anomalies (seed {SEED}):\n{res.describe()}"
    assert killer.t_kill is not None, f"{name}: the leader was never killed (fewer than kill_at acks)"
    assert fresh, f"{name}: no value sent after the leader was killed got an acks=all ack"
    assert len(acks) >= 0.9 * N, f"{name}: only {len(acks)} of {N} values acknowledged"
    assert h.drained, f"{name}: the consumer did not reach the high watermark"
    return failover


# -- librdkafka ---------------------------------------------------------------------

def test_librdkafka_idempotent_through_leader_kill(cluster):
    from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
    rng = random.Random(SEED ^ 1)
    topic, kill_at = prepare(cluster, "rdkafka", rng)
    part, h, kill = (topic, 0), History(), Killer(cluster, topic)
    definite = {KafkaError.MSG_SIZE_TOO_LARGE, KafkaError.INVALID_MSG, KafkaError.TOPIC_AUTHORIZATION_FAILED,
                KafkaError.TOPIC_EXCEPTION, KafkaError._INVALID_ARG}
    acked = [0]

    def on_delivery(w):
        def cb(err, msg):
            if err is None:
                h.complete(w, OK, time.time(), offset=msg.offset())
                acked[0] += 1
            else:
                h.complete(w, FAIL if err.code() in definite else INFO, time.time(), error=str(err))
        return cb

    p = Producer({"bootstrap.servers": cluster.bootstrap, "enable.idempotence": True, "acks": "all",
                  "linger.ms": 0, "message.timeout.ms": 45000, "request.timeout.ms": 5000,
                  "retry.backoff.ms": 100, "socket.timeout.ms": 5000, "client.id": "failover-rdkafka"})
    deadline = time.monotonic() + CLIENT_DEADLINE_S
    for i in range(N):
        w = h.invoke("librdkafka", f"rdkafka-{SEED}-{i}", part, time.time())
        p.produce(topic, w.value.encode(), partition=0, on_delivery=on_delivery(w))
        p.poll(0)
        if acked[0] >= kill_at:
            kill()
        time.sleep(0.005)
        assert time.monotonic() < deadline, "librdkafka: producing past the deadline"
    left = p.flush(max(1.0, deadline - time.monotonic()))
    assert left == 0, f"librdkafka: {left} messages still undelivered at the deadline"

    cons = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": f"failover-rdkafka-{SEED}",
                     "isolation.level": "read_committed", "enable.auto.commit": False,
                     "auto.offset.reset": "earliest"})
    try:
        lo, hi = cons.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
        cons.assign([TopicPartition(topic, 0, lo)])
        nxt = lo
        while nxt < hi and time.monotonic() < deadline + 30:
            m = cons.poll(0.5)
            if m is None:
                continue
            assert m.error() is None or m.error().code() == KafkaError._PARTITION_EOF, m.error()
            if m.error() is None:
                h.read("librdkafka-reader", part, m.offset(), m.value().decode())
                nxt = m.offset() + 1
        h.drained = nxt >= hi
    finally:
        cons.close()
    verdict("librdkafka", h, kill)


# -- kafka-python ---------------------------------------------------------------------

def test_kafka_python_through_leader_kill(cluster):
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    from kafka.errors import KafkaTimeoutError, MessageSizeTooLargeError, RecordListTooLargeError
    rng = random.Random(SEED ^ 2)
    topic, kill_at = prepare(cluster, "kpython", rng)
    part, h, kill = (topic, 0), History(), Killer(cluster, topic)
    lock = threading.Lock()
    acked = [0]
    p = KafkaProducer(bootstrap_servers=cluster.bootstrap.split(","), acks="all", retries=50,
                      max_in_flight_requests_per_connection=1, linger_ms=0, request_timeout_ms=5000,
                      retry_backoff_ms=200, metadata_max_age_ms=5000, max_block_ms=30000,
                      client_id="failover-kpython")

    def ok(w):
        def cb(md):
            h.complete(w, OK, time.time(), offset=md.offset)
            with lock:
                acked[0] += 1
        return cb

    def bad(w):
        def cb(e):
            definite = isinstance(e, (MessageSizeTooLargeError, RecordListTooLargeError))
            h.complete(w, FAIL if definite and not isinstance(e, KafkaTimeoutError) else INFO, time.time(),
                       error=repr(e))
        return cb

    deadline = time.monotonic() + CLIENT_DEADLINE_S
    try:
        for i in range(N):
            w = h.invoke("kafka-python", f"kpython-{SEED}-{i}", part, time.time())
            p.send(topic, w.value.encode(), partition=0).add_callback(ok(w)).add_errback(bad(w))
            with lock:
                n_acked = acked[0]
            if n_acked >= kill_at:
                kill()
            time.sleep(0.005)
            assert time.monotonic() < deadline, "kafka-python: producing past the deadline"
        p.flush(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        p.close(timeout=10)
    pending = [w for w in h.writes if w.end is None]
    assert not pending, f"kafka-python: {len(pending)} sends without an outcome after flush"

    tp = TopicPartition(topic, 0)
    cons = KafkaConsumer(bootstrap_servers=cluster.bootstrap.split(","), group_id=None,
                         enable_auto_commit=False, consumer_timeout_ms=1000, request_timeout_ms=11000)
    try:
        cons.assign([tp])
        hi = cons.end_offsets([tp])[tp]
        cons.seek_to_beginning(tp)
        nxt = 0
        while nxt < hi and time.monotonic() < deadline + 30:
            for recs in cons.poll(timeout_ms=500).values():
                for r in recs:
                    h.read("kafka-python-reader", part, r.offset, r.value.decode())
                    nxt = r.offset + 1
        h.drained = nxt >= hi
    finally:
        cons.close()
    verdict("kafka-python", h, kill, allowed=("duplicate",))


# -- external drivers: kafkajs and the Java client ---------------------------------------

def run_driver(c, name, argv, topic, kill_at, cwd):
    """Runs a JSON-event driver (failover_js.js / FailoverClient), kills the
    leader on its "half" event, records its events into a History."""
    part, h, kill = (topic, 0), History(), Killer(c, topic)
    pending = {}
    proc = subprocess.Popen(argv + [c.bootstrap, topic, str(N), str(kill_at), f"{name}-{SEED}",
                                    str(CLIENT_DEADLINE_S)],
                            cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    timer = threading.Timer(CLIENT_DEADLINE_S + 60, proc.kill)
    timer.start()
    err = []
    errt = threading.Thread(target=lambda: err.append(proc.stderr.read()))
    errt.start()
    done = False
    try:
        for line in proc.stdout:
            ev = json.loads(line)
            kind = ev["ev"]
            if kind == "send":
                pending[ev["v"]] = h.invoke(name, ev["v"], part, ev["t"])
            elif kind == "ack":
                h.complete(pending.pop(ev["v"]), OK, ev["t"], offset=ev["offset"])
            elif kind == "fail":
                h.complete(pending.pop(ev["v"]), FAIL if ev["definite"] else INFO, ev["t"], error=ev["err"])
            elif kind == "half":
                kill()
            elif kind == "read":
                h.read(f"{name}-reader", part, ev["offset"], ev["v"])
            elif kind == "done":
                done = True
        rc = proc.wait(30)
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        errt.join(10)
    assert rc == 0 and done, f"{name} driver exited {rc} (done={done}):\n{''.join(err)[-4000:]}"
    assert not pending, f"{name}: {len(pending)} sends without an outcome"
    h.drained = True
    return h, kill


def test_kafkajs_idempotent_through_leader_kill(cluster):
    node = shutil.which("node")
    if node is None or not os.path.isdir(JS_MODULES):
        missing_tool("node or tests/compat/js/node_modules/kafkajs (npm ci)")
    rng = random.Random(SEED ^ 3)
    topic, kill_at = prepare(cluster, "kafkajs", rng)
    h, kill = run_driver(cluster, "kafkajs", [node, JS_DRIVER], topic, kill_at, HERE)
    verdict("kafkajs", h, kill)


def test_java_idempotent_through_leader_kill(cluster):
    argv = java_client_argv("dev.spool.compat.FailoverClient", "-Xmx256m")
    rng = random.Random(SEED ^ 4)
    topic, kill_at = prepare(cluster, "java", rng)
    h, kill = run_driver(cluster, "java", argv, topic, kill_at, JAVA_DIR)
    verdict("java", h, kill)


# Defined in peer mode only (no skip); Spool's expire_session is tested in
# tests/system/test_cluster_fixture.py.
if PEER == "kafka":
    def test_peer_has_no_zookeeper_session_to_expire(cluster):
        """Peer mode documents expire_session as not applicable (KRaft)."""
        with pytest.raises(ClusterError, match="not applicable on KRaft"):
            cluster.expire_session(0)
