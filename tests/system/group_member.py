#!/usr/bin/python3
"""One consumer group member with confluent-kafka-python (librdkafka), driven
by tests/system/test_cluster_groups.py as a child process. The Java
(tests/compat/java GroupMember) and franz-go (tests/compat/go/groupmember)
members print the same events.

It subscribes to TOPIC in GROUP (classic protocol, librdkafka's default eager
range/roundrobin assignment, auto commit off) and loops: poll, report the
records, commit the next offsets of what it consumed synchronously. Its
revoke callback commits what it consumed before the partitions go.
SIGTERM: leave the loop, close (revoke, commit, LeaveGroup), exit 0.

One JSON line per event on stdout, t = wall-clock seconds:
  started | assigned {parts} | revoked {parts} | lost {parts}
  recs {p, offs}            offsets consumed from partition p in one poll
  commit {offs, ok, err}    offs = {partition: next offset}; ok false = the
                            outcome is unknown (it may still have been applied)
  closed | error {err}

Usage: group_member.py BOOTSTRAP GROUP TOPIC NAME
"""

import json
import signal
import sys
import threading
import time

from confluent_kafka import Consumer, KafkaException, TopicPartition


def emit(ev, **kw):
    print(json.dumps(dict(ev=ev, t=time.time(), **kw)), flush=True)


def main(bootstrap, group, topic, name):
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    consumed = {}  # partition -> next offset, for the partitions held now

    def commit(parts):
        offs = {p: consumed[p] for p in parts if p in consumed}
        if not offs:
            return
        try:
            consumer.commit(offsets=[TopicPartition(topic, p, o) for p, o in offs.items()], asynchronous=False)
            emit("commit", offs=offs, ok=True, err=None)
        except KafkaException as e:
            emit("commit", offs=offs, ok=False, err=str(e))

    def on_assign(c, tps):
        emit("assigned", parts=sorted(tp.partition for tp in tps))

    def on_revoke(c, tps):
        parts = sorted(tp.partition for tp in tps)
        commit(parts)
        for p in parts:
            consumed.pop(p, None)
        emit("revoked", parts=parts)

    def on_lost(c, tps):
        parts = sorted(tp.partition for tp in tps)
        for p in parts:
            consumed.pop(p, None)
        emit("lost", parts=parts)

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "client.id": name,
                         "enable.auto.commit": False, "auto.offset.reset": "earliest",
                         "session.timeout.ms": 6000, "heartbeat.interval.ms": 500,
                         "reconnect.backoff.ms": 20, "reconnect.backoff.max.ms": 500,
                         "retry.backoff.ms": 50, "socket.timeout.ms": 10000})
    consumer.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_lost)
    emit("started")
    while not stop.is_set():
        msgs = [m for m in consumer.consume(num_messages=200, timeout=0.2) if not m.error()]
        if not msgs:
            continue
        by_part = {}
        for m in msgs:
            by_part.setdefault(m.partition(), []).append(m.offset())
        for p, offs in sorted(by_part.items()):
            emit("recs", p=p, offs=offs)
            consumed[p] = offs[-1] + 1
        commit(sorted(by_part))
    consumer.close()
    emit("closed")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit("usage: group_member.py BOOTSTRAP GROUP TOPIC NAME")
    try:
        main(*sys.argv[1:])
    except KafkaException as e:
        emit("error", err=str(e))
        sys.exit(3)
