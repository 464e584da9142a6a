"""The admin HTTP listener (issue 19): /metrics read by prometheus_client's
parser, the JSON views against Kafka's Metadata, readiness, and hostile HTTP.

1. test_metrics_count_a_known_produce_and_consume: K produce requests of one
   record each (linger 0, flush per record), then one consumer reads them
   all: messagesin moves by K, bytesin by exactly the bytes the partition's
   log grew (/v1/topics size_bytes), bytesout by exactly those bytes,
   requests_total{Produce} and the count of each request time histogram
   (requestqueue, local, remote, responsesend, total){Produce} by K, and
   the total time's sum is at least the sum of the four parts' sums (total
   is their sum, plus a few instructions); a fetch at an offset past the end
   counts errors{Fetch, OFFSET_OUT_OF_RANGE}; every histogram is well formed
   (cumulative buckets, +Inf = count).
2. test_views_match_metadata: a 3-partition topic made through Kafka's API
   shows in /v1/topics with the partitions, leaders, replicas and ISR that
   Metadata gives; /v1/cluster names the brokers Metadata names; /v1/config
   has the effective values and masks passwords.
3. test_health_and_readiness: health and ready answer 200 while serving; a
   SIGTERM closes the listener with the broker (exit 0).
4. test_hostile_http: oversized headers (431), a slowloris client (408 or a
   close within the header timeout), path traversal (400), a bad method
   (405), a request body (413), garbage (400), many connections (bounded);
   RSS stays bounded and the broker still serves Kafka clients after it all.
   (An https:// admin.listener is refused at start: test_fail_closed.)
5. test_basic_authentication: admin.listener.authentication=basic with SCRAM
   users: probes stay open; no credentials, a Bearer token, a wrong password
   or an unknown user get 401 with WWW-Authenticate; the right password 200
   (a SHA-256 and a SHA-512 user). With an authorizer: a user outside
   super.users gets 403, a super user 200; with authentication none and an
   authorizer everything but the probes is 403 (fail closed).
Spool only (Kafka has no admin HTTP API).
"""

import base64
import os
import socket
import subprocess
import time

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from prometheus_client.parser import text_string_to_metric_families

from admin_http import admin_broker, get, get_json

HEADER_TIMEOUT_S = 10  # http_server.h's header_timeout_ms default
# Kafka's RequestMetrics time split as the JMX exporter names it; total last.
REQUEST_TIMES = ["requestqueuetimems", "localtimems", "remotetimems", "responsesendtimems", "totaltimems"]


@pytest.fixture(scope="module")
def broker():
    b = admin_broker({"num.partitions": "1", "admin.metrics.consumer.lag": "true"}, name="admin-api")
    yield b
    assert b.stop() == 0, b.log()


def scrape(b):
    """{(name, sorted labels tuple): value} of every sample, and the families."""
    status, body, headers = get(b, "/metrics")
    assert status == 200 and headers["Content-Type"].startswith("text/plain; version=0.0.4")
    families = list(text_string_to_metric_families(body.decode()))
    samples = {}
    for f in families:
        for s in f.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples, families


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def local_size(b, topic, partition=0):
    _, topics = get_json(b, "/v1/topics")
    for t in topics["topics"]:
        if t["name"] == topic:
            return t["partitions"][partition]["local"]["size_bytes"]
    raise AssertionError(f"{topic} not in /v1/topics: {topics}")


def create(b, topic, partitions):
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    for f in admin.create_topics([NewTopic(topic, partitions, 1)]).values():
        f.result(30)


def test_metrics_count_a_known_produce_and_consume(broker):
    topic, k = "metered", 25
    create(broker, topic, 1)
    before, _ = scrape(broker)
    size0 = local_size(broker, topic)
    p = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 0, "acks": "all"})
    for i in range(k):
        p.produce(topic, value=f"record-{i:04d}".encode() * 10, partition=0)
        assert p.flush(30) == 0
    grown = local_size(broker, topic) - size0
    assert grown > k * 100, grown
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "metered-reader", "enable.auto.commit": False,
                  "auto.offset.reset": "earliest", "fetch.wait.max.ms": 100})
    c.assign([TopicPartition(topic, 0, 0)])
    got = 0
    deadline = time.monotonic() + 30
    while got < k and time.monotonic() < deadline:
        m = c.poll(1)
        if m is not None and not m.error():
            got += 1
    c.commit(offsets=[TopicPartition(topic, 0, 10)], asynchronous=False)
    c.close()
    assert got == k
    after, families = scrape(broker)

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("kafka_server_brokertopicmetrics_messagesin_total", topic=topic) == k
    assert delta("kafka_server_brokertopicmetrics_messagesin_total") == k  # all topics: nothing else produced
    assert delta("kafka_server_brokertopicmetrics_bytesin_total", topic=topic) == grown
    assert delta("kafka_server_brokertopicmetrics_bytesout_total", topic=topic) == grown
    assert delta("kafka_server_brokertopicmetrics_totalproducerequests_total", topic=topic) == k
    assert delta("kafka_network_requestmetrics_requests_total", request="Produce") == k
    for part in REQUEST_TIMES:
        assert delta(f"kafka_network_requestmetrics_{part}_count", request="Produce") == k, part
    # Per request total = queue + local + remote + send + the instructions
    # between the dispatcher's and net's stamps of the handler's return.
    parts = sum(delta(f"kafka_network_requestmetrics_{p}_sum", request="Produce") for p in REQUEST_TIMES[:-1])
    total = delta("kafka_network_requestmetrics_totaltimems_sum", request="Produce")
    assert total >= parts - 1e-6 and total > 0, (total, parts)
    assert value(after, "kafka_server_replicamanager_leadercount") >= 1
    assert value(after, "kafka_controller_kafkacontroller_activecontrollercount") == 1
    assert value(after, "kafka_server_replicamanager_underreplicatedpartitions") == 0
    assert value(after, "process_open_fds") > 0 and value(after, "process_resident_memory_bytes") > 1e6
    # admin.metrics.consumer.lag: the group committed 10 of k.
    lag = {"consumergroup": "metered-reader", "topic": topic, "partition": "0"}
    assert value(after, "kafka_consumergroup_current_offset", **lag) == 10
    assert value(after, "kafka_consumergroup_lag", **lag) == k - 10

    # Connections per listener: three more open, then closed again.
    socks = [socket.create_connection(("127.0.0.1", broker.port)) for _ in range(3)]
    time.sleep(0.3)
    opened, _ = scrape(broker)
    for s in socks:
        s.close()
    time.sleep(0.5)
    closed, _ = scrape(broker)
    assert value(opened, "kafka_server_socket_server_metrics_connection_count", listener="PLAINTEXT") - \
        value(closed, "kafka_server_socket_server_metrics_connection_count", listener="PLAINTEXT") == 3

    # A fetch past the log end: OFFSET_OUT_OF_RANGE in the Fetch errors.
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "metered-oor", "auto.offset.reset": "error"})
    c.assign([TopicPartition(topic, 0, 10_000)])
    deadline = time.monotonic() + 20
    seen = False
    while not seen and time.monotonic() < deadline:
        m = c.poll(0.5)
        seen = m is not None and m.error() is not None
    c.close()
    assert seen, "the consumer saw no offset error"
    errs, _ = scrape(broker)
    assert value(errs, "kafka_network_requestmetrics_errors_total", request="Fetch",
                 error="OFFSET_OUT_OF_RANGE") >= 1

    histograms = [f for f in families if f.type == "histogram"]
    assert {f.name for f in histograms} >= {f"kafka_network_requestmetrics_{p}" for p in REQUEST_TIMES} | {
        "kafka_log_logflushstats_logflushrateandtimems"}
    for f in histograms:
        series = {}
        for s in f.samples:
            key = tuple(sorted((n, v) for n, v in s.labels.items() if n != "le"))
            series.setdefault(key, {"buckets": [], "count": None, "sum": None})
            if s.name.endswith("_bucket"):
                series[key]["buckets"].append((float(s.labels["le"]), s.value))
            elif s.name.endswith("_count"):
                series[key]["count"] = s.value
            elif s.name.endswith("_sum"):
                series[key]["sum"] = s.value
        for key, h in series.items():
            bounds = [le for le, _ in h["buckets"]]
            counts = [n for _, n in h["buckets"]]
            assert bounds == sorted(bounds) and bounds[-1] == float("inf"), (f.name, key, bounds)
            assert counts == sorted(counts), (f.name, key, counts)
            assert counts[-1] == h["count"] and h["sum"] >= 0, (f.name, key, h)


def test_views_match_metadata(broker):
    topic = "viewed"
    create(broker, topic, 3)
    md = AdminClient({"bootstrap.servers": broker.bootstrap}).list_topics(timeout=10)
    status, topics = get_json(broker, "/v1/topics")
    assert status == 200
    view = {t["name"]: t for t in topics["topics"]}
    assert set(view) >= set(md.topics) - {"__consumer_offsets"}, (sorted(view), sorted(md.topics))
    for name, t in md.topics.items():
        if name not in view:
            continue
        parts = {p["partition"]: p for p in view[name]["partitions"]}
        assert set(parts) == set(t.partitions), name
        for pid, pm in t.partitions.items():
            assert (parts[pid]["leader"], parts[pid]["replicas"], parts[pid]["isr"]) == \
                (pm.leader, list(pm.replicas), list(pm.isrs)), (name, pid)
            assert parts[pid]["local"]["log_end_offset"] >= 0
    status, cluster = get_json(broker, "/v1/cluster")
    assert status == 200
    assert {b["id"] for b in cluster["brokers"]} == set(md.brokers)
    assert cluster["controller_id"] == md.controller_id
    assert cluster["cluster_id"] == md.cluster_id
    for b in cluster["brokers"]:
        ep = b["endpoints"][0]
        assert (ep["host"], ep["port"]) == (md.brokers[b["id"]].host, md.brokers[b["id"]].port), b
    status, config = get_json(broker, "/v1/config")
    assert status == 200
    cfg = {c["name"]: c for c in config["configs"]}
    assert cfg["num.partitions"]["value"] == "1" and cfg["num.partitions"]["source"] == "STATIC_BROKER_CONFIG"
    assert cfg["log.retention.hours"]["source"] == "DEFAULT_CONFIG"
    sensitive = [c for c in config["configs"] if c["sensitive"]]
    assert sensitive and all(c["value"] is None for c in sensitive), sensitive[:3]
    status, missing = get_json(broker, "/v1/nothing-here")
    assert status == 404 and "error" in missing


def test_health_and_readiness():
    b = admin_broker(name="admin-ready")
    try:
        assert get_json(b, "/v1/health") == (200, {"status": "live", "broker_id": 0})
        assert get_json(b, "/v1/ready") == (200, {"status": "ready", "broker_id": 0})
    finally:
        assert b.stop() == 0, b.log()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", b.admin_port), timeout=2).close()


def raw(b, data, read_timeout=5):
    """Sends bytes on a new connection; returns what came back before the
    server closed it (or the read timed out)."""
    s = socket.create_connection(("127.0.0.1", b.admin_port), timeout=read_timeout)
    try:
        s.sendall(data)
        out = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return out
            out += chunk
    except (socket.timeout, ConnectionResetError, BrokenPipeError):
        return out
    finally:
        s.close()


def status_of(reply):
    return int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/1.1 ") else None


def rss(b):
    with open(f"/proc/{b.proc.pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def test_hostile_http(broker):
    rss0 = rss(broker)
    big = b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n"
    for _ in range(20):
        assert status_of(raw(broker, big)) == 431
    assert status_of(raw(broker, b"GET /v1/../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n")) == 400
    assert status_of(raw(broker, b"GET /v1/%2e%2e/x HTTP/1.1\r\nHost: x\r\n\r\n")) == 400
    assert status_of(raw(broker, b"GET //v1/health HTTP/1.1\r\nHost: x\r\n\r\n")) == 400
    assert status_of(raw(broker, b"DELETE /v1/topics HTTP/1.1\r\nHost: x\r\n\r\n")) == 405
    assert status_of(raw(broker, b"POST /v1/topics HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nabcd")) in (405, 413)
    assert status_of(raw(broker, b"GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nabcd")) == 413
    assert status_of(raw(broker, b"\x16\x03\x01\x02\x00garbage\r\n\r\n")) == 400
    # Keep-alive: two requests on one connection, both answered in order.
    two = raw(broker, b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/ready HTTP/1.1\r\nHost: x\r\n"
                      b"Connection: close\r\n\r\n")
    assert two.count(b"HTTP/1.1 200 OK") == 2 and b'"ready"' in two, two
    # Slowloris: a header trickling in is cut off at the header timeout.
    s = socket.create_connection(("127.0.0.1", broker.admin_port), timeout=HEADER_TIMEOUT_S + 10)
    t0 = time.monotonic()
    s.sendall(b"GET /v1/health HTTP/1.1\r\n")
    reply = b""
    try:
        while time.monotonic() - t0 < HEADER_TIMEOUT_S + 8:
            s.sendall(b"X-Slow: 1\r\n")
            s.settimeout(1)
            try:
                chunk = s.recv(4096)
            except socket.timeout:
                continue
            if not chunk:
                break
            reply += chunk
    except (BrokenPipeError, ConnectionResetError):
        pass
    elapsed = time.monotonic() - t0
    s.close()
    assert status_of(reply) in (408, None) and elapsed < HEADER_TIMEOUT_S + 8, (reply[:80], elapsed)
    # Many idle connections: those beyond the limit are closed, the rest time out.
    socks = [socket.create_connection(("127.0.0.1", broker.admin_port)) for _ in range(200)]
    for s in socks:
        s.close()
    assert rss(broker) - rss0 < 64 * 1024 * 1024, (rss0, rss(broker))
    # The broker is unaffected.
    assert get_json(broker, "/v1/health")[0] == 200
    p = Producer({"bootstrap.servers": broker.bootstrap})
    p.produce("after-abuse", value=b"still here")
    assert p.flush(30) == 0


def test_openapi_describes_every_route(broker):
    """docs/admin-api.yaml lists the routes the listener serves: each of its
    paths answers (not 404), and a path it does not list is 404."""
    import yaml
    doc = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "admin-api.yaml")
    with open(doc) as f:
        spec = yaml.safe_load(f)
    for path, ops in spec["paths"].items():
        assert set(ops) == {"get"}, (path, set(ops))
        concrete = path.replace("{topic}", "viewed").replace("{partition}", "0").replace("{file}", "console.js")
        status, _, _ = get(broker, concrete)
        assert status in ops["get"]["responses"] or int(status) in [int(s) for s in ops["get"]["responses"]], \
            (path, status)
    assert get(broker, "/v1/not-in-the-spec")[0] == 404


def basic(user, password):
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def scram_user(b, user, mechanism, password):
    r = subprocess.run([b.bin, "user", "scram", "set", "--user", user, "--mechanism", mechanism, "--password",
                        password, "--bootstrap-server", b.bootstrap], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_basic_authentication():
    b = admin_broker({"admin.listener.authentication": "basic"}, name="admin-basic")
    try:
        scram_user(b, "alice", "SCRAM-SHA-256", "alice-pw")
        scram_user(b, "bob", "SCRAM-SHA-512", "bob-pw")
        assert get(b, "/v1/health")[0] == 200 and get(b, "/v1/ready")[0] == 200
        for headers in ({}, {"Authorization": "Bearer abc.def.ghi"}, basic("alice", "wrong"),
                        basic("mallory", "alice-pw"), {"Authorization": "Basic !!notbase64"}):
            status, body, h = get(b, "/metrics", headers=headers)
            assert status == 401 and h["WWW-Authenticate"].startswith("Basic"), (headers, status, body)
        deadline = time.monotonic() + 10  # the users reach the broker's mirror
        while get(b, "/metrics", headers=basic("alice", "alice-pw"))[0] != 200 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert get(b, "/metrics", headers=basic("alice", "alice-pw"))[0] == 200
        assert get(b, "/v1/topics", headers=basic("bob", "bob-pw"))[0] == 200
        assert "failed authentication of 'mallory'" in b.log()
    finally:
        assert b.stop() == 0, b.log()

    acl = {"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer", "super.users": "User:bob",
           "allow.everyone.if.no.acl.found": "true"}
    b = admin_broker({"admin.listener.authentication": "basic", **acl}, name="admin-basic-acl", log_dir=b.log_dir)
    try:
        deadline = time.monotonic() + 10
        while get(b, "/v1/config", headers=basic("bob", "bob-pw"))[0] != 200 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert get(b, "/v1/config", headers=basic("bob", "bob-pw"))[0] == 200
        status, body, _ = get(b, "/v1/config", headers=basic("alice", "alice-pw"))
        assert status == 403 and b"not a super user" in body, (status, body)
    finally:
        assert b.stop() == 0, b.log()

    b = admin_broker(acl, name="admin-none-acl")
    try:
        assert get(b, "/v1/ready")[0] == 200
        status, body, _ = get(b, "/metrics")
        assert status == 403 and b"admin.listener.authentication=basic" in body, (status, body)
    finally:
        assert b.stop() == 0, b.log()
