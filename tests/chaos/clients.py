"""Recorded Kafka clients for the checker (issue 16): librdkafka producers and
consumers (confluent_kafka) that run on their own threads and record every
send, outcome and read into a checker.History.

Contract:
  * `RecordedProducer(history, bootstrap, topic, partitions, name, kind, rng)`
    kind "idempotent" (acks=all, enable.idempotence), "plain" (acks=all,
    retries, no idempotence: duplicates and reordering are possible, so
    the runner judges it on a topic of its own) or "txn" (transactions of
    1-8 writes, about one in five aborted on purpose). Values are
    `<run>-<name>-<n>`, unique in a run.
  * Outcomes: a delivery without error is "ok" with its offset (a
    transactional write only once its transaction committed; "aborted" once
    abort_transaction returned). A delivery error or an unknown transaction
    end is "info"; "fail" only for what the client refused before sending
    and for DEFINITE_ERRORS.
  * A fatal producer error recreates the producer under a new instance name
    (p0, p0.1, ...; the transactional id stays, fencing the old instance),
    so per-producer order checks stay per instance.
  * `RecordedConsumer(history, bootstrap, topic, partitions, name, mode,
    committed)`: mode "assign" reads every partition from the beginning;
    mode "group" subscribes as a member of group `group` and records a reset
    at every assignment and revocation. committed: read_committed or not.
    `read_to(ends, timeout)` (assign mode) returns once its position reached
    `ends` in every partition (positions, so control records count).
  * `stop(timeout)`: producers stop sending and wait (bounded) for what is
    outstanding, the rest becomes "info"; consumers close. Threads only
    append to the History, which locks.
"""

import contextlib
import threading
import time
import traceback

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer, TopicPartition

import checker

# Errors after which the broker certainly did not append the message.
# (_MSG_TIMED_OUT is deliberately not among them: a timed-out batch may be on disk.)
DEFINITE_ERRORS = {KafkaError.MSG_SIZE_TOO_LARGE, KafkaError.INVALID_RECORD, KafkaError._INVALID_ARG,
                   KafkaError.TOPIC_AUTHORIZATION_FAILED}
TXN_CALL_S = 10.0


class RecordedProducer:
    def __init__(self, history, bootstrap, topic, partitions, name, kind, rng, rate=200, run_id="run",
                 conf=None, errors=None):
        if kind not in ("idempotent", "plain", "txn"):
            raise ValueError(f"producer kind {kind!r}")
        self.history, self.topic, self.partitions, self.kind, self.rng = history, topic, partitions, kind, rng
        self.base_name = name
        self.name = name
        self.rate = rate
        self.prefix = f"{run_id}-{name}"
        self.conf = {"bootstrap.servers": bootstrap, "acks": "all", "client.id": f"chaos-{name}",
                     "enable.idempotence": kind != "plain", "linger.ms": 2, "message.timeout.ms": 30000,
                     "request.timeout.ms": 10000, "retry.backoff.ms": 100, "reconnect.backoff.max.ms": 1000,
                     **(conf or {})}
        if kind == "txn":
            self.conf.update({"transactional.id": f"{self.prefix}-tid", "transaction.timeout.ms": 30000})
        self.errors = errors if errors is not None else []
        self._pending = {}  # value -> Write awaiting its delivery report
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._fatal = False
        self._generation = 0
        self._n = 0
        self.flush_timeout = 45.0
        self.sent = 0
        self.implicit_acks = 0
        self.txns = {"committed": 0, "aborted": 0, "unknown": 0}
        self.thread = None
        self.crash = None  # what ended the thread, if it was not stop()

    # -- callbacks ----------------------------------------------------------------
    def _on_error(self, err):
        self.errors.append((time.monotonic(), f"{self.name}: {err}"))
        if err.fatal():
            self._fatal = True

    def _on_delivery(self, err, msg):
        now = time.monotonic()
        with self._lock:
            w = self._pending.pop(msg.value().decode(), None)
        if w is None:
            return
        if self.kind == "txn":  # the outcome is the transaction's; keep the offset
            w.offset = msg.offset() if err is None and msg.offset() >= 0 else None
            w.error = None if err is None else str(err)
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

    # -- producing ------------------------------------------------------------------
    def _new(self):
        return Producer(dict(self.conf, error_cb=self._on_error))

    def _abandon(self, why):
        """Every write of this instance still pending becomes info."""
        with self._lock:
            ws = list(self._pending.values())
            self._pending.clear()
        for w in ws:
            self.history.complete(w, checker.INFO, time.monotonic(), error=why)

    def _renew(self, p, why):
        self._abandon(why)
        # Dropping a producer with messages queued blocks in its destructor
        # until they time out: purge them first.
        try:
            p.purge()
            p.poll(0)
        except KafkaException:
            pass
        self._generation += 1
        self.name = f"{self.base_name}.{self._generation}"
        self._fatal = False
        return self._new()

    def _send(self, p, txn=False):
        """One write to a random partition; returns its Write."""
        part = self.rng.randrange(self.partitions)
        value = f"{self.prefix}-{self._n}"
        self._n += 1
        w = self.history.invoke(self.name, value, (self.topic, part), time.monotonic(), txn=txn)
        with self._lock:
            self._pending[value] = w
        try:
            p.produce(self.topic, value.encode(), partition=part, on_delivery=self._on_delivery)
            self.sent += 1
        except (BufferError, KafkaException) as e:
            with self._lock:
                self._pending.pop(value, None)
            self.history.complete(w, checker.FAIL, time.monotonic(), error=f"refused locally: {e}")
            if isinstance(e, KafkaException) and e.args and getattr(e.args[0], "fatal", lambda: False)():
                self.errors.append((time.monotonic(), f"{self.name}: produce refused: {e}"))
                self._fatal = True
        return w

    def _pace(self, p, next_at):
        next_at += self.rng.uniform(0.5, 1.5) / self.rate
        delay = next_at - time.monotonic()
        if delay > 0:
            p.poll(delay)
            return next_at
        p.poll(0)
        return time.monotonic()

    def _loop(self):
        p = self._new()
        next_at = time.monotonic()
        while not self._stop.is_set():
            if self._fatal:
                p = self._renew(p, "fatal producer error")
            with self._lock:
                outstanding = len(self._pending)
            with self._fatal_errors():
                if outstanding > 2000:
                    p.poll(0.05)
                    continue
                self._send(p)
                next_at = self._pace(p, next_at)
        deadline = time.monotonic() + self.flush_timeout
        while time.monotonic() < deadline and len(p) > 0:
            p.poll(0.1)
        p.poll(0)
        self._abandon("undelivered at stop")

    @contextlib.contextmanager
    def _fatal_errors(self):
        """A fatal error raised by poll or flush (librdkafka raises the
        idempotent producer's fatal errors there too) ends this instance: it
        is recreated on the next round. Other exceptions propagate."""
        try:
            yield
        except KafkaException as e:
            if not e.args[0].fatal():
                raise
            self.errors.append((time.monotonic(), f"{self.name}: {e.args[0]}"))
            self._fatal = True

    # -- transactions ------------------------------------------------------------------
    def _txn_call(self, fn, what):
        """fn() with librdkafka's retry rules: True when it succeeded, False
        when the transaction must be aborted, None when its end is unknown
        (fatal, or still retriable after a few tries)."""
        for _ in range(5):
            try:
                fn()
                return True
            except KafkaException as e:
                err = e.args[0]
                self.errors.append((time.monotonic(), f"{self.name}: {what}: {err}"))
                if err.fatal():
                    self._fatal = True
                    return None
                if err.txn_requires_abort():
                    return False
                if not err.retriable():
                    return None
                time.sleep(0.2)
        return None

    def _end_txn(self, p, ws, commit):
        """Commits (or aborts) the open transaction of writes ws and records
        their outcome."""
        p.flush(TXN_CALL_S)
        done = self._txn_call(lambda: p.commit_transaction(TXN_CALL_S), "commit") if commit else False
        outcome = checker.OK if done else None
        if done is False:
            outcome = checker.ABORTED if self._txn_call(lambda: p.abort_transaction(TXN_CALL_S), "abort") \
                else None
        self.txns[{checker.OK: "committed", checker.ABORTED: "aborted", None: "unknown"}[outcome]] += 1
        now = time.monotonic()
        with self._lock:
            for w in ws:
                self._pending.pop(w.value, None)
        for w in ws:
            if w.outcome != checker.INFO:  # refused locally: already "fail"
                continue
            if outcome == checker.OK and w.error is None:
                self.history.complete(w, checker.OK, now, w.offset)
            elif outcome == checker.ABORTED:
                self.history.complete(w, checker.ABORTED, now, w.offset)
            else:
                self.history.complete(w, checker.INFO, now, w.offset,
                                      error=w.error or "transaction end unknown")

    def _txn_loop(self):
        p = self._new()
        ready = False
        next_at = time.monotonic()
        while not self._stop.is_set():
            if self._fatal:
                p = self._renew(p, "fatal producer error")
                ready = False
            if not ready:
                ready = self._txn_call(lambda: p.init_transactions(TXN_CALL_S), "init") is True
                if not ready:
                    if not self._fatal:
                        time.sleep(0.5)
                    continue
            if self._txn_call(p.begin_transaction, "begin") is not True:
                self._fatal = True
                continue
            ws = []
            with self._fatal_errors():
                for _ in range(self.rng.randint(1, 8)):
                    ws.append(self._send(p, txn=True))
                    next_at = self._pace(p, next_at)
                self._end_txn(p, ws, commit=self.rng.random() >= 0.2)
            if self._fatal:  # the transaction's end is unknown
                for w in ws:
                    if w.outcome == checker.INFO and w.end is None:
                        self.history.complete(w, checker.INFO, time.monotonic(), w.offset, error="fatal error")
        self._abandon("undelivered at stop")

    # -- control ---------------------------------------------------------------------
    def start(self):
        fn = self._txn_loop if self.kind == "txn" else self._loop
        self.thread = threading.Thread(target=_guarded, args=(self, fn), name=f"producer-{self.base_name}",
                                       daemon=True)
        self.thread.start()
        return self

    def stop(self, timeout=60.0):
        self.flush_timeout = max(1.0, min(45.0, timeout - 5))
        self._stop.set()
        self.thread.join(timeout)
        return not self.thread.is_alive()


class RecordedConsumer:
    def __init__(self, history, bootstrap, topic, partitions, name, mode="assign", committed=True,
                 group=None, conf=None, errors=None):
        if mode not in ("assign", "group"):
            raise ValueError(f"consumer mode {mode!r}")
        self.history, self.topic, self.partitions, self.name = history, topic, partitions, name
        self.mode, self.committed = mode, committed
        self.conf = {"bootstrap.servers": bootstrap, "client.id": f"chaos-{name}",
                     "group.id": group or f"chaos-{name}",
                     "isolation.level": "read_committed" if committed else "read_uncommitted",
                     "enable.auto.commit": mode == "group", "auto.offset.reset": "earliest",
                     "session.timeout.ms": 10000, "reconnect.backoff.max.ms": 1000, **(conf or {})}
        self.errors = errors if errors is not None else []
        self._stop = threading.Event()
        self.thread = None
        self.reads = 0
        self.rebalances = 0
        self.crash = None

    def _tp(self, p):
        return (self.topic, p)

    def _on_assign(self, consumer, parts):
        self.rebalances += 1
        for tp in parts:
            self.history.reset(self.name, self._tp(tp.partition))

    def _on_revoke(self, consumer, parts):
        for tp in parts:
            self.history.reset(self.name, self._tp(tp.partition))

    def _open(self):
        c = Consumer(self.conf)
        if self.mode == "group":
            c.subscribe([self.topic], on_assign=self._on_assign, on_revoke=self._on_revoke,
                        on_lost=self._on_revoke)
        else:
            c.assign([TopicPartition(self.topic, p, OFFSET_BEGINNING) for p in range(self.partitions)])
            for p in range(self.partitions):
                self.history.reset(self.name, self._tp(p))
        return c

    def _poll_once(self, c):
        m = c.poll(0.2)
        if m is None:
            return
        if m.error() is not None:
            if m.error().code() != KafkaError._PARTITION_EOF:
                self.errors.append((time.monotonic(), f"{self.name}: {m.error()}"))
            return
        self.history.read(self.name, self._tp(m.partition()), m.offset(), m.value().decode(),
                          committed=self.committed)
        self.reads += 1

    def _loop(self):
        c = self._open()
        try:
            while not self._stop.is_set():
                self._poll_once(c)
        finally:
            c.close()

    def read_to(self, ends, timeout):
        """Assign mode, on the caller's thread: reads until the position in
        every partition reached ends[p] (True), or the timeout (False)."""
        c = self._open()
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                self._poll_once(c)
                pos = c.position([TopicPartition(self.topic, p) for p in ends])
                if all(tp.offset >= ends[tp.partition] for tp in pos):
                    return True
            return False
        finally:
            c.close()

    def start(self):
        self.thread = threading.Thread(target=_guarded, args=(self, self._loop), name=f"consumer-{self.name}",
                                       daemon=True)
        self.thread.start()
        return self

    def stop(self, timeout=70.0):
        # The close waits for librdkafka's group handle to end, which can
        # take a socket timeout while the coordinator's broker was just killed.
        self._stop.set()
        self.thread.join(timeout)
        return not self.thread.is_alive()


def _guarded(client, fn):
    """Runs a client's loop; an exception ends it with client.crash set
    (the run fails on it instead of a thread dying quietly)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - any crash of a client is reported
        client.crash = f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=4)}"
        client.errors.append((time.monotonic(), f"{threading.current_thread().name} crashed: {client.crash}"))


def end_offsets(bootstrap, topic, partitions, timeout=10.0):
    """Each partition's high watermark."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "chaos-ends"})
    try:
        return {p: c.get_watermark_offsets(TopicPartition(topic, p), timeout=timeout)[1] for p in range(partitions)}
    finally:
        c.close()
