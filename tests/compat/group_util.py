"""Helpers for the consumer-group compatibility tests (test_groups_*.py) and
bench/group_recovery.py.

Contract:
  * `CkMember` / `KpMember` each own one group consumer (confluent-kafka /
    kafka-python) and one thread that polls it; every call into the client
    runs on that thread (`call()`), so a client is never used from two
    threads. Assignment changes are recorded from the rebalance callbacks, so
    a test sees exactly what the client was told.
  * `ProcMember` runs a confluent member in a child process (this file's
    __main__) so a test can SIGKILL it: the broker then only learns of its
    death through the session timeout (no LeaveGroup).
  * `wait_until` polls a predicate with a deadline (generous; never asserts
    on how long something took).
  * Failures raise AssertionError carrying the members' state, so a failed
    test says which member held what.
"""

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import Future

WAIT_S = 60          # generous deadline for any group state to settle
SESSION_MS = 6000    # the broker's default group.min.session.timeout.ms
HEARTBEAT_MS = 1000
FAST_GROUPS = {"group.initial.rebalance.delay.ms": "0"}


def wait_until(pred, timeout=WAIT_S, what="condition", state=None, interval=0.1):
    deadline = time.monotonic() + timeout
    while True:
        if pred():
            return
        if time.monotonic() > deadline:
            extra = f"\nstate: {state()}" if state else ""
            raise AssertionError(f"timed out after {timeout} s waiting for {what}{extra}")
        time.sleep(interval)


def check_partition_split(members, topic, nparts):
    """Returns None if the members' assignments of `topic` are disjoint and
    cover 0..nparts-1, else a description of what is wrong."""
    owner = {}
    dup = []
    for m in members:
        for t, p in m.assignment():
            if t != topic:
                continue
            if p in owner:
                dup.append((p, owner[p], m.name))
            owner[p] = m.name
    missing = sorted(set(range(nparts)) - set(owner))
    if dup or missing:
        return f"owned twice: {dup}; orphaned: {missing}"
    return None


def split_ok(members, topic, nparts, nonempty=True):
    if check_partition_split(members, topic, nparts) is not None:
        return False
    return not nonempty or all(m.assignment() for m in members)


def describe_split(members):
    return {m.name: sorted(m.assignment()) for m in members}


# --------------------------------------------------------------------------
# topic setup / production (confluent-kafka)

def create_topic(bootstrap, topic, partitions):
    from confluent_kafka.admin import AdminClient, NewTopic
    a = AdminClient({"bootstrap.servers": bootstrap})
    fs = a.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1)],
                         operation_timeout=30)
    fs[topic].result(timeout=60)


def produce_numbered(bootstrap, topic, nparts, n, start=0):
    """Produces values "start".."start+n-1" (key "k<i>") round-robin over the
    partitions: message i goes to partition i % nparts. Returns
    {(partition, offset): value}."""
    import ck_util
    p = ck_util.producer(bootstrap, acks="all")
    msgs = [{"key": f"k{i}".encode(), "value": str(i).encode()} for i in range(start, start + n)]
    out = {}
    for part in range(nparts):
        mine = [m for j, m in enumerate(msgs) if (start + j) % nparts == part]
        if not mine:
            continue
        reports = ck_util.produce_all(p, topic, mine, partition=part)
        for m, (err, rp, off) in zip(mine, reports):
            assert err is None, f"produce to {topic}[{part}] failed: {err}"
            out[(rp, off)] = m["value"].decode()
    return out


# --------------------------------------------------------------------------
# threaded members

class _Threaded:
    """Base: a poll thread plus a command queue executed between polls."""

    def __init__(self, name):
        self.name = name
        self._lock = threading.Lock()
        self._assignment = set()
        self.assign_count = 0
        self.revoke_count = 0
        self.events = []           # ("assign"|"revoke", sorted partitions, monotonic time)
        self.messages = []         # (topic, partition, offset, key, value)
        self.errors = []           # client errors seen by poll / error_cb
        self._cmds = queue.Queue()
        self._stop = threading.Event()
        self._thread = None
        self.crashed = None

    def assignment(self):
        with self._lock:
            return set(self._assignment)

    def _on_assign(self, tps):
        with self._lock:
            self._assignment = set(tps)
            self.assign_count += 1
            self.events.append(("assign", sorted(tps), time.monotonic()))

    def _on_revoke(self, tps):
        with self._lock:
            self._assignment -= set(tps)
            self.revoke_count += 1
            self.events.append(("revoke", sorted(tps), time.monotonic()))

    def consumed(self, topic=None):
        with self._lock:
            return [m for m in self.messages if topic is None or m[0] == topic]

    def call(self, fn, timeout=WAIT_S):
        """Runs fn(client) on the poll thread and returns its result."""
        f = Future()
        self._cmds.put((fn, f))
        return f.result(timeout=timeout)

    def _loop(self):
        try:
            while not self._stop.is_set():
                while True:
                    try:
                        fn, f = self._cmds.get_nowait()
                    except queue.Empty:
                        break
                    try:
                        f.set_result(fn(self.client))
                    except BaseException as e:  # handed to the caller
                        f.set_exception(e)
                self._poll_once()
        except BaseException as e:
            self.crashed = repr(e)
        finally:
            try:
                self._close()
            except BaseException as e:
                self.crashed = self.crashed or f"close: {e!r}"

    def start(self):
        self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout=WAIT_S):
        """Closes the client (a clean close sends LeaveGroup) on its thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            assert not self._thread.is_alive(), f"{self.name}: close did not finish"
        assert self.crashed is None, f"{self.name}: poll thread failed: {self.crashed}"


class CkMember(_Threaded):
    """confluent-kafka (librdkafka) group consumer."""

    def __init__(self, name, bootstrap, group, topics, **conf):
        super().__init__(name)
        from confluent_kafka import Consumer
        c = {"bootstrap.servers": bootstrap, "group.id": group,
             "session.timeout.ms": SESSION_MS, "heartbeat.interval.ms": HEARTBEAT_MS,
             "auto.offset.reset": "earliest", "enable.auto.commit": False,
             "client.id": name, "error_cb": self._on_error}
        c.update(conf)
        self.client = Consumer(c)
        self.client.subscribe(list(topics),
                              on_assign=lambda c, tps: self._on_assign(
                                  [(tp.topic, tp.partition) for tp in tps]),
                              on_revoke=lambda c, tps: self._on_revoke(
                                  [(tp.topic, tp.partition) for tp in tps]))

    def _on_error(self, err):
        with self._lock:
            self.errors.append((err.code(), str(err)))

    def _poll_once(self):
        m = self.client.poll(0.1)
        if m is None:
            return
        if m.error():
            self._on_error(m.error())
            return
        with self._lock:
            self.messages.append((m.topic(), m.partition(), m.offset(),
                                  m.key().decode() if m.key() else None,
                                  m.value().decode() if m.value() else None))

    def _close(self):
        self.client.close()

    def commit(self, offsets):
        """offsets: {(topic, partition): next offset}; synchronous."""
        from confluent_kafka import TopicPartition
        tps = [TopicPartition(t, p, o) for (t, p), o in offsets.items()]
        res = self.call(lambda c: c.commit(offsets=tps, asynchronous=False))
        bad = [(tp.topic, tp.partition, str(tp.error)) for tp in (res or []) if tp.error]
        assert not bad, f"{self.name}: commit failed per partition: {bad}"

    def committed(self, tps, timeout=30):
        from confluent_kafka import TopicPartition
        res = self.call(lambda c: c.committed([TopicPartition(t, p) for t, p in tps], timeout=timeout))
        return {(tp.topic, tp.partition): tp.offset for tp in res}


class KpMember(_Threaded):
    """kafka-python group consumer."""

    def __init__(self, name, bootstrap, group, topics, **conf):
        super().__init__(name)
        from kafka import KafkaConsumer
        from kafka.consumer.subscription_state import ConsumerRebalanceListener
        member = self

        class Listener(ConsumerRebalanceListener):
            def on_partitions_revoked(self, revoked):
                member._on_revoke([(tp.topic, tp.partition) for tp in revoked])

            def on_partitions_assigned(self, assigned):
                member._on_assign([(tp.topic, tp.partition) for tp in assigned])

        c = dict(bootstrap_servers=bootstrap, group_id=group, client_id=name,
                 session_timeout_ms=SESSION_MS, heartbeat_interval_ms=HEARTBEAT_MS,
                 auto_offset_reset="earliest", enable_auto_commit=False,
                 request_timeout_ms=30000 + SESSION_MS)
        c.update(conf)
        self.client = KafkaConsumer(**c)
        self.client.subscribe(topics=list(topics), listener=Listener())

    def _poll_once(self):
        try:
            batches = self.client.poll(timeout_ms=100)
        except Exception as e:  # e.g. InconsistentGroupProtocolError
            with self._lock:
                self.errors.append((type(e).__name__, str(e)))
            time.sleep(0.2)
            return
        with self._lock:
            for tp, recs in batches.items():
                for r in recs:
                    self.messages.append((tp.topic, tp.partition, r.offset,
                                          r.key.decode() if r.key else None,
                                          r.value.decode() if r.value else None))

    def _close(self):
        self.client.close(autocommit=False)

    def commit(self, offsets):
        from kafka import TopicPartition
        from kafka.structs import OffsetAndMetadata
        arg = {TopicPartition(t, p): OffsetAndMetadata(o, "") for (t, p), o in offsets.items()}
        self.call(lambda c: c.commit(arg))

    def committed(self, tps):
        from kafka import TopicPartition
        return self.call(lambda c: {(t, p): c.committed(TopicPartition(t, p)) for t, p in tps})


# --------------------------------------------------------------------------
# a confluent member in a child process (SIGKILL-able)

class ProcMember:
    """Child process running `python3 group_util.py member ...`; it prints one
    JSON line per rebalance callback, read here by a thread."""

    def __init__(self, name, bootstrap, group, topics, _args=None, _env=None, **conf):
        self.name = name
        self._lock = threading.Lock()
        self._assignment = set()
        self.events = []
        self.lines = []
        spec = json.dumps({"name": name, "bootstrap": bootstrap, "group": group,
                           "topics": list(topics), "conf": conf})
        args = (_args or [sys.executable, os.path.abspath(__file__), "member"]) + [spec]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, env=_env)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.proc.stdout:
            with self._lock:
                self.lines.append(line.rstrip())
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            with self._lock:
                tps = {(t, p) for t, p in ev.get("partitions", [])}
                if ev.get("event") == "assign":
                    self._assignment = tps
                elif ev.get("event") == "revoke":
                    self._assignment -= tps
                self.events.append((ev.get("event"), sorted(tps), time.monotonic()))

    def assignment(self):
        with self._lock:
            return set(self._assignment)

    def output(self):
        with self._lock:
            return "\n".join(self.lines[-50:])

    def kill9(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        with self._lock:
            self._assignment = set()

    def terminate(self):
        """SIGTERM: the child closes its consumer cleanly (LeaveGroup)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(WAIT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


JS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "js")

# kafkajs member for mixed groups. kafkajs only ships "RoundRobinAssigner";
# the same round-robin assigner under the name "roundrobin" (the standard
# consumer-protocol encoding is shared) lets it join a librdkafka/kafka-python
# group. Prints the same JSON lines as _member_main.
_JS_MEMBER = r"""
const { Kafka, logLevel, PartitionAssigners } = require('kafkajs');
const spec = JSON.parse(process.argv[process.argv.length - 1]);
const emit = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const named = (name) => (cfg) => { const a = PartitionAssigners.roundRobin(cfg); a.name = name; return a; };
const kafka = new Kafka({ clientId: spec.name, brokers: [spec.bootstrap], logLevel: logLevel.NOTHING,
                          retry: { retries: 10 } });
const c = spec.conf || {};
const consumer = kafka.consumer({ groupId: spec.group, sessionTimeout: c.sessionTimeout || 6000,
  heartbeatInterval: c.heartbeatInterval || 1000,
  partitionAssigners: (c.assigners || ['roundrobin']).map(named) });
consumer.on(consumer.events.GROUP_JOIN, (e) => {
  const parts = [];
  for (const [t, ps] of Object.entries(e.payload.memberAssignment)) for (const p of ps) parts.push([t, p]);
  emit({ event: 'assign', protocol: e.payload.groupProtocol, partitions: parts });
});
consumer.on(consumer.events.CRASH, (e) => emit({ event: 'error', error: String(e.payload.error) }));
(async () => {
  await consumer.connect();
  for (const t of spec.topics) await consumer.subscribe({ topic: t, fromBeginning: true });
  emit({ event: 'started' });
  await consumer.run({ eachMessage: async () => {} });
})().catch((e) => { emit({ event: 'error', error: String(e) }); process.exit(1); });
process.on('SIGTERM', () => consumer.disconnect().then(() => process.exit(0)));
"""


def node_available():
    import shutil
    return shutil.which("node") is not None and os.path.isdir(os.path.join(JS_DIR, "node_modules"))


class JsMember(ProcMember):
    """kafkajs member in a node child process (see _JS_MEMBER); conf keys:
    sessionTimeout, heartbeatInterval, assigners (protocol names)."""

    def __init__(self, name, bootstrap, group, topics, **conf):
        env = dict(os.environ, NODE_PATH=os.path.join(JS_DIR, "node_modules"))
        super().__init__(name, bootstrap, group, topics, _args=["node", "-e", _JS_MEMBER, "--"],
                         _env=env, **conf)


def _member_main(spec):
    from confluent_kafka import Consumer
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())

    def emit(event, tps):
        print(json.dumps({"event": event, "t": time.time(),
                          "partitions": [[tp.topic, tp.partition] for tp in tps]}), flush=True)

    c = {"bootstrap.servers": spec["bootstrap"], "group.id": spec["group"],
         "client.id": spec["name"], "auto.offset.reset": "earliest",
         "enable.auto.commit": False,
         "error_cb": lambda e: print(json.dumps({"event": "error", "error": str(e)}), flush=True)}
    c.update(spec.get("conf") or {})
    consumer = Consumer(c)
    consumer.subscribe(spec["topics"], on_assign=lambda _c, tps: emit("assign", tps),
                       on_revoke=lambda _c, tps: emit("revoke", tps))
    print(json.dumps({"event": "started"}), flush=True)
    while not stop.is_set():
        m = consumer.poll(0.1)
        if m is not None and m.error():
            print(json.dumps({"event": "error", "error": str(m.error())}), flush=True)
    consumer.close()
    print(json.dumps({"event": "closed"}), flush=True)


# --------------------------------------------------------------------------
# DescribeGroups through kafka-python's admin client

def describe_group(bootstrap, group):
    """Returns kafka-python's GroupInformation for `group`."""
    from kafka.admin import KafkaAdminClient
    a = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30000)
    try:
        res = a.describe_consumer_groups([group])
        assert len(res) == 1, f"DescribeGroups returned {len(res)} groups"
        return res[0]
    finally:
        a.close()


def stop_all(members):
    errs = []
    for m in members:
        try:
            if isinstance(m, ProcMember):
                m.kill9()
            else:
                m.stop()
        except BaseException as e:
            errs.append(f"{m.name}: {e}")
    return errs


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "member":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        _member_main(json.loads(sys.argv[2]))
    else:
        sys.exit("usage: group_util.py member JSON")
