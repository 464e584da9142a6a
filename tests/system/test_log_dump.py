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
