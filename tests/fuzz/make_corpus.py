#!/usr/bin/env python3
"""Writes the hand-made seed corpora for the fuzzers (run once; outputs are committed):
record batches for fuzz_batch, and requests with real content (a produce
carrying a record batch, a fetch naming a partition, ...) for the request
fuzzers, into the folder of their API's family (corpus/request/<family>/,
one fuzz_request_<family> target per folder). The one-seed-per-API-and-
version-family request seeds come from the handler table instead:
build/tests/unit/broker/make_request_corpus tests/fuzz/corpus/request
(checked by broker_fuzz_corpus_test); seeds from real clients come from
capture_traffic.py.

Frames are built by hand from the Kafka protocol spec: request header v1
(api_key, api_version, correlation_id, client_id) then the body.
"""
import gzip, os, struct, zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def uvarint(v):
    out = b""
    while v >= 0x80:
        out += bytes([(v & 0x7F) | 0x80]); v >>= 7
    return out + bytes([v])


def varint(v):
    return uvarint((v << 1) ^ (v >> 63))


def record(i, key, value):
    body = b"\x00" + varint(i) + varint(i)  # attributes, timestamp delta, offset delta
    body += varint(len(key)) + key + varint(len(value)) + value + varint(0)
    return varint(len(body)) + body


def batch(records, codec=0):
    recs = b"".join(record(i, k, v) for i, (k, v) in enumerate(records))
    if codec == 1:
        recs = gzip.compress(recs, mtime=0)  # reproducible output
    after_crc = struct.pack(">hiqqqhii", codec, len(records) - 1, 1700000000000, 1700000000000 + len(records) - 1,
                            -1, -1, -1, len(records)) + recs
    crc = crc32c(after_crc)
    rest = struct.pack(">ibI", 0, 2, crc) + after_crc  # leader epoch, magic, crc
    return struct.pack(">qi", 0, len(rest)) + rest


def header(api, ver, corr=1, client=b"fuzz"):
    return struct.pack(">hhih", api, ver, corr, len(client)) + client


def write(kind, name, data):
    d = os.path.join(HERE, "corpus", kind)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


b1 = batch([(b"k1", b"v1"), (b"k2", b"value two")])
b2 = batch([(b"key", b"x" * 100)] * 3, codec=1)
write("batch", "plain", b"\x00" + b1)
write("batch", "gzip", b"\x00" + b2)
write("batch", "two_batches", b"\x00" + b1 + b1)

write("request/admin", "api_versions_v0", header(18, 0))
write("request/admin", "api_versions_v3", header(18, 3) + b"\x00" + b"\x06spool\x040.1\x00")
write("request/admin", "metadata_v1_all", header(3, 1) + struct.pack(">i", -1))
write("request/admin", "metadata_v0_one", header(3, 0) + struct.pack(">ih", 1, 4) + b"demo")
produce = struct.pack(">hhii", -1, 1, 1000, 1) + struct.pack(">h", 4) + b"demo" + struct.pack(">ii", 1, 0)
produce += struct.pack(">i", len(b1)) + b1
write("request/data", "produce_v3", header(0, 3) + produce)
fetch = struct.pack(">iiiib", -1, 100, 1, 1 << 20, 0) + struct.pack(">ih", 1, 4) + b"demo"
fetch += struct.pack(">iiqi", 1, 0, 0, 1 << 20)
write("request/data", "fetch_v4", header(1, 4) + fetch)
lo = struct.pack(">ii", -1, 1) + struct.pack(">h", 4) + b"demo" + struct.pack(">iiq", 1, 0, -1)
write("request/data", "list_offsets_v1", header(2, 1) + lo)
ct = struct.pack(">ih", 1, 4) + b"demo" + struct.pack(">ihii", 3, 1, 0, 0) + struct.pack(">ib", 1000, 0)
write("request/admin", "create_topics_v2", header(19, 2) + ct)
write("request/admin", "delete_topics_v1", header(20, 1) + struct.pack(">ih", 1, 4) + b"demo" + struct.pack(">i", 1000))

# Regression inputs of fuzz_dispatcher (size-prefixed frames).
def framed(*frames):
    return b"".join(struct.pack(">i", len(f)) + f for f in frames)


# CreateTopics v4 of 23297 partitions: the broker ran out of file descriptors
# part way, and the undo rewrote every checkpoint once per partition (hours
# for ~19000 partitions) and left the dir of the partition that failed
# (fixed by LogManager::remove_topic and LogManager::create dropping a new
# dir that did not become a log; see broker_topic_removal_test).
ct_big = struct.pack(">ih", 1, 6) + b"doomed" + struct.pack(">ihii", 23297, 1, 0, 0) + struct.pack(">ib", 30000, 0)
write("dispatcher", "regression_create_topic_out_of_fds", framed(header(19, 4) + ct_big, header(20, 1) + struct.pack(">ih", 1, 6) + b"doomed" + struct.pack(">i", 1000)))
