"""The admin listener's transport and its start (issue 19), on real broker
processes:

  * https:// admin.listener on Kafka's broker-wide ssl.* keys (certificates
    from tests/compat/py/tls_certs.py, a throw-away CA per run): Python's ssl
    client trusting the CA gets /v1/health, /v1/ready and a /metrics page
    prometheus_client parses, naming the topic a librdkafka producer just
    wrote to; plain HTTP sent to the TLS port gets no HTTP answer; a client
    trusting another CA fails verification; the broker serves Kafka
    throughout.
  * ssl.client.auth=required: a client without a certificate gets no HTTP
    answer; client-1's certificate gets 200.
  * start phases: the listener answers before the logs are recovered. After a
    kill -9 with PARTITIONS partitions, the restarted broker is polled from
    the moment it is started: /v1/health answers 200 whenever the listener
    answers, /v1/ready answers 503 naming a start phase ("starting: ...")
    at least once, and its first 200 comes only once the Kafka listener
    accepts; a Metadata request then names every partition.
"""

import os
import socket
import ssl
import time
import urllib.error
import urllib.request

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from prometheus_client.parser import text_string_to_metric_families

from harness import Broker, free_port, port_accepts, tls_certs

PARTITIONS = 300


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return tls_certs(str(tmp_path_factory.mktemp("tls")))


def tls_broker(certs, client_auth="none"):
    admin_port = free_port()
    b = Broker(overrides={
        "admin.listener": f"https://127.0.0.1:{admin_port}",
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": certs("server-keystore.pem"),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": certs("ca.pem"),
        "ssl.client.auth": client_auth,
    }, name=f"admin-tls-{client_auth}")
    b.admin_port = admin_port
    return b.start()


def https_get(b, path, ca, cert=None):
    ctx = ssl.create_default_context(cafile=ca)
    if cert:
        ctx.load_cert_chain(cert[0], cert[1])
    req = urllib.request.Request(f"https://localhost:{b.admin_port}{path}")
    try:
        with urllib.request.urlopen(req, timeout=10, context=ctx) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def raw_answer(port, data, timeout=10):
    """What a plain TCP client gets back for `data` before the close."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        out = b""
        try:
            while chunk := s.recv(4096):
                out += chunk
        except (ConnectionResetError, socket.timeout):
            pass
        return out


def test_https_admin_listener(certs):
    b = tls_broker(certs)
    try:
        p = Producer({"bootstrap.servers": b.bootstrap})
        for i in range(10):
            p.produce("tls-admin", value=f"v{i}".encode())
        assert p.flush(30) == 0
        status, body = https_get(b, "/v1/health", certs("ca.pem"))
        assert status == 200 and b'"live"' in body, body
        status, body = https_get(b, "/v1/ready", certs("ca.pem"))
        assert status == 200, body
        status, body = https_get(b, "/metrics", certs("ca.pem"))
        assert status == 200
        messages = {s.labels.get("topic"): s.value
                    for f in text_string_to_metric_families(body.decode())
                    for s in f.samples if s.name == "kafka_server_brokertopicmetrics_messagesin_total"}
        assert messages.get("tls-admin") == 10, messages
        # Plain HTTP on the TLS port: no HTTP answer, the broker unaffected.
        assert not raw_answer(b.admin_port, b"GET /v1/health HTTP/1.1\r\nHost: h\r\n\r\n").startswith(b"HTTP/")
        # A client that trusts another CA refuses the server.
        with pytest.raises(urllib.error.URLError) as refused:
            https_get(b, "/v1/health", certs("other-ca.pem"))
        assert isinstance(refused.value.reason, ssl.SSLCertVerificationError), refused.value
        status, _ = https_get(b, "/v1/health", certs("ca.pem"))
        assert status == 200
        assert b.alive()
    finally:
        b.cleanup()


def test_https_admin_listener_with_required_client_certificates(certs):
    b = tls_broker(certs, client_auth="required")
    try:
        with pytest.raises((urllib.error.URLError, ssl.SSLError, ConnectionError)):
            https_get(b, "/v1/health", certs("ca.pem"))
        status, body = https_get(b, "/v1/health", certs("ca.pem"), cert=(certs("client-1.pem"), certs("client-1.key")))
        assert status == 200, body
        assert b.alive()
    finally:
        b.cleanup()


def poll(url, timeout=2):
    """(status, body) of a GET, or None when nothing listens."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except (urllib.error.URLError, ConnectionError, socket.timeout):
        return None


def test_probes_answer_while_the_logs_recover():
    admin_port = free_port()
    b = Broker(overrides={"admin.listener": f"http://127.0.0.1:{admin_port}"}, name="admin-phases")
    b.start()
    try:
        admin = AdminClient({"bootstrap.servers": b.bootstrap})
        admin.create_topics([NewTopic("many", PARTITIONS, 1)])["many"].result(60)
        p = Producer({"bootstrap.servers": b.bootstrap, "linger.ms": 5})
        for i in range(PARTITIONS * 4):
            p.produce("many", value=b"x" * 100, partition=i % PARTITIONS)
        assert p.flush(60) == 0
        b.kill9()

        base = f"http://127.0.0.1:{admin_port}"
        seen = []  # (health, ready) in order
        b.start(ready=lambda: True)  # returns at once: the process is started
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            health = poll(base + "/v1/health")
            ready = poll(base + "/v1/ready")
            seen.append((health, ready))
            if ready is not None and ready[0] == 200:
                break
            time.sleep(0.002)
        assert seen and seen[-1][1] is not None and seen[-1][1][0] == 200, seen[-5:]
        answered = [s for s in seen if s[0] is not None]
        assert all(h[0] == 200 and '"live"' in h[1] for h, _ in answered), answered[:3]
        starting = [r for _, r in seen if r is not None and r[0] == 503]
        assert starting, f"/v1/ready never answered 503 during the start: {seen[:5]}"
        assert all('"starting: ' in r[1] for r in starting), starting
        # Ready only once the Kafka listener accepts (checked just after).
        assert port_accepts(b.port)
        md = AdminClient({"bootstrap.servers": b.bootstrap}).list_topics("many", timeout=30)
        assert len(md.topics["many"].partitions) == PARTITIONS
        print(f"{len(seen)} polls; {len(starting)} answered 503 with", sorted({r[1].split('"reason": ')[1].split('"')[1]
                                                                               for r in starting}))
    finally:
        b.cleanup()
