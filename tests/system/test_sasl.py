"""SASL on a SASL_PLAINTEXT listener (issue 17, Deliver 3): PLAIN in depth,
SCRAM through `spool user scram`.

One broker with two listeners: PLAINTEXT (the harness's) and SASL
(SASL_PLAINTEXT, sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-512, PLAIN users
from listener.name.sasl.plain.sasl.jaas.config, SCRAM users made with the
CLI). Real clients (librdkafka through
confluent-kafka, and kafka-python) and hand-built frames check:

  * the right password connects and round-trips exact messages;
  * a wrong password gets SASL_AUTHENTICATION_FAILED and a closed connection;
  * a client that does not speak SASL, or names an unsupported mechanism,
    is closed (UNSUPPORTED_SASL_MECHANISM first for the latter);
  * frames before authentication are bounded by sasl.server.max.receive.size
    (a claimed 1 GB frame costs nothing), and a garbage token fails cleanly;
  * SaslHandshake v0 with raw tokens (old clients' framing) works;
  * SaslHandshake on a PLAINTEXT listener gets ILLEGAL_SASL_STATE;
  * `spool user scram set|describe|delete` manages a SCRAM-SHA-512 user
    that kafka-python then logs in as (librdkafka no longer can once it is deleted);
  * 1,000 connections (100 on the peer, whose heap cannot hold more) that
    claim a 512 KiB pre-authentication frame and
    stall half-way cost the broker little memory, do not disturb a real
    client, and are closed by connections.max.idle.ms;
  * a failed login is answered only after
    connection.failed.authentication.delay.ms;
  * KIP-368: connections.max.reauth.ms is told as the session lifetime, an
    expired session is closed on its next request, and re-authenticating on
    the same connection keeps it (with the same principal only).

Every test also passes against the Apache Kafka 4.4 peer:
  cd tests/system && SPOOL_TEST_PEER=kafka /usr/bin/python3 -m pytest -q test_sasl.py
"""

import json
import os
import socket
import struct
import subprocess
import tempfile
import time

import kafka
import kafka.errors
import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient

import ck_util
import kafka_wire as w
import sasl_wire as s
from harness import Broker, free_port, spool_bin, status_mb, which_peer
from workload import create_topic

NONE, UNSUPPORTED_SASL_MECHANISM, ILLEGAL_SASL_STATE, SASL_AUTHENTICATION_FAILED = 0, 33, 34, 58
USERS = {"alice": "alice-secret", "bob": "bob-secret"}
JAAS = ("org.apache.kafka.common.security.plain.PlainLoginModule required "
        + " ".join(f'user_{u}="{p}"' for u, p in USERS.items()) + ";")
REAUTH_MS = 3000
MECHS = ["PLAIN", "SCRAM-SHA-512"]
JAAS_SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule required;"


def sasl_broker(**extra):
    port = free_port()
    overrides = {"sasl.enabled.mechanisms": ",".join(MECHS), "listener.name.sasl.plain.sasl.jaas.config": JAAS,
                 "listener.name.sasl.scram-sha-512.sasl.jaas.config": JAAS_SCRAM}
    overrides.update(extra)
    b = Broker(overrides=overrides, extra_listeners={"SASL": port}, listener_protocols={"SASL": "SASL_PLAINTEXT"})
    b.start()
    return b, port


@pytest.fixture(scope="module")
def sasl_node():
    b, port = sasl_broker()
    try:
        yield b, port
    finally:
        b.cleanup()


@pytest.fixture(scope="module")
def reauth_node():
    b, port = sasl_broker(**{"connections.max.reauth.ms": str(REAUTH_MS)})
    try:
        yield b, port
    finally:
        b.cleanup()


def client_conf(port, user="alice", password=None, **kw):
    c = {"bootstrap.servers": f"127.0.0.1:{port}", "security.protocol": "SASL_PLAINTEXT",
         "sasl.mechanisms": "PLAIN", "sasl.username": user,
         "sasl.password": USERS.get(user, "") if password is None else password}
    c.update(kw)
    return c


def authenticated(port, user="alice", password=None, version=1):
    """A socket on the SASL listener after a successful PLAIN exchange (v1)."""
    sock = w.connect(port, timeout=10)
    err, mechs = s.parse_handshake(w.roundtrip(sock, s.handshake(1, "PLAIN")))
    assert (err, mechs) == (NONE, MECHS)
    ans = s.parse_authenticate(w.roundtrip(sock, s.authenticate(2, s.plain_token(user, password or USERS[user]),
                                                                   version)), version)
    assert ans["error"] == NONE, ans
    return sock, ans


def assert_serves(sock, correlation_id=10):
    frame = w.roundtrip(sock, s.metadata_v1(correlation_id))
    assert frame is not None and frame[:4] == correlation_id.to_bytes(4, "big")


def test_right_password_round_trips_with_librdkafka(sasl_node):
    b, port = sasl_node
    topic = "sasl-ck"
    create_topic(b.bootstrap, topic, 1, 1)
    values = [f"v{i}".encode() for i in range(50)]
    p = Producer(client_conf(port, acks="all"))
    for v in values:
        p.produce(topic, v, partition=0)
    assert p.flush(30) == 0
    c = Consumer(client_conf(port, user="bob", **{"group.id": "sasl-g", "auto.offset.reset": "earliest"}))
    try:
        c.subscribe([topic])
        got, deadline = [], time.monotonic() + 60
        while len(got) < len(values) and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None or (m.error() and m.error().code() == KafkaError._PARTITION_EOF):
                continue
            assert m.error() is None, m.error()
            got.append(m.value())
        assert got == values
    finally:
        c.close()


def test_right_password_round_trips_with_kafka_python(sasl_node):
    b, port = sasl_node
    topic = "sasl-kp"
    create_topic(b.bootstrap, topic, 1, 1)
    conf = {"bootstrap_servers": f"127.0.0.1:{port}", "security_protocol": "SASL_PLAINTEXT",
            "sasl_mechanism": "PLAIN", "sasl_plain_username": "bob", "sasl_plain_password": USERS["bob"]}
    p = kafka.KafkaProducer(acks="all", **conf)
    for i in range(20):
        p.send(topic, f"k{i}".encode(), partition=0)
    p.flush(30)
    p.close()
    c = kafka.KafkaConsumer(topic, auto_offset_reset="earliest", consumer_timeout_ms=10000, **conf)
    got = [m.value for m in c]
    c.close()
    assert got == [f"k{i}".encode() for i in range(20)]


def test_wrong_password_fails_and_closes(sasl_node):
    _, port = sasl_node
    sock = w.connect(port, timeout=10)
    with sock:
        assert s.parse_handshake(w.roundtrip(sock, s.handshake(1, "PLAIN"))) == (NONE, MECHS)
        ans = s.parse_authenticate(w.roundtrip(sock, s.authenticate(2, s.plain_token("alice", "wrong"))))
        assert ans["error"] == SASL_AUTHENTICATION_FAILED, ans
        assert ans["message"], ans
        assert w.closed_by_peer(sock)
    # librdkafka reports the failure as an authentication error.
    errors = ck_util.login_errors(client_conf(port, password="wrong"))
    assert any(e.code() == KafkaError._AUTHENTICATION for e in errors), errors


def test_unknown_user_and_mismatched_authzid_fail(sasl_node):
    _, port = sasl_node
    for token in (s.plain_token("mallory", "alice-secret"), s.plain_token("alice", USERS["alice"], authzid="bob")):
        with w.connect(port, timeout=10) as sock:
            assert s.parse_handshake(w.roundtrip(sock, s.handshake(1, "PLAIN")))[0] == NONE
            ans = s.parse_authenticate(w.roundtrip(sock, s.authenticate(2, token)))
            assert ans["error"] == SASL_AUTHENTICATION_FAILED, ans
            assert w.closed_by_peer(sock)


def test_garbage_token_fails_and_closes(sasl_node):
    b, port = sasl_node
    for token in (b"", b"\xff" * 300, b"\0\0\0\0", b"no-separators-at-all"):
        with w.connect(port, timeout=10) as sock:
            assert s.parse_handshake(w.roundtrip(sock, s.handshake(1, "PLAIN")))[0] == NONE
            ans = s.parse_authenticate(w.roundtrip(sock, s.authenticate(2, token)))
            assert ans["error"] == SASL_AUTHENTICATION_FAILED, (token, ans)
            assert w.closed_by_peer(sock)
    sock, _ = authenticated(port)
    with sock:
        assert_serves(sock)


def test_client_without_sasl_is_closed(sasl_node):
    _, port = sasl_node
    with w.connect(port, timeout=10) as sock:
        sock.sendall(s.metadata_v1(1))
        assert w.closed_by_peer(sock)
    errors = []
    a = AdminClient({"bootstrap.servers": f"127.0.0.1:{port}", "error_cb": lambda e: errors.append(e)})
    with pytest.raises(KafkaException):
        a.list_topics(timeout=5)


def test_unsupported_mechanism_is_refused(sasl_node):
    _, port = sasl_node
    with w.connect(port, timeout=10) as sock:
        err, mechs = s.parse_handshake(w.roundtrip(sock, s.handshake(1, "SCRAM-SHA-256")))
        assert (err, mechs) == (UNSUPPORTED_SASL_MECHANISM, MECHS)
        assert w.closed_by_peer(sock)


def test_frames_before_authentication_are_bounded(sasl_node):
    b, port = sasl_node
    # A claimed 1 GB frame, and one just above sasl.server.max.receive.size
    # (524288): closed before anything is read or allocated.
    for size in (1 << 30, 524288 + 1):
        with w.connect(port, timeout=10) as sock:
            sock.sendall(size.to_bytes(4, "big") + b"\0" * 64)
            assert w.closed_by_peer(sock)
    # After authentication, socket.request.max.bytes bounds frames instead:
    # a 600,000-byte message goes through.
    topic = "sasl-big"
    create_topic(b.bootstrap, topic, 1, 1)
    p = Producer(client_conf(port, acks="all", **{"linger.ms": 0}))
    delivered = []
    p.produce(topic, b"x" * 600000, partition=0, on_delivery=lambda err, m: delivered.append(err))
    assert p.flush(30) == 0 and delivered == [None], delivered
    # The broker is unharmed on both listeners.
    sock, _ = authenticated(port, user="bob")
    with sock:
        assert_serves(sock)
    with w.connect(b.port, timeout=10) as plain:
        assert_serves(plain)


def test_handshake_v0_with_raw_tokens(sasl_node):
    _, port = sasl_node
    with w.connect(port, timeout=10) as sock:
        assert s.parse_handshake(w.roundtrip(sock, s.handshake(1, "PLAIN", version=0))) == (NONE, MECHS)
        token = s.plain_token("alice", USERS["alice"])
        sock.sendall(len(token).to_bytes(4, "big") + token)
        assert w.read_frame(sock) == b""  # PLAIN's empty final server message
        assert_serves(sock)
    with w.connect(port, timeout=10) as sock:
        assert s.parse_handshake(w.roundtrip(sock, s.handshake(1, "PLAIN", version=0)))[0] == NONE
        token = s.plain_token("alice", "wrong")
        sock.sendall(len(token).to_bytes(4, "big") + token)
        assert w.closed_by_peer(sock)


def test_sasl_requests_on_a_plaintext_listener_are_illegal(sasl_node):
    b, _ = sasl_node
    with w.connect(b.port, timeout=10) as sock:
        assert s.parse_handshake(w.roundtrip(sock, s.handshake(1, "PLAIN")))[0] == ILLEGAL_SASL_STATE
        ans = s.parse_authenticate(w.roundtrip(sock, s.authenticate(2, s.plain_token("alice", USERS["alice"]))))
        assert ans["error"] == ILLEGAL_SASL_STATE
        assert_serves(sock)


def test_session_lifetime_and_reauthentication(reauth_node):
    _, port = reauth_node
    sock, ans = authenticated(port)
    with sock:
        assert ans["session_lifetime_ms"] == REAUTH_MS
        assert_serves(sock)
        # Re-authenticating (same user) renews the session on this connection.
        assert s.parse_handshake(w.roundtrip(sock, s.handshake(3, "PLAIN"))) == (NONE, MECHS)
        again = s.parse_authenticate(w.roundtrip(sock, s.authenticate(4, s.plain_token("alice", USERS["alice"]))))
        assert again["error"] == NONE and again["session_lifetime_ms"] == REAUTH_MS, again
        assert_serves(sock, 5)
    # A session left to expire is closed on its next request.
    sock, _ = authenticated(port)
    with sock:
        time.sleep(REAUTH_MS / 1000 + 0.5)
        sock.sendall(s.metadata_v1(6))
        assert w.closed_by_peer(sock)
    # Re-authentication may not change the principal.
    sock, _ = authenticated(port)
    with sock:
        assert s.parse_handshake(w.roundtrip(sock, s.handshake(3, "PLAIN")))[0] == NONE
        ans = s.parse_authenticate(w.roundtrip(sock, s.authenticate(4, s.plain_token("bob", USERS["bob"]))))
        assert ans["error"] == SASL_AUTHENTICATION_FAILED, ans
        assert w.closed_by_peer(sock)


def spool_cli(*args):
    r = subprocess.run([spool_bin(), *args], capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


def test_scram_user_through_the_cli(sasl_node):
    b, port = sasl_node
    with tempfile.NamedTemporaryFile("w", delete=False) as f:
        f.write("carol-secret\n")
    try:
        rc, out, err = spool_cli("user", "scram", "set", "--user", "carol", "--mechanism", "SCRAM-SHA-512",
                                 "--password-file", f.name, "--iterations", "4096", "--bootstrap-server", b.bootstrap)
    finally:
        os.unlink(f.name)
    assert rc == 0, err
    rc, out, err = spool_cli("user", "scram", "describe", "--user", "carol", "-o", "json",
                             "--bootstrap-server", b.bootstrap)
    assert rc == 0, err
    assert json.loads(out) == [{"user": "carol", "mechanism": "SCRAM-SHA-512", "iterations": 4096}]
    conf = {"bootstrap.servers": f"127.0.0.1:{port}", "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanisms": "SCRAM-SHA-512", "sasl.username": "carol", "sasl.password": "carol-secret"}
    # kafka-python logs in (librdkafka 2.0's SCRAM repeats its nonce, which
    # Spool accepts as Kafka 3 did, but Kafka 4.4 refuses). Credentials
    # reach the brokers asynchronously in Kafka (and in a Spool cluster):
    # retry for a while.
    kp = {"bootstrap_servers": f"127.0.0.1:{port}", "security_protocol": "SASL_PLAINTEXT",
          "sasl_mechanism": "SCRAM-SHA-512", "sasl_plain_username": "carol", "sasl_plain_password": "carol-secret"}
    deadline = time.monotonic() + 20
    while True:
        try:
            c = kafka.KafkaConsumer(**kp)
            topics = c.topics()
            c.close()
            break
        except kafka.errors.KafkaError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
    assert isinstance(topics, set)
    # A wrong password fails SCRAM on the wire: SASL_AUTHENTICATION_FAILED, closed.
    with w.connect(port, timeout=10) as sock:
        assert s.parse_handshake(w.roundtrip(sock, s.handshake(1, "SCRAM-SHA-512")))[0] == NONE
        ans = s.parse_authenticate(w.roundtrip(sock, s.authenticate(2, b"n,,n=carol,r=abcdefgh")))
        assert ans["error"] == NONE and ans["auth_bytes"].startswith(b"r=abcdefgh"), ans
        nonce = ans["auth_bytes"].split(b",")[0][2:]
        final = b"c=biws,r=" + nonce + b",p=" + b"A" * 86 + b"=="
        ans = s.parse_authenticate(w.roundtrip(sock, s.authenticate(3, final)))
        assert ans["error"] == SASL_AUTHENTICATION_FAILED, ans
        assert w.closed_by_peer(sock)
    # Errors come back as Kafka's: describing an unknown user, deleting twice.
    rc, _, err = spool_cli("user", "scram", "describe", "--user", "nobody", "--bootstrap-server", b.bootstrap)
    assert rc == 1 and "RESOURCE_NOT_FOUND" in err, err
    rc, _, err = spool_cli("user", "scram", "delete", "--user", "carol", "--mechanism", "SCRAM-SHA-512",
                           "--bootstrap-server", b.bootstrap)
    assert rc == 0, err
    rc, _, err = spool_cli("user", "scram", "delete", "--user", "carol", "--mechanism", "SCRAM-SHA-512",
                           "--bootstrap-server", b.bootstrap)
    assert rc == 1 and "RESOURCE_NOT_FOUND" in err, err
    errors = ck_util.login_errors(conf)
    assert any(e.code() == KafkaError._AUTHENTICATION for e in errors), errors


def test_stalled_half_handshakes_are_bounded_and_closed():
    b, port = sasl_broker(**{"connections.max.idle.ms": "4000"})
    try:
        spool = which_peer() is None
        # Kafka allocates each claimed receive buffer whole on its heap, so
        # 1,000 stalled 512 KiB claims exhaust the peer's 512 MB heap and it
        # stops accepting (a difference in Spool's favour: untouched pages
        # of a claimed frame cost it nothing). The peer gets 100.
        STALLED = 1000 if spool else 100
        base = status_mb(b.proc.pid, "VmRSS") if spool else 0
        conns = []
        for _ in range(STALLED):
            c = socket.create_connection(("127.0.0.1", port), timeout=60)
            c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            # A SaslHandshake claiming the largest frame allowed before
            # authentication, of which only the first bytes ever come.
            c.sendall((524288).to_bytes(4, "big") + s.handshake(1, "PLAIN")[4:14])
            conns.append(c)
        time.sleep(0.5)
        if spool:
            grown = status_mb(b.proc.pid, "VmRSS") - base
            print(f"{STALLED} stalled half handshakes: broker RSS grew by {grown:.1f} MB")
            assert grown < 64, f"{STALLED} stalled handshakes cost the broker {grown:.1f} MB"
        # A real client is unaffected.
        sock, _ = authenticated(port)
        with sock:
            assert_serves(sock)
        # connections.max.idle.ms closes every stalled one.
        deadline = time.monotonic() + 30
        for c in conns:
            c.settimeout(max(0.1, deadline - time.monotonic()))
            assert w.closed_by_peer(c), "a stalled handshake was kept past connections.max.idle.ms"
        for c in conns:
            c.close()
        assert b.alive()
    finally:
        b.cleanup()


def test_failed_login_waits_for_the_configured_delay():
    b, port = sasl_broker(**{"connection.failed.authentication.delay.ms": "1500"})
    try:
        with w.connect(port, timeout=20) as sock:
            assert s.parse_handshake(w.roundtrip(sock, s.handshake(1, "PLAIN")))[0] == NONE
            t0 = time.monotonic()
            ans = s.parse_authenticate(w.roundtrip(sock, s.authenticate(2, s.plain_token("alice", "guess"))))
            waited = time.monotonic() - t0
            assert ans["error"] == SASL_AUTHENTICATION_FAILED, ans
            assert waited >= 1.4, f"a failed login was answered after {waited:.2f} s, not the configured 1.5 s"
            assert w.closed_by_peer(sock)
        # A right password is not delayed by it (nothing to wait for but the answer).
        sock, _ = authenticated(port)
        with sock:
            assert_serves(sock)
    finally:
        b.cleanup()
