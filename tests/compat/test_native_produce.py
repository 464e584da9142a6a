"""`spool produce` (Spool's native producer) against a real broker (Spool, or
the Kafka 4.4 peer under SPOOL_TEST_PEER=kafka): every codec at every acks
level, keys placed on the partitions the Java client's murmur2 picks
(librdkafka's murmur2_random partitioner is the same hash), headers, a fixed
partition, and exit codes for bad arguments and an unreachable broker.
Records are read back with kcat, and the codec x acks matrix also with
`spool consume` (the native consumer)."""

import shutil
import subprocess
import time

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from harness import free_port, missing_tool, spool_bin

KCAT = shutil.which("kcat") or shutil.which("kafkacat")
TIMEOUT_S = 60


@pytest.fixture(autouse=True)
def kcat_installed():
    if KCAT is None:
        missing_tool("kcat")


def create_topic(bootstrap, name, partitions):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(name, num_partitions=partitions, replication_factor=1)])
    futures[name].result(timeout=30)
    # Wait until the metadata shows every partition with a leader.
    deadline = time.time() + 30
    while time.time() < deadline:
        md = admin.list_topics(name, timeout=10).topics.get(name)
        if md and not md.error and len(md.partitions) == partitions and \
                all(p.leader >= 0 for p in md.partitions.values()):
            return
        time.sleep(0.1)
    raise AssertionError(f"topic {name} has no leaders after 30 s")


def spool_produce(bootstrap, topic, lines, *args, expect_rc=0):
    r = subprocess.run([spool_bin(), "produce", topic, "--bootstrap-server", bootstrap, *args],
                       input=("".join(line + "\n" for line in lines)).encode(), capture_output=True,
                       timeout=TIMEOUT_S)
    assert r.returncode == expect_rc, \
        f"spool produce {args} exited {r.returncode} (wanted {expect_rc}): {r.stderr.decode(errors='replace')}"
    return r.stderr.decode(errors="replace")


def kcat_read(bootstrap, topic, fmt, count, partition=None, isolation=None):
    """Reads the topic from the beginning with kcat until `count` lines (or
    30 s): the lines in `fmt`."""
    args = [KCAT, "-b", bootstrap, "-C", "-t", topic, "-o", "beginning", "-e", "-q", "-f", fmt,
            "-X", "socket.timeout.ms=10000"]
    if partition is not None:
        args += ["-p", str(partition)]
    if isolation is not None:
        args += ["-X", f"isolation.level={isolation}"]
    deadline = time.time() + 30
    out = []
    while time.time() < deadline:
        r = subprocess.run(args, capture_output=True, timeout=TIMEOUT_S)
        assert r.returncode == 0, r.stderr.decode(errors="replace")
        out = r.stdout.decode().splitlines()
        if len(out) >= count:
            return out
        time.sleep(0.2)
    return out


@pytest.mark.parametrize("acks", ["0", "1", "all"])
@pytest.mark.parametrize("codec", ["none", "gzip", "snappy", "lz4", "zstd"])
def test_every_codec_and_acks_level(bootstrap, topic, codec, acks):
    create_topic(bootstrap, topic, 1)
    lines = [f"k{i % 7}|value {i} ünïcode {'z' * (i % 40)}" for i in range(300)]
    args = ["--key-separator", "|", "--compression", codec, "--acks", acks]
    if acks != "all":
        args.append("--no-idempotence")
    spool_produce(bootstrap, topic, lines, *args)
    got = kcat_read(bootstrap, topic, "%o %k=%s\n", len(lines), partition=0)
    assert got == [f"{i} {line.replace('|', '=', 1)}" for i, line in enumerate(lines)]
    # The native pair: the same records through `spool consume`.
    r = subprocess.run([spool_bin(), "consume", topic, "--bootstrap-server", bootstrap, "--from-beginning",
                        "--max-messages", str(len(lines)), "--timeout-ms", "30000", "--print-offset", "--print-key"],
                       capture_output=True, timeout=TIMEOUT_S)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    tab = "\t"
    assert r.stdout.decode().splitlines() == [f"Offset:{i}{tab}{line.replace('|', tab, 1)}"
                                              for i, line in enumerate(lines)]


def test_keys_land_where_the_java_client_puts_them(bootstrap, topic):
    """murmur2 of the key, as Java's default partitioner: librdkafka's
    murmur2_random partitioner is Java-compatible, so both placements must
    agree key by key."""
    create_topic(bootstrap, topic, 7)
    keys = [f"user-{i}" for i in range(200)] + ["", "ключ", "a", "ab", "abc", "abcd"]
    spool_produce(bootstrap, topic, [f"{k}\tspool" for k in keys], "--key-separator", "\t")
    p = Producer({"bootstrap.servers": bootstrap, "partitioner": "murmur2_random", "linger.ms": 5})
    for k in keys:
        p.produce(topic, key=k.encode(), value=b"rdkafka")
    assert p.flush(30) == 0
    rows = kcat_read(bootstrap, topic, "%p\t%k\t%s\n", 2 * len(keys))
    placed = {}
    for row in rows:
        part, key, who = row.split("\t")
        placed.setdefault(key, {})[who] = int(part)
    assert len(placed) == len(keys)
    wrong = {k: v for k, v in placed.items() if v.get("spool") != v.get("rdkafka")}
    assert not wrong, f"keys placed differently from the Java-compatible murmur2: {list(wrong.items())[:5]}"
    assert len({v["spool"] for v in placed.values()}) > 3  # the keys spread


def test_headers_partition_and_unkeyed_records(bootstrap, topic):
    create_topic(bootstrap, topic, 3)
    spool_produce(bootstrap, topic, ["one", "two", "three"], "--partition", "2", "--header", "app=spool",
                  "--header", "empty=")
    got = kcat_read(bootstrap, topic, "%p %s %h\n", 3, partition=2)
    assert got == ["2 one app=spool,empty=", "2 two app=spool,empty=", "2 three app=spool,empty="]


def test_sticky_partitioning_spreads_unkeyed_records(bootstrap, topic):
    create_topic(bootstrap, topic, 3)
    lines = [f"{i:05d}" + "x" * 200 for i in range(3000)]
    spool_produce(bootstrap, topic, lines, "--property", "batch.size=2048", "--linger-ms", "0")
    rows = kcat_read(bootstrap, topic, "%p %s\n", len(lines))
    assert sorted(r.split()[1] for r in rows) == sorted(lines)
    per_partition = {}
    for r in rows:
        per_partition.setdefault(r.split()[0], []).append(r.split()[1])
    assert len(per_partition) == 3, f"sticky partitioning stayed on {list(per_partition)}"
    for recs in per_partition.values():
        assert recs == sorted(recs)  # one producer: each partition in send order


def test_missing_key_separator_fails_the_line(bootstrap, topic):
    create_topic(bootstrap, topic, 1)
    err = spool_produce(bootstrap, topic, ["a:1", "no separator", "b:2"], "--key-separator", ":",
                        expect_rc=1)
    assert "line 2" in err and "separator" in err
    assert kcat_read(bootstrap, topic, "%k=%s\n", 2, partition=0) == ["a=1", "b=2"]


@pytest.mark.parametrize("args", [
    ["--compression", "brotli"],
    ["--acks", "2"],
    ["--property", "no-equals-sign"],
    ["--property", "batch.size=-5"],
    ["--property", "enable.idempotence=true", "--acks", "1"],
    ["--header", "=v"],
    ["--partition", "-3"],
])
def test_bad_arguments_exit_2(args):
    r = subprocess.run([spool_bin(), "produce", "t", "--bootstrap-server", "127.0.0.1:1", *args],
                       input=b"x\n", capture_output=True, timeout=TIMEOUT_S)
    assert r.returncode == 2, (args, r.returncode, r.stderr)
    assert r.stderr.strip(), "a usage error says what is wrong"


def test_unreachable_broker_exits_1():
    port = free_port()
    r = subprocess.run([spool_bin(), "produce", "t", "--bootstrap-server", f"127.0.0.1:{port}",
                        "--property", "max.block.ms=1500"],
                       input=b"x\n", capture_output=True, timeout=TIMEOUT_S)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert b"not present in metadata" in r.stderr


def test_transaction_commit_and_abort(bootstrap, topic):
    """--transactional-id: a clean run commits (read_committed sees it); a run
    with a bad line flushes what it sent, then aborts: read_uncommitted sees
    those records, read_committed never does."""
    create_topic(bootstrap, topic, 2)
    txn_id = f"txn-{topic}"
    committed = [f"c{i}:first {i}" for i in range(100)]
    spool_produce(bootstrap, topic, committed, "--key-separator", ":", "--transactional-id", txn_id)
    aborted = [f"a{i}:second {i}" for i in range(50)] + ["no separator"] + ["a99:never sent"]
    err = spool_produce(bootstrap, topic, aborted, "--key-separator", ":", "--transactional-id", txn_id,
                        expect_rc=1)
    assert "aborted" in err, err
    spool_produce(bootstrap, topic, ["z:third"], "--key-separator", ":", "--transactional-id", txn_id)

    seen_committed = kcat_read(bootstrap, topic, "%k=%s\n", 101, isolation="read_committed")
    assert sorted(seen_committed) == sorted([line.replace(":", "=", 1) for line in committed] + ["z=third"])
    seen_all = kcat_read(bootstrap, topic, "%k=%s\n", 151, isolation="read_uncommitted")
    assert sorted(seen_all) == sorted([line.replace(":", "=", 1) for line in committed + aborted[:50]] +
                                      ["z=third"])


def test_idempotent_order_through_dropped_connections():
    """Idempotent produce of 100,000 numbered records to 3 partitions while a
    proxy in front of the broker drops every connection at random moments
    (seeded; SPOOL_DROP_SEED replays). Every record is acknowledged, and the
    log holds each exactly once, in send order per partition: nothing lost,
    duplicated or reordered."""
    import random
    import threading

    from drop_proxy import DropProxy
    from harness import Broker, random_seed

    seed = random_seed("SPOOL_DROP_SEED")
    rng = random.Random(seed)
    proxy_port = free_port()
    proxy = DropProxy(proxy_port)
    # The broker advertises the proxy, so every connection after bootstrap
    # goes through it; the proxy must know the broker's port before the start
    # (the Kafka peer's start checks its advertised address).
    b = Broker(overrides={"advertised.listeners": f"PLAINTEXT://127.0.0.1:{proxy_port}"}, name="drops")
    proxy.upstream_port = b.port
    try:
        b.start(retry_port=False)
        bootstrap = f"127.0.0.1:{proxy_port}"
        topic = f"drops-{seed}"
        create_topic(bootstrap, topic, 3)
        n = 100000
        lines = [f"k{i % 3}:{i:06d}" for i in range(n)]
        stop = threading.Event()

        def dropper():
            while not stop.wait(rng.uniform(0.005, 0.05)):
                proxy.drop_all()

        t = threading.Thread(target=dropper, daemon=True)
        t.start()
        try:
            spool_produce(bootstrap, topic, lines, "--key-separator", ":", "--acks", "all",
                          "--property", "batch.size=1024", "--property", "linger.ms=1",
                          "--property", "max.in.flight.requests.per.connection=5",
                          "--property", "retry.backoff.ms=20", "--property", "reconnect.backoff.ms=10",
                          "--property", "request.timeout.ms=5000")
        finally:
            stop.set()
            t.join()
        print(f"proxy dropped connections {proxy.drops} times ({proxy.accepted} accepted)")
        assert proxy.drops >= 3, "the dropper never hit a connection: the test proved nothing"
        rows = kcat_read(bootstrap, topic, "%p %k %s\n", n)
        by_partition = {}
        for row in rows:
            part, _key, value = row.split()
            by_partition.setdefault(part, []).append(int(value))
        values = sorted(v for p in ("0", "1", "2") for v in by_partition.get(p, []))
        missing = sorted(set(range(n)) - set(values))
        dups = len(values) - len(set(values))
        assert not missing, f"lost {len(missing)} records, e.g. {missing[:10]} (seed {seed})"
        assert dups == 0, f"{dups} duplicated records (seed {seed})"
        for p in ("0", "1", "2"):
            got = by_partition.get(p, [])
            assert got == sorted(got), f"partition {p} out of send order (seed {seed})"
        assert b.stop() == 0, "the broker exited badly on SIGTERM"
    finally:
        proxy.close()
        if b.alive():
            b.kill9()
        b.cleanup()
