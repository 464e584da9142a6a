#!/usr/bin/env python3
"""Seeds the fuzz corpora from real client traffic (run by hand; the outputs
are committed, so the fuzz stage of `make test` needs none of this):

    build-venv/bin/python tests/fuzz/capture_traffic.py --spool build/spool

It starts a Spool broker on a scratch log dir behind a recording proxy (the
broker advertises the proxy, so every connection goes through it), runs real
clients against it (kcat, librdkafka through confluent-kafka, kafka-python:
produce with every codec, consume, consumer groups, idempotent and
transactional producers that commit and abort, admin calls), stops the
broker cleanly and writes:

  * corpus/request/<family>/traffic_<Api>_v<N>_<i>: request frames as sent
    (header + body), and traffic_<Api>Response_v<N>_<i>: the answer's body
    behind its request's header (the request fuzzers decode both);
  * corpus/log_recovery, indexes, producer_snapshot, checkpoints: the files
    the broker left in its log dir, with the fuzzers' leading control bytes;
  * corpus/dispatcher/session_<i>: every request of the session in arrival
    order (all connections), as size-prefixed frames in pieces that
    fuzz_dispatcher takes whole;
  * corpus/group_records, txn_records: the keys and values of the records
    in __consumer_offsets and __transaction_state.

A few seeds per API and version (the first ones seen, then distinct bodies),
none above 64 KiB (the fuzzers' -max_len). The family of an API comes from
the table-derived seeds already in corpus/request/<family>/ (run
make_request_corpus first); the flexible versions (for response headers)
from src/protocol/messages/*_request.json. broker_fuzz_corpus_test checks
that every request seed decodes in its family's folder.
"""
import argparse, glob, hashlib, json, os, re, shutil, signal, socket, struct, subprocess, sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(HERE, "corpus")
MAX_SEED = 65536
PER_KIND = 3  # seeds kept per (api, version, request|response)


# ---- protocol facts from the repository -------------------------------------------------

def api_families():
    """api key -> (family folder, api name), from the table-derived seeds (<Api>_v<N>)."""
    out = {}
    for path in glob.glob(os.path.join(CORPUS, "request", "*", "*")):
        name = os.path.basename(path)
        m = re.fullmatch(r"([A-Z][A-Za-z]*?)(Response)?_v\d+", name)
        if not m or m.group(2):
            continue
        with open(path, "rb") as f:
            key = struct.unpack(">h", f.read(2))[0]
        out[key] = (os.path.basename(os.path.dirname(path)), m.group(1))
    if not out:
        sys.exit("no table-derived seeds: run make_request_corpus tests/fuzz/corpus/request first")
    return out


def first_flexible():
    """api key -> first flexible version (None: never), from the message definitions."""
    out = {}
    for path in glob.glob(os.path.join(ROOT, "src", "protocol", "messages", "*_request.json")):
        text = "\n".join(l for l in open(path) if not l.lstrip().startswith("//"))
        d = json.loads(text)
        fv = d.get("flexibleVersions", "none")
        out[d["apiKey"]] = None if fv == "none" else int(fv.rstrip("+"))
    return out


# ---- the recording proxy ----------------------------------------------------------------

class Recorder:
    def __init__(self, families, flexible):
        self.families, self.flexible = families, flexible
        self.lock = threading.Lock()
        self.seeds = {}  # (api, version, kind) -> {digest: frame}
        self.stream = []  # every request frame of every connection, in arrival order

    def _keep(self, api, version, kind, frame):
        if api not in self.families or len(frame) > MAX_SEED:
            return
        with self.lock:
            bucket = self.seeds.setdefault((api, version, kind), {})
            digest = hashlib.sha1(frame).hexdigest()
            if len(bucket) < PER_KIND and digest not in bucket:
                bucket[digest] = frame

    def request(self, frame, conn=0):
        api, version, corr = struct.unpack(">hhi", frame[:8])
        client_len = struct.unpack(">h", frame[8:10])[0]
        header_len = 10 + max(client_len, 0)
        fv = self.flexible.get(api)
        if fv is not None and version >= fv:
            header_len += 1  # tagged fields of header v2: clients send none
        self._keep(api, version, "req", frame)
        with self.lock:
            self.stream.append((conn, frame))
        return corr, (api, version, frame[:header_len])

    def response(self, pending, frame):
        api, version, header = pending
        fv = self.flexible.get(api)
        skip = 4 + (1 if (fv is not None and version >= fv and api != 18) else 0)  # ApiVersions: header v0
        self._keep(api, version, "resp", header + frame[skip:])


def frames(sock_from, sock_to, on_frame):
    buf = b""
    while True:
        try:
            data = sock_from.recv(1 << 16)
        except OSError:
            data = b""
        if not data:
            break
        try:
            sock_to.sendall(data)
        except OSError:
            break
        buf += data
        while len(buf) >= 4:
            n = struct.unpack(">i", buf[:4])[0]
            if len(buf) < 4 + n:
                break
            on_frame(buf[4:4 + n])
            buf = buf[4 + n:]
    for s in (sock_from, sock_to):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def proxy(listener, broker_port, rec):
    conn = 0
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        try:
            upstream = socket.create_connection(("127.0.0.1", broker_port))
        except OSError:  # the broker is stopping
            client.close()
            continue
        pending = {}
        conn += 1

        def on_request(frame, pending=pending, conn=conn):
            corr, info = rec.request(frame, conn)
            pending[corr] = info

        def on_response(frame, pending=pending):
            corr = struct.unpack(">i", frame[:4])[0]
            if corr in pending:
                rec.response(pending.pop(corr), frame)

        threading.Thread(target=frames, args=(client, upstream, on_request), daemon=True).start()
        threading.Thread(target=frames, args=(upstream, client, on_response), daemon=True).start()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---- the clients --------------------------------------------------------------------------

def run(cmd, **kw):
    subprocess.run(cmd, check=True, timeout=60, stdout=subprocess.DEVNULL, **kw)


def workload(bootstrap):
    import confluent_kafka as ck
    from confluent_kafka.admin import AdminClient, NewTopic, NewPartitions, ConfigResource, ConfigEntry, AlterConfigOpType
    from confluent_kafka import TopicPartition as TP

    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic("plain", 2, 1), NewTopic("compacted", 1, 1, config={"cleanup.policy": "compact"}),
                                  NewTopic("txn", 1, 1), NewTopic("doomed", 1, 1)]).values():
        f.result()
    # kcat: every codec, keys and headers.
    for codec in ("none", "gzip", "snappy", "lz4", "zstd"):
        lines = "".join(f"k{i}:{codec}-value-{i}-" + "x" * (i * 7) + "\n" for i in range(20))
        run(["kcat", "-b", bootstrap, "-P", "-t", "plain", "-K:", "-z", codec, "-H", "h=v"], input=lines.encode())
    run(["kcat", "-b", bootstrap, "-C", "-t", "plain", "-e", "-q"])
    run(["kcat", "-b", bootstrap, "-L"])
    # librdkafka: idempotent producer, compacted topic with tombstones.
    p = ck.Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 5})
    for i in range(50):
        p.produce("compacted", key=f"key{i % 7}".encode(), value=None if i % 11 == 0 else f"v{i}".encode())
    p.flush(30)
    # Transactions: one committed with offsets, one aborted.
    tp = ck.Producer({"bootstrap.servers": bootstrap, "transactional.id": "fuzz-txn", "linger.ms": 5})
    tp.init_transactions(30)
    c = ck.Consumer({"bootstrap.servers": bootstrap, "group.id": "fuzz-eos", "auto.offset.reset": "earliest",
                     "enable.auto.commit": False, "isolation.level": "read_committed"})
    c.subscribe(["plain"])
    msgs = []
    deadline = time.time() + 20
    while len(msgs) < 20 and time.time() < deadline:
        m = c.poll(0.5)
        if m is not None and not m.error():
            msgs.append(m)
    tp.begin_transaction()
    for m in msgs:
        tp.produce("txn", key=m.key(), value=m.value())
    tp.send_offsets_to_transaction(c.position(c.assignment()), c.consumer_group_metadata(), 30)
    tp.commit_transaction(30)
    tp.begin_transaction()
    tp.produce("txn", key=b"aborted", value=b"never seen")
    tp.flush(30)
    tp.abort_transaction(30)
    c.close()
    # A group consumer committing offsets, then read_committed consumption.
    g = ck.Consumer({"bootstrap.servers": bootstrap, "group.id": "fuzz-group", "auto.offset.reset": "earliest",
                     "enable.auto.commit": False, "isolation.level": "read_committed"})
    g.subscribe(["plain", "txn"])
    seen, deadline = 0, time.time() + 20
    while seen < 40 and time.time() < deadline:
        m = g.poll(0.5)
        if m is not None and not m.error():
            seen += 1
            if seen % 10 == 0:
                g.commit(asynchronous=False)
    g.committed([TP("plain", 0), TP("plain", 1)], 10)
    g.close()
    # Admin calls.
    admin.create_partitions([NewPartitions("plain", 3)])["plain"].result()
    for f in admin.describe_configs([ConfigResource("topic", "plain"), ConfigResource("broker", "0")]).values():
        f.result()
    for f in admin.incremental_alter_configs([ConfigResource("topic", "plain", incremental_configs=[
            ConfigEntry("retention.ms", "3600000", incremental_operation=AlterConfigOpType.SET)])]).values():
        f.result()
    admin.list_consumer_groups().result()
    for f in admin.describe_consumer_groups(["fuzz-group", "fuzz-eos"]).values():
        f.result()
    admin.describe_cluster().result()
    for f in admin.list_offsets({TP("plain", 0): ck.admin.OffsetSpec.latest(),
                                 TP("plain", 1): ck.admin.OffsetSpec.earliest()}).values():
        f.result()
    for f in admin.delete_records([TP("plain", 0, 3)]).values():
        f.result()
    for f in admin.delete_topics(["doomed"]).values():
        f.result()
    # kafka-python: its own versions of the group and admin APIs.
    import kafka
    from kafka.admin import KafkaAdminClient
    kc = kafka.KafkaConsumer("plain", bootstrap_servers=bootstrap, group_id="fuzz-kp", auto_offset_reset="earliest",
                             consumer_timeout_ms=3000)
    for i, _ in enumerate(kc):
        if i >= 20:
            break
    kc.commit()
    kc.close()
    kp = kafka.KafkaProducer(bootstrap_servers=bootstrap, compression_type="gzip")
    for i in range(10):
        kp.send("plain", key=b"kp", value=b"kafka-python %d" % i)
    kp.flush()
    kp.close()
    ka = KafkaAdminClient(bootstrap_servers=bootstrap)
    attempt(ka.list_groups)
    attempt(ka.describe_groups, ["fuzz-kp"])
    attempt(ka.list_group_offsets, "fuzz-kp")
    attempt(ka.delete_group_offsets, "fuzz-kp", [TP("plain", 0)])
    attempt(ka.describe_log_dirs)
    attempt(ka.describe_producers, [TP("compacted", 0)])
    attempt(ka.describe_topic_partitions, ["plain", "txn"])
    attempt(ka.describe_transactions, ["fuzz-txn"])
    attempt(ka.list_transactions)
    attempt(ka.list_partition_reassignments)
    attempt(ka.describe_cluster)
    attempt(ka.describe_topics, ["plain"])
    attempt(ka.delete_groups, ["fuzz-group"])
    ka.close()


def attempt(fn, *args):
    """Calls an admin method; its traffic is what counts, not its outcome."""
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 - any failure still sent its request
        print(f"{fn.__name__}: {type(e).__name__}: {e}", file=sys.stderr)


# ---- writing the corpora ----------------------------------------------------------------

def write(kind, name, data):
    d = os.path.join(CORPUS, kind)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def write_request_seeds(rec):
    n = 0
    for (api, version, kind), bucket in sorted(rec.seeds.items()):
        family, name = rec.families[api]
        suffix = "Response" if kind == "resp" else ""
        for i, frame in enumerate(bucket.values()):
            write(os.path.join("request", family), f"traffic_{name}{suffix}_v{version}_{i}", frame)
            n += 1
    return n


def write_dispatcher_seeds(rec):
    """fuzz_dispatcher inputs: size-prefixed frames, at most 64 (its limit)
    and 64 KiB each. The whole session in arrival order, cut into pieces;
    and each connection's own requests behind the session's CreateTopics
    (so that the topics they use exist)."""
    def framed(frames):
        out, n = b"", 0
        for frame in frames:
            f = struct.pack(">i", len(frame)) + frame
            if len(out) + len(f) > MAX_SEED or n == 64:
                break
            out, n = out + f, n + 1
        return out

    frames = [f for _, f in rec.stream]
    seeds = []
    while frames:
        piece = framed(frames)
        if not piece:  # a frame above 64 KiB
            frames = frames[1:]
            continue
        seeds.append(piece)
        taken, pos = 0, 0
        while pos < len(piece):
            pos += 4 + struct.unpack(">i", piece[pos:pos + 4])[0]
            taken += 1
        frames = frames[taken:]
    creates = [f for _, f in rec.stream if struct.unpack(">h", f[:2])[0] == 19]
    for conn in sorted({c for c, _ in rec.stream}):
        own = [f for c, f in rec.stream if c == conn]
        seeds.append(framed(creates + own))
    for i, seed in enumerate(dict.fromkeys(seeds)):
        write("dispatcher", f"session_{i:03d}", seed)
    return len(seeds)


def uvarint(b, pos):
    shift = v = 0
    while True:
        c = b[pos]
        pos += 1
        v |= (c & 0x7F) << shift
        if not c & 0x80:
            return v, pos
        shift += 7


def varint(b, pos):
    v, pos = uvarint(b, pos)
    return (v >> 1) ^ -(v & 1), pos


def records_of(segment):
    """(key, value) of every record in the uncompressed data batches of a segment."""
    pos = 0
    while pos + 61 <= len(segment):
        length = struct.unpack(">i", segment[pos + 8:pos + 12])[0]
        batch = segment[pos:pos + 12 + length]
        pos += 12 + length
        attributes = struct.unpack(">h", batch[21:23])[0]
        if attributes & 0x07 or attributes & 0x20:  # compressed or control
            continue
        count = struct.unpack(">i", batch[57:61])[0]
        p = 61
        for _ in range(count):
            _, p = varint(batch, p)  # record length
            p += 1  # attributes
            _, p = varint(batch, p)  # timestamp delta
            _, p = varint(batch, p)  # offset delta
            klen, p = varint(batch, p)
            key = batch[p:p + klen] if klen >= 0 else None
            p += max(klen, 0)
            vlen, p = varint(batch, p)
            value = batch[p:p + vlen] if vlen >= 0 else None
            p += max(vlen, 0)
            headers, p = varint(batch, p)
            for _ in range(headers):
                hk, p = varint(batch, p)
                p += hk
                hv, p = varint(batch, p)
                p += max(hv, 0)
            yield key, value


def harvest(data_dir):
    counts = {}

    def put(kind, name, data):
        if len(data) <= MAX_SEED:
            write(kind, name, data)
            counts[kind] = counts.get(kind, 0) + 1

    parts = sorted(d for d in os.listdir(data_dir) if os.path.isdir(os.path.join(data_dir, d)))
    seen_records = {"group_records": set(), "txn_records": set()}
    for part in parts:
        pdir = os.path.join(data_dir, part)
        logs = sorted(glob.glob(os.path.join(pdir, "*.log")))
        if not logs or all(os.path.getsize(l) == 0 for l in logs):
            continue
        seg = open(logs[0], "rb").read()
        internal = part.startswith("__consumer_offsets") or part.startswith("__transaction_state")
        if internal:
            kind = "group_records" if part.startswith("__consumer_offsets") else "txn_records"
            for key, value in records_of(seg):
                for blob in (key, value):
                    if blob and blob not in seen_records[kind] and len(seen_records[kind]) < 40:
                        seen_records[kind].add(blob)
                        put(kind, hashlib.sha1(blob).hexdigest()[:16], blob)
        # Recovery: the segment as is, and with CRCs patched (flag 1), and split in two (flag 2).
        put("log_recovery", f"{part}_seg", b"\x00\x00" + seg[:MAX_SEED - 2])
        put("log_recovery", f"{part}_split", b"\x02\x80" + seg[:MAX_SEED - 2])
        size = len(seg)
        params = struct.pack(">BBBBBBBB", 0, 0, (size >> 16) & 0xFF, (size >> 8) & 0xFF, size & 0xFF, 255, 0, 10)
        base = os.path.splitext(logs[0])[0]
        for sel, ext in ((0, ".index"), (1, ".timeindex"), (2, ".txnindex")):
            if os.path.exists(base + ext) and os.path.getsize(base + ext) > 0:
                put("indexes", f"{part}{ext}", bytes([sel]) + params + open(base + ext, "rb").read())
        for snap in glob.glob(os.path.join(pdir, "*.snapshot")):
            put("producer_snapshot", f"{part}_{os.path.basename(snap)}", b"\x00" + open(snap, "rb").read())
        for sel, fname in ((1, "leader-epoch-checkpoint"), (2, "partition.metadata")):
            path = os.path.join(pdir, fname)
            if os.path.exists(path):
                put("checkpoints", f"{part}_{fname}", bytes([sel]) + open(path, "rb").read())
        put("checkpoints", f"dirname_{part}", b"\x04" + part.encode())
    for sel, fname in ((0, "recovery-point-offset-checkpoint"), (0, "log-start-offset-checkpoint"),
                       (0, "replication-offset-checkpoint"), (3, "meta.properties")):
        path = os.path.join(data_dir, fname)
        if os.path.exists(path):
            put("checkpoints", fname, bytes([sel]) + open(path, "rb").read())
    return counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spool", default=os.path.join(ROOT, "build", "spool"))
    ap.add_argument("--keep", action="store_true", help="keep the scratch dir (broker log, data)")
    args = ap.parse_args()
    rec = Recorder(api_families(), first_flexible())
    tmp = tempfile.mkdtemp(prefix="spool-capture-")
    data_dir = os.path.join(tmp, "data")
    broker_port, proxy_port = free_port(), free_port()
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", proxy_port))
    listener.listen(64)
    threading.Thread(target=proxy, args=(listener, broker_port, rec), daemon=True).start()
    log = open(os.path.join(tmp, "broker.log"), "w")
    broker = subprocess.Popen([args.spool, "broker",
                               "--override", f"listeners=PLAINTEXT://127.0.0.1:{broker_port}",
                               "--override", f"advertised.listeners=PLAINTEXT://127.0.0.1:{proxy_port}",
                               "--override", f"log.dirs={data_dir}",
                               "--override", "offsets.topic.num.partitions=2",
                               "--override", "transaction.state.log.num.partitions=2",
                               "--override", "log.index.interval.bytes=128"],  # index entries to harvest
                              stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", broker_port), timeout=0.2).close()
                break
            except OSError:
                if time.time() > deadline or broker.poll() is not None:
                    sys.exit(f"broker did not start; see {tmp}/broker.log")
                time.sleep(0.1)
        workload(f"127.0.0.1:{proxy_port}")
    finally:
        broker.send_signal(signal.SIGTERM)
        broker.wait(30)
        listener.close()
    print(f"{write_request_seeds(rec)} request seeds, {write_dispatcher_seeds(rec)} dispatcher seeds")
    print(harvest(data_dir))
    if args.keep:
        print(f"kept {tmp}")
    else:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
