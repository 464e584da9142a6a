"""log_dump.py on a real broker's segments: records written by librdkafka
with each compression codec (and uncompressed) come back from disk as the
exact (offset, value) list, whole batches only; the checkpoint reader parses
Kafka's checkpoint text; a torn tail batch ends the dump."""

from confluent_kafka import Producer

import log_dump

CODECS = ("none", "gzip", "snappy", "lz4", "zstd")


def test_dump_every_codec(cluster_factory, tmp_path):
    c = cluster_factory(n=1, zookeeper=False)
    want = {}
    for codec in CODECS:
        topic = f"dump-{codec}"
        p = Producer({"bootstrap.servers": c.bootstrap, "acks": "all", "compression.type": codec,
                      "linger.ms": 50, "enable.idempotence": True})
        values = [f"{codec}-{k}" * (1 + k % 3) for k in range(40)]
        for v in values:
            p.produce(topic, v.encode(), partition=0)
        assert p.flush(30) == 0
        want[topic] = list(enumerate(values))
    c.stop(0)
    for i, (topic, recs) in enumerate(want.items()):
        records, raw, hw = log_dump.dump_partition(c.brokers[0].data_dir, topic, 0)
        assert records == recs, topic
        assert hw == 40
        batches = list(log_dump.parse_batches(raw))
        assert b"".join(b[4] for b in batches) == raw and batches[-1][1] == 39
        assert {int.from_bytes(b[4][21:23], "big") & 7 for b in batches} == {i}, "codec on disk"
        # only batches wholly below a lower hw; a torn tail is dropped
        cut = batches[0][1] + 1
        assert log_dump.dump_partition(c.brokers[0].data_dir, topic, 0, hw=cut)[0] == recs[:cut]
        assert [b[0] for b in log_dump.parse_batches(raw[:-1])] == [b[0] for b in batches[:-1]]


def test_read_checkpoint(tmp_path):
    f = tmp_path / "replication-offset-checkpoint"
    f.write_text("0\n2\nmy topic 0 17\nt 3 5\n")
    assert log_dump.read_checkpoint(str(f)) == {("my topic", 0): 17, ("t", 3): 5}
    assert log_dump.read_checkpoint(str(tmp_path / "missing")) == {}


def test_record_replicas_cuts_every_copy_at_the_highest_hw(cluster_factory, tmp_path):
    """Three copies of a real partition dir as three replicas: a lagging
    checkpoint on one copy is fine (cut at the highest HW), a copy missing its
    last batch is replicas-diverge, in records and in bytes."""
    import shutil

    from checker import History, check

    c = cluster_factory(n=1, zookeeper=False)
    p = Producer({"bootstrap.servers": c.bootstrap, "acks": "all", "linger.ms": 0})
    for k in range(30):
        p.produce("rr", f"v{k}".encode(), partition=0)
        p.flush(10)  # one batch per record
    c.stop(0)
    dirs = {}
    for rid in (1, 2, 3):
        d = tmp_path / f"r{rid}"
        shutil.copytree(c.brokers[0].data_dir, d)
        dirs[rid] = str(d)
    (tmp_path / "r1" / "replication-offset-checkpoint").write_text("0\n1\nrr 0 30\n")
    (tmp_path / "r2" / "replication-offset-checkpoint").write_text("0\n1\nrr 0 12\n")  # lagging
    def history():
        h = History()
        for k in range(30):
            h.complete(h.invoke("p", f"v{k}", ("rr", 0), k), "ok", k + 0.5, k)
        return h

    for as_bytes in (False, True):
        h = history()
        log_dump.record_replicas(h, dirs, "rr", [0], as_bytes=as_bytes)
        assert [rl.hw for rl in h.replicas] == [30, 30, 30]
        assert check(h).valid, check(h).describe()
    seg = next((tmp_path / "r3" / "rr-0").glob("*.log"))
    data = seg.read_bytes()
    last = list(log_dump.parse_batches(data))[-1]
    seg.write_bytes(data[:len(data) - len(last[4])])
    def history():
        h = History()
        for k in range(30):
            h.complete(h.invoke("p", f"v{k}", ("rr", 0), k), "ok", k + 0.5, k)
        return h

    for as_bytes in (False, True):
        h = history()
        log_dump.record_replicas(h, dirs, "rr", [0], as_bytes=as_bytes)
        r = check(h)
        assert r.kinds() == {"replicas-diverge"}, r.describe()
    assert r.anomalies["replicas-diverge"][0]["bytes"][3] == len(data) - len(last[4])
