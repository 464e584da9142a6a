"""Unclean leader election (issue 13): a partition whose only ISR member dies.

Two brokers, RF=2, min.insync.replicas=1. The follower dies, the ISR shrinks
to the leader, more writes are acknowledged by the leader alone, then the
leader dies too and the follower comes back (not in the ISR).
- unclean.leader.election.enable=false: the partition stays offline (no
  leader) while only the stale follower is up; once the old leader returns it
  leads again and every acknowledged write is there.
- unclean.leader.election.enable=true: the stale follower becomes leader
  (the partition comes back; the writes only the dead leader had are lost,
  as Kafka documents for unclean election).
"""

import time

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

from cluster import _wait
from workload import create_topic

SESSION_MS = 4000


def _produce(bootstrap, topic, n, tag):
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
                  "message.timeout.ms": 20000})
    acked = []
    for i in range(n):
        p.produce(topic, value=f"{tag}-{i}".encode(), partition=0,
                  on_delivery=lambda err, msg: acked.append(msg.value().decode()) if err is None else None)
    p.flush(30)
    return acked


def _consume_all(bootstrap, topic, expect, timeout=30):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"g-{time.monotonic_ns()}",
                  "auto.offset.reset": "earliest", "enable.auto.commit": False,
                  "isolation.level": "read_committed"})
    c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])  # no group: __consumer_offsets needs RF 3
    got = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and len(got) < expect:
        m = c.poll(0.5)
        if m is not None and m.error() is None:
            got.append(m.value().decode())
    c.close()
    return got


def _isr(c, topic, i=None):
    md = c.metadata(i, [topic])
    return sorted(md["Topics"][0]["Partitions"][0]["IsrNodes"])


def _scenario(cluster_factory, topic, unclean):
    c = cluster_factory(n=2, overrides={"min.insync.replicas": "1"}, session_timeout_ms=SESSION_MS)
    create_topic(c.bootstrap, topic, 1, 2,
                 {"min.insync.replicas": "1", "unclean.leader.election.enable": str(unclean).lower()})
    first = _produce(c.bootstrap, topic, 50, "a")
    assert len(first) == 50
    leader = c.leader_of(topic, 0)
    follower = 1 - leader
    c.kill9(follower)
    assert _wait(lambda: _isr(c, topic, leader) == [leader], SESSION_MS / 1000 + 20, 0.5), _isr(c, topic, leader)
    second = _produce(c.bootstrap, topic, 50, "b")
    assert len(second) == 50
    c.kill9(leader)
    c.brokers[follower].spawn()
    c.brokers[follower].wait_port()
    if not unclean:
        time.sleep(SESSION_MS / 1000 + 6)  # the old leader's session is gone; the controller had its chance
        assert c.leader_of(topic, 0, follower) == -1
        c.brokers[leader].spawn()
        c.brokers[leader].wait_port()
        assert _wait(lambda: c.leader_of(topic, 0, follower) == leader, 30, 0.5)
        got = _consume_all(c.bootstrap, topic, 100)
        assert set(first + second) <= set(got), f"lost: {sorted(set(first + second) - set(got))[:10]}"
    else:
        assert _wait(lambda: c.leader_of(topic, 0, follower) == follower, SESSION_MS / 1000 + 20, 0.5)
        assert "elected leader uncleanly" in c.log(follower) or "may be lost" in c.log(follower)
        more = _produce(c.bootstrap, topic, 10, "c")
        assert len(more) == 10  # the partition is back


def test_unclean_off_stays_offline_and_loses_nothing(cluster_factory, topic):
    _scenario(cluster_factory, topic, unclean=False)


def test_unclean_on_comes_back(cluster_factory, topic):
    _scenario(cluster_factory, topic, unclean=True)
