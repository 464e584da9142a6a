"""The admin listener's web console and the views it reads: /v1/groups, the
message browser (/v1/topics/{t}/partitions/{p}/records) and the embedded
files, checked as JSON and in the system's headless Chromium.

One broker serves the module. A 3-partition topic made through Kafka's API
gets RECORDS gzip-compressed records on partition 0 (keys, headers, one
binary value); a consumer of group GROUP, still a member, reads CONSUMED of
them and commits.

1. test_console_files: / and /console/<file> answer the embedded files with
   their content types; an unknown file is 404, a path escape 400.
2. test_groups_view: /v1/groups names this broker as coordinator and shows
   the group Stable with its member, the member's decoded assignment (all 3
   partitions) and, on partition 0, committed CONSUMED, log end RECORDS and
   lag RECORDS - CONSUMED.
3. test_records_view: the records of partition 0 from an offset, with the
   limit's default and bounds, text and base64 fields, headers, the high
   watermark as the end; bad topic, partition, offset and limit answers.
4. test_console_in_chromium: tests/console/console_check.js (playwright-core
   on Debian's chromium) loads the console without a console error or a
   failed request, sees the topic's partitions and the group's lag > 0; this
   test then consumes everything and commits, and the script sees the lag
   drop to 0, then browses the first records. Screenshots go to
   CONSOLE_SCREENSHOT_DIR (ctest: <build>/Testing/console-screenshots), else
   to a pytest temporary folder; the test prints where.
Needs node, tests/console/node_modules (npm ci) and /usr/bin/chromium
(scripts/install-deps); under CI=true a missing one fails, else it skips.
Spool only (Kafka has no admin HTTP API).
"""

import json
import os
import shutil
import subprocess
import threading
import time

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from admin_http import admin_broker, get, get_json
from harness import missing_tool

HERE = os.path.dirname(os.path.abspath(__file__))
CONSOLE_DIR = os.path.join(HERE, "..", "console")
CHECK_SCRIPT = os.path.join(CONSOLE_DIR, "console_check.js")
PLAYWRIGHT = os.path.join(CONSOLE_DIR, "node_modules", "playwright-core")
CHROMIUM = "/usr/bin/chromium"

TOPIC = "console-orders"
PARTITIONS = 3
GROUP = "console-readers"
RECORDS = 200
CONSUMED = 50
BINARY_AT = 5  # the offset whose value is not UTF-8
BINARY_VALUE = b"\xff\xfe\x00\x01binary"


def value_of(i):
    return BINARY_VALUE if i == BINARY_AT else f"order-{i:04d} é".encode()


@pytest.fixture(scope="module")
def broker():
    b = admin_broker({"group.initial.rebalance.delay.ms": "0"}, name="console")
    yield b
    assert b.stop() == 0, b.log()


@pytest.fixture(scope="module")
def loaded(broker):
    """The topic with RECORDS on partition 0 and a live member of GROUP that
    committed CONSUMED; yields the consumer (closed at the end)."""
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    for f in admin.create_topics([NewTopic(TOPIC, PARTITIONS, 1)]).values():
        f.result(30)
    p = Producer({"bootstrap.servers": broker.bootstrap, "compression.type": "gzip", "linger.ms": 20,
                  "acks": "all"})
    for i in range(RECORDS):
        p.produce(TOPIC, key=f"key-{i}".encode(), value=value_of(i), partition=0,
                  headers=[("trace", f"t{i}".encode()), ("raw", b"\x80")])
    assert p.flush(30) == 0
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": GROUP, "client.id": "console-test-client",
                  "enable.auto.commit": False, "auto.offset.reset": "earliest", "fetch.wait.max.ms": 100,
                  "max.partition.fetch.bytes": 1024})
    c.subscribe([TOPIC])
    got = consume(c, CONSUMED)
    assert got == list(range(CONSUMED)), got
    c.commit(asynchronous=False)
    yield c
    c.close()


def consume(c, n, timeout=60):
    """Offsets of the next n records of partition 0 read by c."""
    got = []
    deadline = time.monotonic() + timeout
    while len(got) < n and time.monotonic() < deadline:
        msgs = c.consume(num_messages=n - len(got), timeout=1)
        for m in msgs:
            assert not m.error(), m.error()
            got.append(m.offset())
    return got


def test_console_files(broker):
    with open(os.path.join(HERE, "..", "..", "console", "index.html"), "rb") as f:
        index = f.read()
    status, body, headers = get(broker, "/")
    assert status == 200 and body == index
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    status, body, headers = get(broker, "/", method="HEAD")
    assert status == 200 and body == b""
    for name, ctype in [("console.js", "text/javascript; charset=utf-8"), ("console.css", "text/css; charset=utf-8"),
                        ("index.html", "text/html; charset=utf-8")]:
        status, body, headers = get(broker, f"/console/{name}")
        assert status == 200 and headers["Content-Type"] == ctype, (name, status, headers)
        with open(os.path.join(HERE, "..", "..", "console", name), "rb") as f:
            assert body == f.read(), name
    for path in ["/console/missing.js", "/console/", "/console/embed_assets.py", "/favicon.ico"]:
        status, body, _ = get(broker, path)
        assert status == 404, (path, status, body)
    for path in ["/console/../CMakeLists.txt", "/console/%2e%2e/CMakeLists.txt", "/console//console.js"]:
        status, _, _ = get(broker, path)
        assert status == 400, (path, status)


def test_groups_view(broker, loaded):
    status, view = get_json(broker, "/v1/groups")
    assert status == 200
    _, cluster = get_json(broker, "/v1/cluster")
    assert view["coordinator"] == cluster["broker_id"]
    assert view["error"] is None
    groups = {g["group_id"]: g for g in view["groups"]}
    assert GROUP in groups, view
    g = groups[GROUP]
    assert g["state"] == "Stable" and g["protocol_type"] == "consumer" and g["protocol"], g
    assert len(g["members"]) == 1, g
    m = g["members"][0]
    assert m["client_id"] == "console-test-client" and m["host"], m
    assert sorted((a["topic"], a["partition"]) for a in m["assignment"]) == [(TOPIC, p) for p in range(PARTITIONS)]
    parts = {(p["topic"], p["partition"]): p for p in g["partitions"]}
    p0 = parts[(TOPIC, 0)]
    assert p0["committed_offset"] == CONSUMED and p0["log_end_offset"] == RECORDS, p0
    assert p0["lag"] == RECORDS - CONSUMED and p0["member_id"] == m["member_id"], p0
    # Assigned, nothing consumed, nothing committed: the lag is unknown.
    for p in range(1, PARTITIONS):
        row = parts[(TOPIC, p)]
        assert row["committed_offset"] is None and row["lag"] is None and row["log_end_offset"] == 0, row
    assert g["total_lag"] == RECORDS - CONSUMED and g["total_lag_complete"] is False


def records(broker, query, topic=TOPIC, partition="0"):
    return get_json(broker, f"/v1/topics/{topic}/partitions/{partition}/records{query}")


def test_records_view(broker, loaded):
    status, page = records(broker, "")
    assert status == 200, page
    assert page["offset"] == 0 and page["limit"] == 20 and page["high_watermark"] == RECORDS
    assert [r["offset"] for r in page["records"]] == list(range(20)) and page["next_offset"] == 20
    r0 = page["records"][0]
    assert r0["key"] == "key-0" and r0["value"] == value_of(0).decode() and "value_encoding" not in r0
    assert r0["timestamp_type"] == "CreateTime" and abs(r0["timestamp"] / 1000 - time.time()) < 600
    assert r0["headers"][0] == {"key": "trace", "key_size": 5, "value": "t0", "value_size": 2}
    assert r0["headers"][1]["value"] == "gA==" and r0["headers"][1]["value_encoding"] == "base64"
    binary = page["records"][BINARY_AT]
    assert binary["value_encoding"] == "base64" and binary["value_size"] == len(BINARY_VALUE)
    import base64
    assert base64.b64decode(binary["value"]) == BINARY_VALUE

    # From an offset inside a batch, up to the high watermark.
    status, page = records(broker, "?offset=137&limit=100")
    assert status == 200 and [r["offset"] for r in page["records"]] == list(range(137, RECORDS)), page["next_offset"]
    assert page["next_offset"] == RECORDS
    status, page = records(broker, f"?offset={RECORDS}")
    assert status == 200 and page["records"] == [] and page["next_offset"] == RECORDS
    status, page = records(broker, "?offset=3&limit=1")
    assert status == 200 and [r["offset"] for r in page["records"]] == [3] and page["next_offset"] == 4

    # An empty partition, led here.
    status, page = records(broker, "", partition="2")
    assert status == 200 and page["records"] == [] and page["high_watermark"] == 0

    for query in [f"?offset={RECORDS + 1}", "?offset=-1", "?offset=abc", "?limit=0", "?limit=101", "?limit=x",
                  "?offset=1e3"]:
        status, err = records(broker, query)
        assert status == 400 and err["error"], (query, status, err)
    status, err = records(broker, f"?offset={RECORDS + 1}")
    assert err["high_watermark"] == RECORDS and err["log_start_offset"] == 0, err
    for topic, partition in [("no-such-topic", "0"), (TOPIC, "3"), ("bad$name", "0")]:
        status, err = records(broker, "", topic=topic, partition=partition)
        assert status == 404 and err["error"], (topic, partition, status, err)
    for partition in ["x", "-1", "99999999999"]:
        status, err = records(broker, "", partition=partition)
        assert status == 400 and err["error"], (partition, status, err)


def screenshot_dir(tmp_path_factory):
    d = os.environ.get("CONSOLE_SCREENSHOT_DIR")
    if d:
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d, exist_ok=True)
        return d
    return str(tmp_path_factory.mktemp("console-screenshots"))


def test_console_in_chromium(broker, loaded, tmp_path_factory):
    node = shutil.which("node")
    if node is None:
        missing_tool("node")
    if not os.path.isdir(PLAYWRIGHT):
        missing_tool("tests/console/node_modules/playwright-core (npm ci in tests/console)")
    if not os.access(CHROMIUM, os.X_OK):
        missing_tool(f"{CHROMIUM} (Debian's chromium package)")
    shots = screenshot_dir(tmp_path_factory)
    print(f"console screenshots: {shots}")
    consumer = loaded
    proc = subprocess.Popen([node, CHECK_SCRIPT, "--url", f"http://127.0.0.1:{broker.admin_port}",
                             "--topic", TOPIC, "--partitions", str(PARTITIONS), "--group", GROUP,
                             "--records", str(RECORDS), "--screenshots", shots],
                            cwd=CONSOLE_DIR, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    stderr = []
    threading.Thread(target=lambda: stderr.extend(proc.stderr), daemon=True).start()
    timer = threading.Timer(300, proc.kill)  # the script's own steps time out well before
    timer.start()
    events = []
    try:
        for line in proc.stdout:
            event = json.loads(line)
            events.append(event)
            print(f"console_check: {line.strip()}")
            if event["event"] == "lag-seen":
                assert event["lag"] == RECORDS - CONSUMED, event
                # Drain the group: read the rest of partition 0 and commit.
                got = consume(consumer, RECORDS - CONSUMED)
                assert got == list(range(CONSUMED, RECORDS)), got
                consumer.commit(asynchronous=False)
                proc.stdin.write("drained\n")
                proc.stdin.flush()
        rc = proc.wait(30)
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    names = [e["event"] for e in events]
    assert rc == 0 and names[-1] == "passed", (rc, events, "".join(stderr)[-4000:])
    for step in ["topic-seen", "lag-seen", "lag-zero", "records-seen"]:
        assert step in names, (step, names)
    first = next(e for e in events if e["event"] == "records-seen")["first"]
    assert first[0] == "0" and first[2] == "key-0" and first[3] == value_of(0).decode(), first
    shots_taken = [e["file"] for e in events if e["event"] == "screenshot"]
    assert len(shots_taken) == 4 and all(os.path.getsize(f) > 10000 for f in shots_taken), shots_taken
    _, view = get_json(broker, "/v1/groups")
    g = next(g for g in view["groups"] if g["group_id"] == GROUP)
    p0 = next(p for p in g["partitions"] if p["topic"] == TOPIC and p["partition"] == 0)
    assert p0["lag"] == 0 and p0["committed_offset"] == RECORDS, p0
