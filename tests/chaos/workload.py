"""The system tests' workload: an idempotent acks=all producer writing unique
values to the partitions of one topic while a read_committed consumer reads
them, both recording into a checker.History; then a bounded drain that reads
every partition from the beginning to its end. The clients are those of
clients.py (RecordedProducer "p0", RecordedConsumer "c0").

Contract:
  * `Workload(bootstrap, topic, partitions, seed=None)`: seeded randomness
    (partition choice, pacing); the seed is printed (and taken from
    WORKLOAD_SEED if set) so a run can be replayed.
  * `start()` starts the producer and consumer threads; `stop(timeout)` stops
    producing and waits (bounded) for every outstanding delivery; whatever is
    still undelivered is recorded as "info" (unknown outcome). `drain(timeout)`
    then reads everything with a fresh consumer and sets history.drained only
    if every partition was read to its end offset. `check()` runs the checker.
  * Outcomes are clients.py's; a fatal idempotent-producer error recreates the
    producer under a new name (p0, p0.1, ...).
"""

import os
import random
import time
import uuid

from confluent_kafka.admin import AdminClient, NewTopic

import checker
from clients import RecordedConsumer, RecordedProducer, end_offsets


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
        self.run_id = uuid.UUID(int=self.rng.getrandbits(128)).hex[:8]
        self.history = checker.History()
        self.errors = []  # (when, text) of client errors, for the report
        # The producer logs its idempotence state and leader changes
        # (stderr, shown when a test fails): a partition whose writes stall
        # needs the client's view to tell a client stall from a broker one.
        self.producer = RecordedProducer(self.history, bootstrap, topic, partitions, "p0", "idempotent", self.rng,
                                         rate=rate, run_id=self.run_id,
                                         conf={"debug": "eos,topic", **(producer_conf or {})}, errors=self.errors)
        self.consumer_conf = consumer_conf
        self.consumer = self._consumer("c0")

    def _consumer(self, name):
        return RecordedConsumer(self.history, self.bootstrap, self.topic, self.partitions, name,
                                group=f"wl-{self.run_id}-{name}", conf=self.consumer_conf, errors=self.errors)

    def tp(self, p):
        return (self.topic, p)

    # -- control ------------------------------------------------------------------------
    def start(self):
        self.producer.start()
        self.consumer.start()
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
        return failed, self.producer.name != "p0"

    def stop(self, timeout=60.0):
        """Stops producing (outstanding deliveries get up to ~45 s) and the
        live consumer. Raises TimeoutError if a thread does not end in time."""
        alive = []
        if not self.producer.stop(timeout):
            alive.append(self.producer.thread.name)
        if not self.consumer.stop(70):
            alive.append(self.consumer.thread.name)
        if alive:
            raise TimeoutError(f"workload threads still running after stop: {alive}")
        crashed = [c.crash for c in (self.producer, self.consumer) if c.crash]
        if crashed:
            raise AssertionError(f"workload client crashed: {crashed}")

    def end_offsets(self, timeout=10.0):
        return end_offsets(self.bootstrap, self.topic, self.partitions, timeout)

    def drain(self, timeout=60.0):
        """A fresh consumer reads every partition to its current end offset.
        Sets history.drained when it got there; returns the end offsets."""
        ends = self.end_offsets()
        self.history.drained = self._consumer("drain").read_to(ends, timeout)
        return ends

    def check(self):
        return checker.check(self.history)

    def save(self, path):
        with open(path, "w") as f:
            f.write(self.history.to_json())
        return path
