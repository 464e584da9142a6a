"""Exactly-once consume-transform-produce with confluent-kafka-python
(librdkafka 2.0.x) across crashes of the processing client and of the broker.

A processor (a child process running this file) reads an input topic in a
consumer group (read_committed), and per batch: begins a transaction,
produces one output record per input record, sends the consumed offsets with
send_offsets_to_transaction and commits. The test SIGKILLs processors in the
middle of a transaction (between produce and commit) twice; each successor
uses the same transactional.id, so init_transactions fences the dead one and
aborts its open transaction, and the group resumes from the offsets committed
with the last committed transaction. A last processor finishes the input.

Checked: a read_committed reader of the output sees every input exactly once
(no loss, no duplicate), in input order per partition, and the group's
committed offsets are the input's end offsets. A second test kills the
broker (kill -9, restart on the same data) twice between a batch's produce and
its commit, replacing a processor whenever the client gives up, with the same
exactly-once check. Waits have deadlines; nothing asserts on durations.

Against the Kafka 4.4 peer the broker-crash test allows one known Kafka
failure (README: Differences from Kafka 4.4): a transaction its coordinator
rolls back right after the restart, while an output partition has no leader
yet, gets no ABORT marker on that partition ("likely deleted already and
hence can be skipped"), and the producer's next COMMIT there commits those
records too. Duplicates are accepted only on partitions Kafka logged so.
"""

import collections
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import uuid

import pytest

from harness import random_seed, which_peer
from txn_util import (WAIT_S, create_topic, parse, payload, plain_producer, produce,
                      read_until_sentinels, wait_until, write_sentinels)

BROKER_OVERRIDES = {
    "group.initial.rebalance.delay.ms": "0",
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": "1000",
}

NPARTS = 4
N_INPUT = 600
BATCH = 20
KILLS = 2


class Processor:
    """One processor child process; its JSON event lines are collected, each
    with the monotonic time it arrived.

    argv: the command before the spec argument, for a processor of another
    client with the same spec and events (tests/compat/java EosProcessor,
    tests/compat/go/eosproc); default this file's librdkafka processor."""

    def __init__(self, spec, argv=None):
        if argv is None:
            argv = [sys.executable, os.path.abspath(__file__), "process"]
        args = list(argv) + [json.dumps(spec)]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        self._lock = threading.Lock()
        self.events = []
        self.arrived = []  # time.monotonic() of each entry of self.events
        self.lines = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            with self._lock:
                self.lines.append(line.rstrip())
                try:
                    ev = json.loads(line)
                except ValueError:
                    continue
                if isinstance(ev, dict):
                    self.events.append(ev)
                    self.arrived.append(time.monotonic())

    def first_after(self, kind, t):
        """The arrival time of the first `kind` event that arrived after t, or None."""
        with self._lock:
            return next((at for e, at in zip(self.events, self.arrived)
                         if at > t and e.get("event") == kind), None)

    def count(self, kind):
        with self._lock:
            return sum(1 for e in self.events if e.get("event") == kind)

    def committed_inputs(self):
        with self._lock:
            return sum(e["n"] for e in self.events if e.get("event") == "committed")

    def last_event(self):
        with self._lock:
            return self.events[-1].get("event") if self.events else None

    def output(self):
        with self._lock:
            return "\n".join(self.lines[-40:])

    def check_alive(self):
        rc = self.proc.poll()
        assert rc is None, f"processor exited with {rc}:\n{self.output()}"

    def kill9(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def terminate(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(WAIT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def _committed(bootstrap, group, topic):
    from confluent_kafka import Consumer, TopicPartition
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                  "enable.auto.commit": False, "isolation.level": "read_committed"})
    try:
        res = c.committed([TopicPartition(topic, i) for i in range(NPARTS)], timeout=30)
        return {tp.partition: tp.offset for tp in res}
    except Exception as e:  # e.g. UNSTABLE_OFFSET_COMMIT while a txn is pending
        return {"error": str(e)}
    finally:
        c.close()


def _pipeline_input(bootstrap, src, dst, prefix):
    """Creates the input and output topics, fills the input, and returns the
    input's end offsets and the processors' spec."""
    create_topic(bootstrap, src, NPARTS)
    create_topic(bootstrap, dst, NPARTS)
    p = plain_producer(bootstrap)
    errs = produce(p, src, [(i % NPARTS, payload("in", i)) for i in range(N_INPUT)])
    assert p.flush(WAIT_S) == 0 and not errs, errs
    ends = {i: N_INPUT // NPARTS for i in range(NPARTS)}
    spec = {"bootstrap": bootstrap, "group": f"{prefix}-{uuid.uuid4().hex[:8]}", "src": src,
            "dst": dst, "txn_id": f"{prefix}-proc-{uuid.uuid4().hex[:8]}", "batch": BATCH,
            "pause_s": 0.05}
    return ends, spec


def _read_output_once(bootstrap, dst, what, lost, dup_ok_parts=()):
    """The read_committed output, asserting every input is in it exactly once
    (inputs of the output partitions `dup_ok_parts` at least once)."""
    write_sentinels(bootstrap, dst, NPARTS)
    out = read_until_sentinels(bootstrap, dst, NPARTS, "read_committed", timeout=WAIT_S)
    counts = collections.Counter(parse(v[len(b"out:"):])[1] for _, _, v in out)
    missing = sorted(set(range(N_INPUT)) - set(counts))
    dups = sorted(n for n, c in counts.items() if c > 1 and n % NPARTS not in dup_ok_parts)
    assert not missing and not dups, \
        f"{what}: {len(missing)} {lost} (e.g. {missing[:10]}), " \
        f"{len(dups)} duplicated (e.g. {dups[:10]})"
    if not dup_ok_parts:
        assert len(out) == N_INPUT
    return out


def _kafka_skipped_marker_parts(log, dst):
    """Output partitions the Kafka peer's transaction coordinator sent no
    marker to because it found no leader for them (see the module doc)."""
    parts = set()
    for m in re.finditer(r"Couldn't find leader endpoint for partitions Set\(([^)]*)\) while trying "
                         r"to send transaction markers", log):
        for tp in m.group(1).split(","):
            topic, _, part = tp.strip().rpartition("-")
            if topic == dst:
                parts.add(int(part))
    return parts


def test_exactly_once_across_processor_crashes(broker, bootstrap, topic):
    src, dst = f"{topic}-in", f"{topic}-out"
    ends, spec = _pipeline_input(bootstrap, src, dst, "eos")
    rnd = random.Random(random_seed("EOS_PIPELINE_SEED"))
    killed_mid_txn = 0
    procs = []
    try:
        # The kill lands inside a transaction only if it beats the commit
        # (pause_s later); a loaded machine can miss it, so a few more
        # processors are tried until one did.
        k = 0
        while k < KILLS or (killed_mid_txn == 0 and k < KILLS + 3):
            k += 1
            proc = Processor(dict(spec, name=f"proc{k}"))
            procs.append(proc)
            # Let it commit a few batches, then kill it right after it has
            # produced a batch and before that batch's commit.
            target = rnd.randint(2, 4)
            wait_until(lambda: (proc.check_alive() or proc.count("committed") >= target),
                       what=f"processor {k} commits {target} transactions", state=proc.output)
            n_prod = proc.count("produced")
            wait_until(lambda: (proc.check_alive() or proc.count("produced") > n_prod),
                       what=f"processor {k} produces its next batch", state=proc.output, interval=0.002)
            time.sleep(rnd.uniform(0, spec["pause_s"] / 2))
            proc.kill9()
            if proc.last_event() == "produced":
                killed_mid_txn += 1

        last = Processor(dict(spec, name="final"))
        procs.append(last)
        wait_until(lambda: (last.check_alive() or
                            _committed(bootstrap, spec["group"], src) == ends),
                   timeout=120, what="group offsets at the input's end",
                   state=lambda: (_committed(bootstrap, spec["group"], src), last.output()))
        rc = last.terminate()
        assert rc == 0, f"final processor exited {rc}:\n{last.output()}"
    finally:
        for pr in procs:
            pr.kill9()

    assert killed_mid_txn > 0, "no processor was killed inside a transaction: test did no work"
    out = _read_output_once(bootstrap, dst, "not exactly once", "inputs lost")
    for part in range(NPARTS):
        seq = [parse(v[len(b"out:"):])[1] for pp, _, v in out if pp == part]
        assert seq == sorted(seq), f"output partition {part} out of input order"
        assert all(n % NPARTS == part for n in seq), "output on the wrong partition"


def test_exactly_once_across_broker_crashes(broker_factory):
    """The broker is SIGKILLed twice while a processor is between producing a
    batch and committing it, and restarted on the same port and data. The
    processor either rides through (librdkafka retries) or fails and is
    replaced by a successor with the same transactional.id; either way the
    read_committed output must hold every input exactly once."""
    b = broker_factory(BROKER_OVERRIDES)
    bootstrap = f"127.0.0.1:{b.port}"
    src, dst = f"eosb-{uuid.uuid4().hex[:8]}-in", f"eosb-{uuid.uuid4().hex[:8]}-out"
    ends, spec = _pipeline_input(bootstrap, src, dst, "eosb")
    procs = []

    def live():
        # A processor that failed (exit 3 on a fatal client error) is replaced.
        if not procs or procs[-1].proc.poll() is not None:
            procs.append(Processor(dict(spec, name=f"proc{len(procs)}")))
        return procs[-1]

    def committed_total():
        return sum(pr.count("committed") for pr in procs)

    broker_kills = 0
    try:
        for _ in range(KILLS):
            base = committed_total()
            wait_until(lambda: live() and committed_total() >= base + 2,
                       what="two more committed transactions", state=lambda: live().output())
            cur = live()
            n_prod = cur.count("produced")
            wait_until(lambda: cur.proc.poll() is not None or cur.count("produced") > n_prod,
                       what="a produced batch", state=cur.output)
            b.kill9()
            broker_kills += 1
            b.start()
        try:
            wait_until(lambda: live() and _committed(bootstrap, spec["group"], src) == ends,
                       timeout=180, what="group offsets at the input's end",
                       state=lambda: (_committed(bootstrap, spec["group"], src), live().output()))
        except AssertionError:
            # The same Kafka 4.4 bug on the group's side: a rolled-back
            # transaction's ABORT marker skipped on a __consumer_offsets
            # partition leaves its offsets pending for ever, so every
            # require-stable OffsetFetch answers UNSTABLE_OFFSET_COMMIT.
            stuck = _kafka_skipped_marker_parts(b.all_logs(), "__consumer_offsets") if which_peer() else set()
            if not stuck:
                raise
            pytest.xfail(f"Kafka 4.4 sent no transaction marker to __consumer_offsets partitions "
                         f"{sorted(stuck)} after a restart: the group's offsets stay unstable "
                         "(tests/compat/README.md, exactly-once across a broker kill -9)")
        procs[-1].terminate()
    finally:
        for pr in procs:
            pr.kill9()

    assert broker_kills == KILLS
    print(f"processors used: {len(procs)}; transactions committed: {committed_total()}")
    skipped = _kafka_skipped_marker_parts(b.all_logs(), dst) if which_peer() else set()
    if skipped:
        print(f"Kafka sent no transaction marker to {dst} partitions {sorted(skipped)} after a restart")
    _read_output_once(bootstrap, dst, "not exactly once across broker crashes", "lost", skipped)


# --------------------------------------------------------------------------
# the processor child

def _emit(**kw):
    print(json.dumps(kw), flush=True)


def _process_main(spec):
    from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())

    producer = Producer({"bootstrap.servers": spec["bootstrap"],
                         "transactional.id": spec["txn_id"], "linger.ms": 5,
                         "transaction.timeout.ms": 10000, "client.id": spec["name"]})
    # Before joining the group: fencing the previous incarnation aborts its
    # pending offsets, so the offsets fetched on assignment are stable.
    producer.init_transactions(WAIT_S)
    consumer = Consumer({"bootstrap.servers": spec["bootstrap"], "group.id": spec["group"],
                         "isolation.level": "read_committed", "enable.auto.commit": False,
                         "auto.offset.reset": "earliest", "session.timeout.ms": 6000,
                         "heartbeat.interval.ms": 1000, "client.id": spec["name"]})
    consumer.subscribe([spec["src"]])
    _emit(event="started")
    try:
        while not stop.is_set():
            msgs = [m for m in consumer.consume(num_messages=spec["batch"], timeout=0.5)
                    if not m.error()]
            if not msgs:
                continue
            producer.begin_transaction()
            nxt = {}
            for m in msgs:
                producer.produce(spec["dst"], value=b"out:" + m.value(), partition=m.partition())
                nxt[m.partition()] = m.offset() + 1
            producer.flush(WAIT_S)
            _emit(event="produced", n=len(msgs))
            time.sleep(spec["pause_s"])
            producer.send_offsets_to_transaction(
                [TopicPartition(spec["src"], part, off) for part, off in nxt.items()],
                consumer.consumer_group_metadata(), WAIT_S)
            producer.commit_transaction(WAIT_S)
            _emit(event="committed", n=len(msgs), offsets=nxt)
    except KafkaException as e:
        _emit(event="error", error=str(e))
        sys.exit(3)
    consumer.close()
    _emit(event="closed")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "process":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        _process_main(json.loads(sys.argv[2]))
    else:
        sys.exit("usage: test_eos_pipeline.py process JSON")
