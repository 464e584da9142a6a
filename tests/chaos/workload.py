"""The system tests' workload: an idempotent acks=all producer writing unique
values to the partitions of one topic while a read_committed consumer reads
them, both recording into a checker.History; then a bounded drain that reads
every partition from the beginning to its end.

Contract:
  * `Workload(bootstrap, topic, partitions, seed=None)`: seeded randomness
    (partition choice, pacing); the seed is printed (and taken from
    WORKLOAD_SEED if set) so a run can be replayed.
  * `start()` starts the producer and consumer threads; `stop(timeout)` stops
    producing and waits (bounded) for every outstanding delivery; whatever is
    still undelivered is recorded as "info" (unknown outcome). `drain(timeout)`
    then reads everything with a fresh consumer and sets history.drained only
    if every partition was read to its end offset. `check()` runs the checker.
  * Outcomes: a delivery report without error is "ok" with its offset. A
    delivery error is "info": librdkafka cannot tell whether a timed-out or
    retried batch was written. "fail" (definitely not written) is recorded only
    for messages the client refused before sending (BufferError, a local
    error in produce()) and for errors in DEFINITE_ERRORS.
  * A fatal idempotent-producer error recreates the producer under a new
    name (p0, p0.1, ...) so per-producer order checks stay per instance.
  * Threads: one producer thread (it also serves the delivery callbacks via
    poll) and one consumer thread; both only append to the History (locked).
"""

import os
import random
import threading
import time
import uuid

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

import checker

# Errors after which the broker certainly did not append the message.
# (_MSG_TIMED_OUT is deliberately not among them: a timed-out batch may be on disk.)
DEFINITE_ERRORS = {KafkaError.MSG_SIZE_TOO_LARGE, KafkaError.INVALID_RECORD, KafkaError._INVALID_ARG,
                   KafkaError.TOPIC_AUTHORIZATION_FAILED}


def create_topic(bootstrap, topic, partitions, rf, configs=None, timeout=30.0):
    """Creates the topic and waits (bounded) until every partition has a leader."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    fut = admin.create_topics([NewTopic(topic, partitions, rf, config=dict(configs or {}))],
                              operation_timeout=timeout)[topic]
    fut.result(timeout)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        md = admin.list_topics(topic, timeout=5).topics.get(topic)
        if md is not None and md.error is None and len(md.partitions) == partitions \
                and all(p.leader >= 0 for p in md.partitions.values()):
            return
        time.sleep(0.1)
    raise TimeoutError(f"topic {topic}: not every partition has a leader after {timeout} s")


class Workload:
    def __init__(self, bootstrap, topic, partitions, seed=None, rate=400, producer_conf=None,
                 consumer_conf=None, log=print):
        env_seed = os.environ.get("WORKLOAD_SEED")
        self.seed = int(env_seed) if seed is None and env_seed else (seed if seed is not None
                                                                     else random.SystemRandom().randrange(2**31))
        self.log = log
        self.log(f"workload seed={self.seed} (replay: WORKLOAD_SEED={self.seed})")
        self.rng = random.Random(self.seed)
        self.bootstrap = bootstrap
        self.topic = topic
        self.partitions = partitions
        self.rate = rate
        self.run_id = uuid.UUID(int=self.rng.getrandbits(128)).hex[:8]
        self.history = checker.History()
        self.producer_conf = {"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
                              "linger.ms": 2, "message.timeout.ms": 30000, "request.timeout.ms": 10000,
                              "retry.backoff.ms": 100, "reconnect.backoff.max.ms": 1000,
                              **(producer_conf or {})}
        self.consumer_conf = {"bootstrap.servers": bootstrap, "isolation.level": "read_committed",
                              "enable.auto.commit": False, "auto.offset.reset": "earliest",
                              "reconnect.backoff.max.ms": 1000, **(consumer_conf or {})}
        self._stop_producing = threading.Event()
        self._stop_consuming = threading.Event()
        self._pending = {}  # value -> Write not yet completed
        self._pending_lock = threading.Lock()
        self.errors = []  # (when, text) of client errors, for the report
        self._threads = []
        self.producer_name = "p0"
        self._generation = 0
        self.sent = 0
        self.implicit_acks = 0  # acked without an offset (see _on_delivery)

    def tp(self, p):
        return (self.topic, p)

    # -- producer -----------------------------------------------------------------
    def _new_producer(self):
        conf = dict(self.producer_conf)
        conf["error_cb"] = self._on_error
        return Producer(conf)

    def _on_error(self, err):
        self.errors.append((time.monotonic(), str(err)))
        if err.fatal():
            self._fatal = True

    _fatal = False

    def _on_delivery(self, err, msg):
        now = time.monotonic()
        value = msg.value().decode()
        with self._pending_lock:
            w = self._pending.pop(value, None)
        if w is None:
            return
        if err is None and msg.offset() is not None and msg.offset() >= 0:
            self.history.complete(w, checker.OK, now, msg.offset())
        elif err is None:
            # Persisted, offset unknown: librdkafka acknowledges a batch whose
            # request timed out once a later batch of this idempotent producer
            # succeeded (its "implicit ack"); not an error to the application.
            self.history.complete(w, checker.OK, now, None)
            self.implicit_acks += 1
        elif err.code() in DEFINITE_ERRORS:
            self.history.complete(w, checker.FAIL, now, error=str(err))
        else:
            self.history.complete(w, checker.INFO, now, error=str(err))

    def _abandon(self, producer_name, why):
        """Every write of that producer still pending becomes info."""
        now = time.monotonic()
        with self._pending_lock:
            gone = [v for v, w in self._pending.items() if w.producer == producer_name]
            ws = [self._pending.pop(v) for v in gone]
        for w in ws:
            self.history.complete(w, checker.INFO, now, error=why)

    def _produce_loop(self):
        p = self._new_producer()
        n = 0
        interval = 1.0 / self.rate if self.rate else 0.0
        next_at = time.monotonic()
        while not self._stop_producing.is_set():
            if self._fatal:
                self._abandon(self.producer_name, "fatal producer error")
                # Dropping a producer with messages queued blocks in its
                # destructor (rd_kafka_destroy) until they time out: purge
                # them first (their callbacks find nothing pending).
                try:
                    p.purge()
                    p.poll(0)
                except KafkaException:
                    pass
                self._generation += 1
                self.producer_name = f"p0.{self._generation}"
                self._fatal = False
                p = self._new_producer()
            with self._pending_lock:
                outstanding = len(self._pending)
            if outstanding > 2000:
                p.poll(0.05)
                continue
            part = self.rng.randrange(self.partitions)
            value = f"{self.run_id}-{n}"
            n += 1
            w = self.history.invoke(self.producer_name, value, self.tp(part), time.monotonic())
            with self._pending_lock:
                self._pending[value] = w
            try:
                p.produce(self.topic, value.encode(), partition=part, on_delivery=self._on_delivery)
                self.sent += 1
            except (BufferError, KafkaException) as e:
                with self._pending_lock:
                    self._pending.pop(value, None)
                self.history.complete(w, checker.FAIL, time.monotonic(), error=f"refused locally: {e}")
                # A fatal producer refuses every produce(); its error_cb may
                # not have been served yet: recreate it on the next round.
                if isinstance(e, KafkaException) and e.args and getattr(e.args[0], "fatal", lambda: False)():
                    self.errors.append((time.monotonic(), f"produce refused: {e}"))
                    self._fatal = True
            p.poll(0)
            next_at += interval * self.rng.uniform(0.5, 1.5)
            delay = next_at - time.monotonic()
            if delay > 0:
                p.poll(delay)
            else:
                next_at = time.monotonic()
        deadline = time.monotonic() + self._flush_timeout
        while time.monotonic() < deadline and len(p) > 0:
            p.poll(0.1)
        p.poll(0)
        self._abandon(self.producer_name, "undelivered at stop")

    # -- consumer ---------------------------------------------------------------------
    def _consume(self, name, stop, until=None, timeout=None):
        """Reads every partition from the beginning, recording into the history,
        until `stop` is set, or (until = {partition: end offset}) every
        partition's position reached its end. Returns True if it did."""
        c = Consumer(dict(self.consumer_conf, **{"group.id": f"wl-{self.run_id}-{name}"}))
        c.assign([TopicPartition(self.topic, p, OFFSET_BEGINNING) for p in range(self.partitions)])
        for p in range(self.partitions):
            self.history.reset(name, self.tp(p))
        pos = {p: 0 for p in range(self.partitions)}
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            while not stop.is_set():
                if until is not None and all(pos[p] >= until[p] for p in until):
                    return True
                if deadline is not None and time.monotonic() > deadline:
                    return False
                m = c.poll(0.2)
                if m is None:
                    continue
                if m.error() is not None:
                    if m.error().code() != KafkaError._PARTITION_EOF:
                        self.errors.append((time.monotonic(), f"{name}: {m.error()}"))
                    continue
                self.history.read(name, self.tp(m.partition()), m.offset(), m.value().decode())
                pos[m.partition()] = m.offset() + 1
            return until is None
        finally:
            c.close()

    def _consume_loop(self):
        self._consume("c0", self._stop_consuming)

    # -- control ------------------------------------------------------------------------
    def start(self):
        self._flush_timeout = 45.0
        for fn in (self._produce_loop, self._consume_loop):
            t = threading.Thread(target=fn, name=fn.__name__, daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def wait_acked(self, n, timeout=30.0):
        """Until at least n writes are acked (bounded); returns the count."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            k = self.acked()
            if k >= n:
                return k
            time.sleep(0.05)
        return self.acked()

    def acked(self):
        return sum(1 for w in list(self.history.writes) if w.outcome == checker.OK)

    def producer_errors(self):
        """What the application was told went wrong: every write that did not
        end "ok" (delivery errors, local refusals, undelivered at stop) and
        whether a fatal error made the producer be recreated."""
        failed = [(w.value, w.error) for w in list(self.history.writes) if w.outcome != checker.OK]
        return failed, self._generation > 0

    def stop(self, timeout=60.0):
        """Stops producing (outstanding deliveries get up to ~45 s) and the
        live consumer. Raises TimeoutError if a thread does not end in time."""
        self._flush_timeout = max(1.0, min(45.0, timeout - 5))
        self._stop_producing.set()
        self._threads[0].join(timeout)
        self._stop_consuming.set()
        # The consumer's close waits for librdkafka's group handle to end,
        # which can take a socket timeout while the coordinator's broker was
        # just killed (CI: over 15 s once after a controller kill).
        self._threads[1].join(70)
        alive = [t.name for t in self._threads if t.is_alive()]
        if alive:
            raise TimeoutError(f"workload threads still running after stop: {alive}")

    def end_offsets(self, timeout=10.0):
        c = Consumer(dict(self.consumer_conf, **{"group.id": f"wl-{self.run_id}-ends"}))
        try:
            return {p: c.get_watermark_offsets(TopicPartition(self.topic, p), timeout=timeout)[1]
                    for p in range(self.partitions)}
        finally:
            c.close()

    def drain(self, timeout=60.0):
        """A fresh consumer reads every partition to its current end offset.
        Sets history.drained when it got there; returns the end offsets."""
        ends = self.end_offsets()
        self.history.drained = self._consume("drain", threading.Event(), until=ends, timeout=timeout)
        return ends

    def check(self):
        return checker.check(self.history)

    def save(self, path):
        with open(path, "w") as f:
            f.write(self.history.to_json())
        return path
