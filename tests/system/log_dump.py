"""Reads a stopped broker's partition log from disk (Kafka's segment format:
DIR/<topic>-<partition>/<20-digit base offset>.log files of record batches
v2) for the checker's replica comparison: every data record as
(offset, value) and the raw bytes of the whole batches below the high
watermark.

Contract:
  * Only for a broker that is not running (or a copy of its dir): segments are
    read as they are, a torn tail batch (crash) ends the dump of that segment.
  * The high watermark comes from DIR/replication-offset-checkpoint (Kafka's
    checkpoint text: version, count, "topic partition offset" lines) when the
    broker wrote one, else it is the log end (a single node: its HW is its
    fsynced log end). record_replicas cuts all replicas at the highest.
  * Control batches (transaction markers) contribute bytes but no records.
    Compressed batches are decompressed for gzip, snappy, lz4 and zstd when the
    Python module is there (python3-snappy/-lz4/-zstandard are in install-deps).
"""

import gzip
import os
import struct


def read_checkpoint(path):
    """{(topic, partition): offset} of a Kafka offset checkpoint file, {} if absent."""
    try:
        with open(path) as f:
            lines = f.read().split("\n")
    except OSError:
        return {}
    n = int(lines[1])
    out = {}
    for line in lines[2:2 + n]:
        topic, part, off = line.rsplit(" ", 2)
        out[(topic, int(part))] = int(off)
    return out


def _varint(b, pos):
    shift = result = 0
    while True:
        byte = b[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return (result >> 1) ^ -(result & 1), pos
        shift += 7


def _decompress(codec, data):
    if codec == 0:
        return data
    if codec == 1:
        return gzip.decompress(data)
    if codec == 2:
        import snappy
        if data[:8] == b"\x82SNAPPY\x00":  # xerial framing
            out, pos = b"", 16
            while pos < len(data):
                (n,) = struct.unpack_from(">i", data, pos)
                out += snappy.uncompress(data[pos + 4:pos + 4 + n])
                pos += 4 + n
            return out
        return snappy.uncompress(data)
    if codec == 3:
        import lz4.frame
        return lz4.frame.decompress(data)
    if codec == 4:
        import zstandard
        return zstandard.ZstdDecompressor().decompressobj().decompress(data)
    raise ValueError(f"unknown compression codec {codec}")


def parse_batches(data):
    """Yields (base_offset, last_offset, is_control, records, raw) per whole
    batch; records = [(offset, value bytes or None)]."""
    pos = 0
    while pos + 12 <= len(data):
        base, length = struct.unpack_from(">qi", data, pos)
        end = pos + 12 + length
        if length < 49 or end > len(data):
            return  # torn tail
        raw = data[pos:end]
        attrs, last_delta = struct.unpack_from(">hi", raw, 21)
        count = struct.unpack_from(">i", raw, 57)[0]
        control = bool(attrs & 0x20)
        recs = []
        if not control:
            body = _decompress(attrs & 0x07, raw[61:])
            p = 0
            for _ in range(count):
                rlen, p = _varint(body, p)
                q = p + 1  # record attributes
                _ts, q = _varint(body, q)
                odelta, q = _varint(body, q)
                klen, q = _varint(body, q)
                q += max(klen, 0)
                vlen, q = _varint(body, q)
                value = None if vlen < 0 else bytes(body[q:q + vlen])
                recs.append((base + odelta, value))
                p += rlen
        yield base, base + last_delta, control, recs, raw
        pos = end


def dump_partition(log_dir, topic, partition, hw=None):
    """(records [(offset, value str)], raw bytes, hw) of the partition below
    the high watermark (hw None: from the checkpoint, else the log end)."""
    pdir = os.path.join(log_dir, f"{topic}-{partition}")
    if hw is None:
        hw = read_checkpoint(os.path.join(log_dir, "replication-offset-checkpoint")).get((topic, partition))
    segs = sorted(f for f in os.listdir(pdir) if f.endswith(".log")) if os.path.isdir(pdir) else []
    batches = []
    for seg in segs:
        with open(os.path.join(pdir, seg), "rb") as f:
            batches.extend(parse_batches(f.read()))
    if hw is None:
        hw = batches[-1][1] + 1 if batches else 0
    records, chunks = [], []  # joined once: appending to bytes is quadratic (an hour's log: hours)
    for _base, last, _control, recs, braw in batches:
        if last >= hw:
            break
        chunks.append(braw)
        records += [(o, None if v is None else v.decode("utf-8", "replace")) for o, v in recs]
    return records, b"".join(chunks), hw


def record_replicas(history, replicas, topic, partitions, as_bytes=False):
    """Adds each replica's dump of each partition to a checker.History, all
    replicas of a partition cut at one high watermark: the highest any of
    them checkpointed (a follower's checkpoint lags the leader's, but an
    in-sync follower holds every record below the leader's HW), or the
    longest log end where none wrote a checkpoint.
    replicas: {replica id: log dir}; partitions: partition numbers; the
    history's partition key is (topic, partition) as the workload records."""
    for p in partitions:
        dirs = {rid: d for rid, d in replicas.items() if os.path.isdir(os.path.join(d, f"{topic}-{p}"))}
        hws = [dump_partition(d, topic, p)[2] for d in dirs.values()]
        if not hws:
            continue
        hw = max(hws)
        for rid, d in dirs.items():
            records, raw, _ = dump_partition(d, topic, p, hw=hw)
            if as_bytes:
                history.replica(rid, (topic, p), hw, data=raw)
            else:
                history.replica(rid, (topic, p), hw, records=records)
