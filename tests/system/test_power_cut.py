"""Power cuts of a live broker (issue 16). The broker runs with its log dir
on a fault-injecting file system (SPOOL_TEST_FAULT_FS=1, broker/test_power_cut.h);
SIGUSR2 cuts the power: whatever was not fsynced is dropped or torn at a page
boundary, names whose directory was not synced are undone, and the process
dies. The harness swaps in the disk's state and restarts the broker. While it
runs, three clients write:

  * an idempotent acks=all producer (numbered messages, one partition);
  * a consumer group committing increasing offsets (synchronous commits);
  * a transactional producer (one transactional.id for the whole run) that
    commits or aborts transactions of three messages.

After each cut and restart the checker reads everything back:

  * durable.writes=true (the default): every acknowledged message is there,
    none twice, in the order sent; the group's committed offset is at least
    the last acknowledged commit; every committed transaction is visible
    whole to read_committed, no aborted one is, none in part; the topics
    still exist with their partitions (the metadata store).
  * durable.writes=false (Kafka's page-cache behaviour, documented as
    surviving kill -9 but not power loss): acknowledged writes may be lost,
    but only a tail: the log is still a prefix of what was acknowledged, in
    order, with no duplicate and nothing corrupt.

SPOOL_POWER_CUT_SEED replays a run (it is printed); SPOOL_POWER_CUTS sets
the number of cuts (CI: 3 per mode).
"""

import os
import random
import threading
import time

import pytest
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

import ck_util
import power_cut
from harness import Broker

CUTS = int(os.environ.get("SPOOL_POWER_CUTS", "3"))
DATA, TXN, GROUP, TXN_ID = "pc-data", "pc-txn", "pc-group", "pc-txn-producer"


def base_seed():
    env = os.environ.get("SPOOL_POWER_CUT_SEED")
    return int(env) if env else random.randrange(1 << 31)


class CutBroker(Broker):
    """A spool broker on a fault-injecting file system."""

    def start_on_fault_fs(self, seed):
        env = power_cut.fault_fs_env(seed)
        old = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            return self.start()
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def power_cut(self):
        try:
            return power_cut.cut(self.proc, self.log_dir, self.log)
        finally:
            self._close_log()


class Clients:
    """The three writers of one round, with what each had acknowledged."""

    def __init__(self, bootstrap, rnd, round_no):
        self.bootstrap, self.rnd, self.round = bootstrap, rnd, round_no
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.acked = []            # (time, data value) acknowledged, in ack order
        self.sent = []             # data values produced, in send order
        self.commits_acked = []    # group offsets whose commit returned
        self.commits_tried = []
        self.txns = {}             # txn name -> "committed" | "aborted" | "unknown"
        self.crashed = []          # exceptions that ended a client thread
        self.threads = [threading.Thread(target=self._guard, args=(f,), daemon=True)
                        for f in (self._produce, self._commit, self._transact)]

    def _guard(self, f):
        try:
            f()
        except BaseException as e:  # noqa: BLE001 - reported by join()
            self.crashed.append(f"{f.__name__}: {e!r}")

    def start(self):
        for t in self.threads:
            t.start()
        return self

    def join(self):
        self.stop.set()
        for t in self.threads:
            t.join(120)
            assert not t.is_alive(), "a client thread hung"
        assert not self.crashed, self.crashed

    def _conf(self, **kw):
        c = {"bootstrap.servers": self.bootstrap, "socket.timeout.ms": 5000, "reconnect.backoff.ms": 50,
             "reconnect.backoff.max.ms": 500, "message.timeout.ms": 30000}
        c.update(kw)
        return c

    def _produce(self):
        i = 0

        def cb(err, msg):
            if err is None:
                with self.lock:
                    self.acked.append((time.monotonic(), msg.value().decode()))
        while not self.stop.is_set():
            # A producer that fails fatally (its sequence state lost with
            # the broker's unsynced data) is replaced; its unacknowledged
            # messages are unknown.
            p = Producer(self._conf(**{"enable.idempotence": True, "acks": "all", "linger.ms": 2}))
            try:
                while not self.stop.is_set():
                    v = f"r{self.round}:{i:06d}"
                    try:
                        p.produce(DATA, value=v.encode(), partition=0, on_delivery=cb)
                        self.sent.append(v)
                        i += 1
                    except BufferError:
                        pass
                    p.poll(0.005)
            except KafkaException:
                pass
            try:
                p.flush(30)
            except KafkaException:
                pass  # fatal: what it still held is unknown

    def _commit(self):
        c = Consumer(self._conf(**{"group.id": GROUP, "enable.auto.commit": False}))
        j = 0
        try:
            while not self.stop.is_set():
                off = self.round * 100000 + j
                j += 1
                self.commits_tried.append(off)
                try:
                    c.commit(offsets=[TopicPartition(DATA, 0, off)], asynchronous=False)
                    self.commits_acked.append(off)
                except KafkaException:
                    time.sleep(0.1)  # broker down: unknown outcome
                time.sleep(0.02)
        finally:
            try:
                c.close()
            except KafkaException:
                pass  # its coordinator gone with the broker: nothing to learn

    def _transact(self):
        t = 0
        while not self.stop.is_set():
            p = Producer(self._conf(**{"transactional.id": TXN_ID, "transaction.timeout.ms": 10000,
                                        "message.timeout.ms": 10000}))
            try:
                p.init_transactions(30)
                while not self.stop.is_set():
                    name = f"r{self.round}t{t}"
                    t += 1
                    self.txns[name] = "unknown"
                    p.begin_transaction()
                    for k in range(3):
                        p.produce(TXN, value=f"{name}:{k}".encode(), partition=0)
                    if self.rnd.random() < 0.7:
                        p.commit_transaction(30)
                        self.txns[name] = "committed"
                    else:
                        p.abort_transaction(30)
                        self.txns[name] = "aborted"
            except KafkaException:
                # The broker went down mid-transaction (its outcome is
                # unknown): a new producer with the same id fences this one
                # and aborts what it left open.
                if not self.stop.is_set():
                    time.sleep(0.2)
            finally:
                try:
                    p.flush(0)
                except KafkaException:
                    pass  # fatal (fenced): nothing more to learn from it


def seq(value):
    r, i = value[1:].split(":")
    return int(r), int(i)


def read_partition(bootstrap, topic, committed_only):
    """Every value of partition 0, in offset order, up to its end (the LSO
    for read_committed)."""
    level = "read_committed" if committed_only else "read_uncommitted"
    return [m.value().decode() for m in ck_util.consume(bootstrap, topic, timeout=60, **{"isolation.level": level})]


def committed_offset(bootstrap):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": GROUP, "enable.auto.commit": False})
    try:
        return c.committed([TopicPartition(DATA, 0)], timeout=30)[0].offset
    finally:
        c.close()


def settle_transactions(bootstrap):
    """A fresh producer with the same transactional.id aborts anything left
    open, so that read_committed reaches the end."""
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": TXN_ID})
    p.init_transactions(60)


def check_round(broker, clients, history, durable, cut_at):
    md = AdminClient({"bootstrap.servers": broker.bootstrap}).list_topics(timeout=30)
    for t in (DATA, TXN):
        assert t in md.topics and len(md.topics[t].partitions) == 1, f"topic {t} lost: {sorted(md.topics)}"
    data = read_partition(broker.bootstrap, DATA, False)
    assert len(set(data)) == len(data), f"duplicates: {[v for v in set(data) if data.count(v) > 1][:10]}"
    sent = set(history["sent"]) | set(clients.sent)
    foreign = [v for v in data if v not in sent]
    assert not foreign, f"never sent: {foreign[:10]}"
    acked_at = history["acked"] + clients.acked
    acked = [v for _, v in acked_at]
    present = set(data)
    if durable:
        lost = [v for v in acked if v not in present]
        assert not lost, f"{len(lost)} acknowledged messages lost, first {lost[:5]}"
    else:
        # Of what was acknowledged before the cut only a tail may be gone;
        # what the restarted broker acknowledged has seen no cut yet.
        before = [v for t, v in acked_at if t < cut_at]
        kept = [v in present for v in before]
        if False in kept:
            first_gap = kept.index(False)
            later = [v for v, k in zip(before[first_gap:], kept[first_gap:]) if k]
            assert not later, f"a hole: acknowledged {before[first_gap]} lost, later acknowledged {later[:5]} kept"
        lost_after = [v for t, v in acked_at if t >= cut_at and v not in present]
        assert not lost_after, f"acknowledged after the restart and lost: {lost_after[:5]}"
    acked_set = set(acked)
    order = [v for v in data if v in acked_set]
    assert order == sorted(order, key=seq), "acknowledged messages out of order"
    history["sent"], history["acked"] = sorted(sent), [(t, v) for t, v in acked_at if v in present]

    if clients.commits_acked and durable:
        got = committed_offset(broker.bootstrap)
        assert got >= clients.commits_acked[-1], f"committed offset {got} < acknowledged {clients.commits_acked[-1]}"
        assert got <= clients.commits_tried[-1], f"committed offset {got} never sent"

    settle_transactions(broker.bootstrap)
    txn_data = read_partition(broker.bootstrap, TXN, True)
    assert len(set(txn_data)) == len(txn_data), "a transactional message twice"
    seen = {}
    for v in txn_data:
        name, k = v.rsplit(":", 1)
        seen.setdefault(name, set()).add(int(k))
    history["txns"].update(clients.txns)
    for name, state in history["txns"].items():
        got = seen.get(name, set())
        assert got in (set(), {0, 1, 2}), f"transaction {name} visible in part: {sorted(got)}"
        if state == "aborted":
            assert not got, f"aborted transaction {name} visible"
        if state == "committed" and durable:
            assert got == {0, 1, 2}, f"committed transaction {name} lost"
    unknown = [n for n in seen if n not in history["txns"]]
    assert not unknown, f"transactions never begun: {unknown[:5]}"
    return len(data), len(clients.acked), len(clients.commits_acked), \
        sum(1 for s in clients.txns.values() if s == "committed")


@pytest.mark.parametrize("durable", [True, False], ids=["durable", "page-cache"])
def test_power_cuts_keep_every_acknowledged_write(durable):
    seed = base_seed()
    print(f"\npower cut seed {seed} (replay: SPOOL_POWER_CUT_SEED={seed}), {CUTS} cuts, durable={durable}")
    rnd = random.Random(seed)
    b = CutBroker(overrides={"durable.writes": str(durable).lower(), "log.segment.bytes": "65536",
                             "offsets.topic.num.partitions": "2", "offsets.topic.replication.factor": "1",
                             "transaction.state.log.num.partitions": "2",
                             "transaction.state.log.replication.factor": "1",
                             "transaction.state.log.min.isr": "1"})
    history = {"sent": [], "acked": [], "txns": {}}
    totals = [0, 0, 0]
    try:
        b.start_on_fault_fs(rnd.randrange(1 << 31))
        admin = AdminClient({"bootstrap.servers": b.bootstrap})
        for f in admin.create_topics([NewTopic(DATA, 1, 1), NewTopic(TXN, 1, 1)]).values():
            f.result(30)
        for r in range(CUTS):
            clients = Clients(b.bootstrap, random.Random(rnd.randrange(1 << 31)), r).start()
            time.sleep(rnd.uniform(1.0, 3.0))
            report = b.power_cut()
            # The broker that died answered before this; every later answer
            # comes from its successor (which may answer before start()
            # returns: the producer retries while the harness waits).
            cut_at = time.monotonic()
            b.start_on_fault_fs(rnd.randrange(1 << 31))
            clients.join()
            n, acked, commits, committed = check_round(b, clients, history, durable, cut_at)
            totals = [totals[0] + acked, totals[1] + commits, totals[2] + committed]
            print(f"  cut {r + 1}: {n} messages in the log, {acked} acknowledged this round, "
                  f"{commits} commits, {committed} transactions committed; cut (seed {report}")
        assert b.stop() == 0, b.log()[-3000:]
        # Not vacuous: every writer got acknowledgements.
        assert all(x > 0 for x in totals), f"acknowledged messages, commits, transactions: {totals}"
    except BaseException:
        print(b.all_logs()[-8000:])
        raise
    finally:
        b.cleanup()
