"""Log-dir failure and a full disk (issue 15, item 5), on file systems the
test makes (tests/system/disks.py: root needed; skipped without it, a
failure under CI=true).

test_failed_log_dir_moves_its_leaders_and_the_other_dir_serves:
  3 brokers on ZooKeeper, RF=3, min.insync.replicas=2; broker 0 has two log
  dirs, one on ext4 over a loop device whose backing store then fills
  (FailingDisk: the next fsync there fails). An idempotent acks=all workload
  writes to 6 partitions, all led by broker 0, spread over both dirs. Judged:
    - broker 0 reports the dir with KAFKA_STORAGE_ERROR in DescribeLogDirs
      and keeps running;
    - the failed dir's partitions get another leader and list broker 0 as an
      offline replica (the controller acted on /log_dir_event_notification);
    - the other dir's partitions stay led by broker 0 and take writes;
    - the checker: nothing acknowledged lost, duplicated or reordered;
    - after the device is repaired and broker 0 restarts, it rejoins every ISR;
      led by it again (preferred election), every partition reads exactly
      what was read before.
test_full_disk_refuses_writes_keeps_reads_and_recovers:
  one broker whose only log dir is an 8 MB tmpfs. acks=all writes until the
  disk is full: the ones refused get KAFKA_STORAGE_ERROR, every acknowledged
  one reads back once and in order, the dir stays online, a topic created
  meanwhile fails with KAFKA_STORAGE_ERROR and leaves nothing behind; once
  the tmpfs grows, writes, offset commits and that topic's creation work
  without a restart, and a restart keeps everything.

Spool only: Kafka takes a log dir offline on any I/O error, a full disk
included, and halts a broker left without one (README, differences from
Kafka); and the peer harness has one log dir per node.

  cd tests/system && /usr/bin/python3 -m pytest -q -s test_log_dir_failure.py
"""

import time

import pytest

import admin_wire as aw
import kafka_wire as kw
from cluster_fixtures import wait_until
from disks import SmallTmpfs, failing_disk, require_root_mounts  # noqa: F401 (failing_disk: a fixture)
from harness import spool_bin
from workload import Workload

STORAGE_ERROR = 56


def log_dirs(port, topics=None):
    with kw.connect(port, timeout=10) as s:
        _, dirs = aw.parse_describe_log_dirs(kw.roundtrip(s, aw.describe_log_dirs(7, 3, topics)), 7, 3)
    return dirs


def partitions_of(md, topic):
    return {p["PartitionIndex"]: p for t in md["Topics"] if t["Name"] == topic for p in t["Partitions"]}


def read_all(bootstrap, topic, partitions, timeout=60.0):
    """{partition: [(offset, value)]} from offset 0 to each partition's end."""
    from confluent_kafka import Consumer, TopicPartition
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"read-{time.monotonic_ns()}",
                  "enable.auto.commit": False, "isolation.level": "read_committed"})
    try:
        ends = {p: c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in partitions}
        c.assign([TopicPartition(topic, p, 0) for p in partitions])
        out = {p: [] for p in partitions}
        deadline = time.monotonic() + timeout
        while any((out[p][-1][0] + 1 if out[p] else 0) < ends[p] for p in partitions):
            assert time.monotonic() < deadline, f"reading {topic} to {ends}: stuck at {[len(v) for v in out.values()]}"
            m = c.poll(0.5)
            if m is None or m.error():
                continue
            out[m.partition()].append((m.offset(), m.value()))
        return out
    finally:
        c.close()


def test_failed_log_dir_moves_its_leaders_and_the_other_dir_serves(failing_disk, cluster_factory, tmp_path):
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic
    bad_dir = failing_disk.path + "/data"
    c = cluster_factory(3, overrides={"min.insync.replicas": "2", "default.replication.factor": "3",
                                      "offsets.topic.replication.factor": "3",
                                      "auto.leader.rebalance.enable": "false"},
                        broker_overrides={0: {"log.dirs": f"{tmp_path}/b0-good,{bad_dir}"}})
    topic, n = "jbod", 6
    admin = AdminClient({"bootstrap.servers": c.bootstrap})
    for f in admin.create_topics([NewTopic(topic, n, replica_assignment=[[0, 1, 2] if p % 2 else [0, 2, 1]
                                                                         for p in range(n)])]).values():
        f.result(60)
    del admin
    wait_until(lambda: all(
        p["LeaderId"] == 0 and len(p["IsrNodes"]) == 3 for p in partitions_of(c.metadata(0, [topic]), topic).values())
        and len(partitions_of(c.metadata(0, [topic]), topic)) == n, "every partition led by broker 0", 45)
    dirs = log_dirs(c.brokers[0].port)
    on_bad = sorted(p for (t, p) in dirs[bad_dir]["partitions"] if t == topic)
    on_good = sorted(set(range(n)) - set(on_bad))
    print(f"  partitions on the failing dir {on_bad}, on the other {on_good}")
    assert on_bad and on_good, f"both dirs should hold some of {topic}: {dirs}"

    wl = Workload(c.bootstrap, topic, n, rate=200).start()
    assert wl.wait_acked(200, 60) >= 200, wl.errors[-5:]
    failing_disk.fail()
    wait_until(lambda: log_dirs(c.brokers[0].port)[bad_dir]["error"] == STORAGE_ERROR, "the failed dir reported", 45)
    print("  broker 0 reports the dir offline")

    def moved():
        ps = partitions_of(c.metadata(1, [topic]), topic)
        return all(ps[p]["LeaderId"] not in (0, -1) and 0 in ps[p]["OfflineReplicas"] and 0 not in ps[p]["IsrNodes"]
                   for p in on_bad)
    wait_until(moved, "leadership moved off the failed dir", 45)
    ps = partitions_of(c.metadata(1, [topic]), topic)
    for p in on_good:
        assert ps[p]["LeaderId"] == 0 and 0 in ps[p]["IsrNodes"] and not ps[p]["OfflineReplicas"], ps[p]
    assert c.brokers[0].alive(), "broker 0 died"
    acked = wl.acked()
    assert wl.wait_acked(acked + 300, 60) >= acked + 300, wl.errors[-5:]
    wl.stop(timeout=90)
    wl.drain(timeout=90)
    assert wl.history.drained
    res = wl.check()
    assert res.valid, f"{res.describe()}; seed {wl.seed}"
    print(f"  checker: {res.stats}")
    # Every partition, on either dir, takes a write now (after the check: the checker knows only its own values).
    p = Producer({"bootstrap.servers": c.bootstrap, "acks": "all", "enable.idempotence": True})
    results = {}
    for part in range(n):
        p.produce(topic, b"after-failure-%d" % part, partition=part,
                  on_delivery=lambda err, msg: results.__setitem__(msg.partition(), err))
    assert p.flush(60) == 0 and all(results.get(part) is None for part in range(n)), results
    dirs = log_dirs(c.brokers[0].port)
    assert dirs[bad_dir]["error"] == STORAGE_ERROR and not dirs[bad_dir]["partitions"], dirs[bad_dir]
    assert dirs[f"{tmp_path}/b0-good"]["error"] == 0
    assert sorted(p for (t, p) in dirs[f"{tmp_path}/b0-good"]["partitions"] if t == topic) == on_good
    before = read_all(c.bootstrap, topic, range(n))

    # The device works again (repaired while broker 0 is down); broker 0
    # restarts, recovers the dir and catches up.
    c.stop(0)
    failing_disk.repair()
    c.start_broker(0)
    wait_until(lambda: all(0 in p["IsrNodes"] and not p["OfflineReplicas"]
                           for p in partitions_of(c.metadata(1, [topic]), topic).values()),
               "broker 0 back in every ISR", 90)
    assert all(d["error"] == 0 for d in log_dirs(c.brokers[0].port).values())
    import subprocess
    r = subprocess.run([spool_bin(), "cluster", "elect-leaders", "--preferred", "--topic", topic,
                        "--bootstrap-server", c.brokers[1].bootstrap], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    wait_until(lambda: all(
        p["LeaderId"] == 0 for p in partitions_of(c.metadata(1, [topic]), topic).values()), "broker 0 leads again", 45)
    # A new leader learns the high watermark from its followers' fetches
    # (Kafka's too): wait until it covers what was read before.
    from confluent_kafka import Consumer, TopicPartition
    probe = Consumer({"bootstrap.servers": c.bootstrap, "group.id": "hw-probe"})
    wait_until(lambda: all(probe.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1]
                           >= (before[p][-1][0] + 1 if before[p] else 0) for p in range(n)),
               "high watermarks back", 45)
    probe.close()
    after = read_all(c.bootstrap, topic, range(n))
    assert after == before, "broker 0's recovered replicas differ from what was read before the restart"
    print(f"  broker 0 recovered {sum(len(v) for v in after.values())} records on both dirs, byte for byte")


def test_full_disk_refuses_writes_keeps_reads_and_recovers(cluster_factory, tmp_path):
    from confluent_kafka import Consumer, Producer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic
    require_root_mounts()
    with SmallTmpfs(str(tmp_path / "small"), 8) as disk:
        data = disk.path + "/data"
        c = cluster_factory(1, zookeeper=False,
                            broker_overrides={0: {"log.dirs": data, "log.segment.bytes": "1048576"}})
        b = c.brokers[0]
        topic = "full"
        admin = AdminClient({"bootstrap.servers": b.bootstrap})
        for f in admin.create_topics([NewTopic(topic, 1, 1)]).values():
            f.result(30)
        # A group commits before the disk fills (so __consumer_offsets exists).
        cons = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "g", "enable.auto.commit": False})
        cons.commit(offsets=[TopicPartition(topic, 0, 0)], asynchronous=False)

        acked, errors = [], {}

        def on_delivery(err, msg):
            if err is None:
                acked.append((msg.offset(), msg.value()))
            else:
                errors[err.name()] = errors.get(err.name(), 0) + 1

        p = Producer({"bootstrap.servers": b.bootstrap, "acks": "all", "retries": 0, "linger.ms": 5,
                      "batch.size": 65536, "message.timeout.ms": 20000})
        i = 0
        while sum(errors.values()) < 20:
            assert i < 2000, f"8 MB never filled: {len(acked)} acked"
            p.produce(topic, b"%06d-" % i + b"x" * 10000, on_delivery=on_delivery)
            i += 1
            if i % 50 == 0:
                p.flush(30)
        assert p.flush(30) == 0
        print(f"  disk full after {len(acked)} acknowledged writes; refused: {errors}")
        assert len(acked) >= 100 and set(errors) == {"KAFKA_STORAGE_ERROR"}, errors
        assert b.alive(), "the broker died on a full disk"
        # What was acknowledged reads back, once each, in order; the dir is online.
        assert [v for _, v in read_all(b.bootstrap, topic, [0])[0]] == [v for _, v in sorted(acked)]
        assert log_dirs(b.port)[data]["error"] == 0
        # A topic created now fails and leaves nothing behind.
        res = admin.create_topics([NewTopic("while-full", 3, 1)])["while-full"]
        with pytest.raises(Exception) as refused:
            res.result(30)
        assert "KAFKA_STORAGE_ERROR" in str(refused.value), refused.value

        disk.resize(32)  # the space returns
        more = [b"after-%03d" % j for j in range(50)]
        before = len(acked)
        for v in more:
            p.produce(topic, v, on_delivery=on_delivery)
        assert p.flush(30) == 0 and len(acked) == before + 50, errors
        for f in admin.create_topics([NewTopic("while-full", 3, 1)]).values():
            f.result(30)
        cons.commit(offsets=[TopicPartition(topic, 0, 7)], asynchronous=False)
        cons.close()
        c.stop(0)
        c.start_broker(0)
        assert [v for _, v in read_all(b.bootstrap, topic, [0])[0]] == [v for _, v in sorted(acked)]
        cons = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "g"})
        assert cons.committed([TopicPartition(topic, 0)], timeout=30)[0].offset == 7
        cons.close()
        print(f"  after the space returned and a restart: {len(acked)} records, commit kept")
        c.stop(0)  # before the tmpfs goes
