"""TLS listeners (SSL and SASL_SSL) with today's clients, and mTLS principals.

One broker for the module with the harness's PLAINTEXT listener (the tests'
administrator: User:ANONYMOUS is a super user) and five TLS listeners, all on
Kafka's own keys. The certificates come from tls_certs.py (openssl, a fresh
throw-away CA per run, EC P-256):

  SSL        protocol SSL, ssl.client.auth=none; the global stores:
             ssl.keystore.type=PEM with ssl.keystore.location (unencrypted
             PKCS#8 key + chain), ssl.truststore.type=PEM with
             ssl.truststore.location (the CA)
  MTLS       protocol SSL, listener.name.mtls.ssl.client.auth=required and
             listener.name.mtls.ssl.principal.mapping.rules=
             RULE:^CN=([^,]+),.*$/$1/L,DEFAULT
  SASLSSL    protocol SASL_SSL, listener.name.saslssl.sasl.enabled.mechanisms=PLAIN
             and listener.name.saslssl.plain.sasl.jaas.config (users alice and
             bob; alice is a super user), with its own keystore: the PEM file
             whose key is encrypted (listener.name.saslssl.ssl.key.password)
  P12        protocol SSL, client.auth=required, PKCS12 stores
             (listener.name.p12.ssl.keystore.type=PKCS12, .keystore.location,
             .keystore.password, .key.password, .truststore.type=PKCS12,
             .truststore.location, .truststore.password), default principal
             mapping (the whole subject DN)
  WRONGHOST  protocol SSL, listener.name.wronghost.ssl.keystore.location: a
             CA-signed certificate for DNS:wrong.example only

and authorizer.class.name=org.apache.kafka.metadata.authorizer.
StandardAuthorizer (Spool takes Kafka's class names as aliases of its ACL
authorizer), super.users=User:ANONYMOUS;User:alice. Then:

  * confluent-kafka 2.16 (librdkafka) and kafka-python 3 round-trip exact
    records (keys, values, headers, timestamps, offsets; one 300 KB value
    that spans many TLS records) over SSL, and over SASL_SSL with PLAIN; a
    wrong password fails authentication;
  * raw TLS 1.2 and TLS 1.3 connections (Python's ssl) get an ApiVersions
    answer;
  * the clients refuse a server certificate from a CA they do not trust, and
    (endpoint identification https) one whose name does not match;
  * mTLS: the CA-signed client certificate round-trips; no certificate, or
    one from another CA, is refused (on the PEM and the PKCS12 trust store);
  * the principal of a client certificate is what the mapping rules make of
    its subject: User:client-1 from CN=client-1,OU=eng,O=Spool,C=NO,
    User:client-2 (lower case, not User:Client-2) from CN=Client-2,...; with
    the DEFAULT rules of P12 the whole DN; ACLs granted to that principal,
    and only those, let it produce and consume;
  * a plaintext Kafka client on the SSL port fails within a bounded time
    (the broker closes the connection, at most after a TLS alert) and the
    broker serves a good client right after;
  * a truncated ClientHello left hanging, and 200 connections that never
    send a byte, do not stop a good client from round-tripping.

ACLs apply asynchronously on the Kafka peer (the controller's metadata log),
so a test waits until DescribeAcls shows what it granted before relying on it.

Passes against the Apache Kafka 4.4 peer too:
  cd tests/compat/py && SPOOL_TEST_PEER=kafka ../../../build-venv/bin/python -m pytest -q test_tls.py
"""

import socket
import ssl
import struct
import time

import pytest
from kafka import TopicPartition
from confluent_kafka import KafkaError, KafkaException, Producer
from confluent_kafka.admin import (AclBinding, AclBindingFilter, AclOperation, AclPermissionType, AdminClient,
                                   NewTopic, ResourcePatternType, ResourceType)

import ck_util
import harness
import kp3
import tls_certs
from py_common import make_records
from spool_fixtures import listener_address, serve_with_listeners

USERS = {"alice": "alice-secret", "bob": "bob-secret"}
JAAS = ("org.apache.kafka.common.security.plain.PlainLoginModule required "
        + " ".join(f'user_{u}="{p}"' for u, p in USERS.items()) + ";")
MAPPING_RULES = "RULE:^CN=([^,]+),.*$/$1/L,DEFAULT"
LISTENERS = {"SSL": "SSL", "MTLS": "SSL", "SASLSSL": "SASL_SSL", "P12": "SSL", "WRONGHOST": "SSL"}
N = 40            # records per round trip (plus one of BIG bytes)
BIG = 300_000
LOGIN_S = 15      # bound on a client's attempt to get metadata
DEADLINE_S = 30   # bound on waiting for ACLs to apply
ALLOW = AclPermissionType.ALLOW
TOPIC, GROUP, LITERAL = ResourceType.TOPIC, ResourceType.GROUP, ResourcePatternType.LITERAL


@pytest.fixture(scope="module")
def tls(tmp_path_factory):
    return tls_certs.generate(str(tmp_path_factory.mktemp("tls")))


def overrides(tls):
    if tls.truststore_p12 is None:
        harness.missing_tool("keytool (the PKCS12 trust store of the P12 listener)")
    p12 = {"keystore.type": "PKCS12", "keystore.location": tls.server_p12, "keystore.password": tls.store_password,
           "key.password": tls.store_password, "truststore.type": "PKCS12",
           "truststore.location": tls.truststore_p12, "truststore.password": tls.store_password,
           "client.auth": "required"}
    return {
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": tls.server_keystore,
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": tls.ca,
        "ssl.client.auth": "none",
        "listener.name.mtls.ssl.client.auth": "required",
        "listener.name.mtls.ssl.principal.mapping.rules": MAPPING_RULES,
        "listener.name.saslssl.sasl.enabled.mechanisms": "PLAIN",
        "listener.name.saslssl.plain.sasl.jaas.config": JAAS,
        "listener.name.saslssl.ssl.keystore.location": tls.server_keystore_encrypted,
        "listener.name.saslssl.ssl.key.password": tls.key_password,
        **{f"listener.name.p12.ssl.{k}": v for k, v in p12.items()},
        "listener.name.wronghost.ssl.keystore.location": tls.wrong_host_keystore,
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users": "User:ANONYMOUS;User:alice",
    }


@pytest.fixture(scope="module")
def broker(tls):
    """Named `broker` so that conftest's failure hook shows its log."""
    yield from serve_with_listeners("tls", overrides(tls), LISTENERS)


addr = listener_address


def port(b, listener):
    return b.extra_listeners[listener]


# -- client configurations ------------------------------------------------------------------------

def ck_ssl(tls, ca=None, cert=None, **kw):
    """librdkafka over SSL; cert: (cert, key) paths or None. librdkafka 2.x checks
    the broker's name (ssl.endpoint.identification.algorithm=https) by default."""
    c = {"security.protocol": "SSL", "ssl.ca.location": ca or tls.ca}
    if cert:
        c.update({"ssl.certificate.location": cert[0], "ssl.key.location": cert[1]})
    c.update(kw)
    return c


def ck_sasl_ssl(tls, user, password):
    return {"security.protocol": "SASL_SSL", "ssl.ca.location": tls.ca, "sasl.mechanisms": "PLAIN",
            "sasl.username": user, "sasl.password": password}


def client_1(tls):
    return (tls.client_1_cert, tls.client_1_key)


def client_2(tls):
    return (tls.client_2_cert, tls.client_2_key)


def other_client(tls):
    return (tls.other_client_cert, tls.other_client_key)


# -- admin and ACLs ------------------------------------------------------------------------------

def admin(b):
    """The super user's AdminClient (PLAINTEXT, User:ANONYMOUS), kept."""
    if not hasattr(b, "admin_client"):
        b.admin_client = AdminClient({"bootstrap.servers": b.bootstrap})
    return b.admin_client


def create(b, topic):
    for f in admin(b).create_topics([NewTopic(topic, 1, 1)]).values():
        f.result(30)


def acl(rtype, name, principal, op):
    return AclBinding(rtype, name, LITERAL, principal, "*", op, ALLOW)


def key(x):
    return (x.restype.name, x.name, x.resource_pattern_type.name, x.principal, x.host, x.operation.name,
            x.permission_type.name)


def grant(b, *bindings):
    """Creates the bindings and waits until DescribeAcls lists them all."""
    for f in admin(b).create_acls(list(bindings)).values():
        assert f.result(30) is None
    wanted = {key(x) for x in bindings}
    every = AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, None, None, AclOperation.ANY,
                             AclPermissionType.ANY)
    deadline = time.monotonic() + DEADLINE_S
    while True:
        have = {key(x) for x in admin(b).describe_acls(every).result(30)}
        if wanted <= have:
            return
        assert time.monotonic() < deadline, f"ACLs not listed after {DEADLINE_S} s: {wanted - have}"
        time.sleep(0.2)


def grant_topic_and_group(b, principal, topic, group):
    grant(b, *(acl(TOPIC, topic, principal, op) for op in (AclOperation.READ, AclOperation.WRITE,
                                                            AclOperation.DESCRIBE)),
          acl(GROUP, group, principal, AclOperation.READ))


# -- round trips ---------------------------------------------------------------------------------

def records(rnd, n=N):
    """n varied records (py_common) and one of BIG bytes, none with both key and
    value null nor a null header value (kafka-python refuses those)."""
    out = make_records(rnd, n, null_header_values=False, null_key_and_value=False)
    out.append({"key": b"big", "value": rnd.randbytes(BIG), "headers": [("h", b"big")],
                "timestamp": out[-1]["timestamp"] + 7, "partition": None})
    return out


def expected(recs):
    return [(i, r["key"], r["value"], r["headers"], r["timestamp"]) for i, r in enumerate(recs)]


def ck_round_trip(b, bootstrap, topic, conf, rnd, group="compat-no-group", create_topic=True):
    """Produces the records with librdkafka over `conf` and reads them back the
    same way (assign, no commits); asserts offsets, keys, values, headers and
    timestamps exactly."""
    if create_topic:
        create(b, topic)
    recs = records(rnd)
    p = ck_util.producer(bootstrap, acks="all", **conf)
    reports = ck_util.produce_all(p, topic, recs)
    assert [(e, part, off) for e, part, off in reports] == [(None, 0, i) for i in range(len(recs))], reports[:3]
    got = ck_util.consume(bootstrap, topic, expected=len(recs), **dict(conf, **{"group.id": group}))
    assert [(m.offset(), m.key(), m.value(), m.headers() or [], m.timestamp()[1]) for m in got] == expected(recs)


def kp_round_trip(b, bootstrap, topic, conf, rnd):
    create(b, topic)
    recs = records(rnd)
    p = kp3.producer(bootstrap, acks="all", **conf)
    try:
        metas = kp3.produce_all(p, topic, recs, timeout_s=30)
    finally:
        p.close(5)
    assert [(m.partition, m.offset) for m in metas] == [(0, i) for i in range(len(recs))]
    c = kp3.consumer(bootstrap, **conf)
    try:
        tp = TopicPartition(topic, 0)
        c.assign([tp])
        c.seek_to_beginning(tp)
        got = [kp3.to_record(m) for m in kp3.poll_until(c, len(recs), 30, f"{topic} over {conf['security_protocol']}")]
    finally:
        c.close()
    assert [(g["offset"], g["key"], g["value"], g["headers"], g["timestamp"]) for g in got] == expected(recs)


def produce_errors(bootstrap, conf, topic, values):
    """The delivery errors of producing `values` (None per success)."""
    errors = []
    p = Producer(dict(conf, **{"bootstrap.servers": bootstrap, "acks": "all", "message.timeout.ms": 10000}))
    for v in values:
        p.produce(topic, v, partition=0, on_delivery=lambda err, msg: errors.append(err))
    assert p.flush(30) == 0
    return errors


# -- refusals ------------------------------------------------------------------------------------

def login(bootstrap, conf):
    """None once librdkafka got metadata with `conf`, else the errors it
    reported (within LOGIN_S; empty if it reported none). A refused client
    is asked once more, so a refusal is not a one-off."""
    errors = []
    # (a slower reconnect only keeps a refused client's log short)
    p = Producer(dict({"reconnect.backoff.ms": 200, "reconnect.backoff.max.ms": 1000}, **conf,
                      **{"bootstrap.servers": bootstrap}, error_cb=errors.append))
    deadline = time.monotonic() + LOGIN_S
    while not errors and time.monotonic() < deadline:
        try:
            p.list_topics(timeout=1)
            return None
        except KafkaException:
            p.poll(0.2)
    with pytest.raises(KafkaException):
        p.list_topics(timeout=1)
    return errors


def assert_refused_by_client(bootstrap, conf):
    """librdkafka's own certificate check failed: 'certificate verify failed',
    as _SSL or (when the failure surfaces on a read) _TRANSPORT."""
    errors = login(bootstrap, conf)
    assert errors, f"the client accepted the server's certificate ({errors})"
    assert errors[0].code() in (KafkaError._SSL, KafkaError._TRANSPORT), errors
    assert "certificate verify failed" in errors[0].str(), errors


def assert_refused_by_broker(bootstrap, conf):
    """The broker refused the client's certificate: librdkafka reports a TLS
    failure (_SSL during the handshake, or _TRANSPORT when the alert comes
    after a TLS 1.3 client had finished its part) and never gets metadata."""
    errors = login(bootstrap, conf)
    assert errors, f"the broker accepted the client ({errors})"
    codes = {e.code() for e in errors}
    assert codes & {KafkaError._SSL, KafkaError._TRANSPORT}, errors
    assert codes <= {KafkaError._SSL, KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN}, errors


def raw_tls(b, listener, ca, server_hostname, **ctx_kw):
    """A TLS connection with Python's ssl module (verifying against `ca`)."""
    ctx = ssl.create_default_context(cafile=ca)
    for k, v in ctx_kw.items():
        setattr(ctx, k, v)
    sock = socket.create_connection(("127.0.0.1", port(b, listener)), timeout=10)
    try:
        return ctx.wrap_socket(sock, server_hostname=server_hostname)
    except BaseException:
        sock.close()
        raise


def api_versions_v0(correlation_id=7):
    body = struct.pack(">hhih", 18, 0, correlation_id, 8) + b"tls-test"
    return struct.pack(">i", len(body)) + body


def read_exactly(sock, n):
    out = b""
    while len(out) < n:
        chunk = sock.recv(n - len(out))
        if not chunk:
            raise AssertionError(f"connection closed after {len(out)} of {n} bytes")
        out += chunk
    return out


def read_until_closed(sock, timeout_s):
    """Everything the peer sends until it closes (a reset counts as closed);
    raises AssertionError if it is still open after timeout_s."""
    sock.settimeout(0.5)
    data, deadline = b"", time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(4096)
        except socket.timeout:
            continue
        except ConnectionResetError:
            return data
        if not chunk:
            return data
        data += chunk
    raise AssertionError(f"still open after {timeout_s} s (received {data[:16]!r})")


def client_hello():
    """The first flight of a real TLS client (a ClientHello record)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(incoming, outgoing, server_hostname="localhost")
    with pytest.raises(ssl.SSLWantReadError):
        obj.do_handshake()
    hello = outgoing.read()
    assert hello[0] == 0x16 and len(hello) > 100, hello[:8]
    return hello


def only_alert_or_nothing(sock):
    """What the broker did with a connection it may keep or close: "kept"
    (nothing to read), "closed", "reset" or "alert" (a TLS alert record);
    anything else it sent (a Kafka answer, garbage) fails the test."""
    sock.setblocking(False)
    try:
        data = sock.recv(4096)
    except BlockingIOError:
        return "kept"
    except ConnectionResetError:
        return "reset"
    assert data == b"" or data[0] == 0x15, data[:16]
    return "closed" if data == b"" else "alert"


# -- the tests -----------------------------------------------------------------------------------

def test_librdkafka_round_trips_over_ssl(broker, tls, topic, rnd):
    ck_round_trip(broker, addr(broker, "SSL"), topic, ck_ssl(tls), rnd)


def test_librdkafka_checks_the_server_name_by_ip_and_dns_san(broker, tls):
    # Advertised as 127.0.0.1 (IP SAN); bootstrapped through localhost (DNS SAN).
    assert login(f"localhost:{port(broker, 'SSL')}", ck_ssl(tls)) is None
    assert login(addr(broker, "SSL"), ck_ssl(tls, **{"ssl.endpoint.identification.algorithm": "https"})) is None


def test_kafka_python_round_trips_over_ssl(broker, tls, topic, rnd):
    conf = {"security_protocol": "SSL", "ssl_cafile": tls.ca, "ssl_check_hostname": True}
    kp_round_trip(broker, addr(broker, "SSL"), topic, conf, rnd)


@pytest.mark.parametrize("version", ["TLSv1_2", "TLSv1_3"])
def test_raw_tls_connection_gets_api_versions(broker, tls, version):
    v = getattr(ssl.TLSVersion, version)
    s = raw_tls(broker, "SSL", tls.ca, "localhost", minimum_version=v, maximum_version=v)
    try:
        assert s.version() == version.replace("_", ".")
        s.sendall(api_versions_v0(correlation_id=4242))
        (size,) = struct.unpack(">i", read_exactly(s, 4))
        body = read_exactly(s, size)
        corr, err = struct.unpack(">ih", body[:6])
        assert (corr, err) == (4242, 0)
        n = struct.unpack(">i", body[6:10])[0]
        apis = {struct.unpack(">h", body[10 + 6 * i:12 + 6 * i])[0] for i in range(n)}
        assert {0, 1, 3, 18} <= apis, sorted(apis)
    finally:
        s.close()


def test_sasl_ssl_plain_round_trips_and_refuses_a_wrong_password(broker, tls, topic, rnd):
    bootstrap = addr(broker, "SASLSSL")
    ck_round_trip(broker, bootstrap, topic, ck_sasl_ssl(tls, "alice", USERS["alice"]), rnd)
    errors = login(bootstrap, ck_sasl_ssl(tls, "alice", "wrong-password"))
    assert errors and errors[0].code() == KafkaError._AUTHENTICATION, errors
    assert "SASL authentication error" in errors[0].str(), errors[0].str()
    errors = login(bootstrap, ck_sasl_ssl(tls, "nobody", USERS["alice"]))
    assert errors and errors[0].code() == KafkaError._AUTHENTICATION, errors
    # bob logs in (no ACLs, so nothing more than metadata).
    assert login(bootstrap, ck_sasl_ssl(tls, "bob", USERS["bob"])) is None


def test_kafka_python_round_trips_over_sasl_ssl(broker, tls, topic, rnd):
    conf = {"security_protocol": "SASL_SSL", "ssl_cafile": tls.ca, "ssl_check_hostname": True,
            "sasl_mechanism": "PLAIN", "sasl_plain_username": "alice", "sasl_plain_password": USERS["alice"]}
    kp_round_trip(broker, addr(broker, "SASLSSL"), topic, conf, rnd)


def test_client_refuses_an_untrusted_server_certificate(broker, tls):
    assert_refused_by_client(addr(broker, "SSL"), ck_ssl(tls, ca=tls.other_ca))
    with pytest.raises(ssl.SSLCertVerificationError) as e:
        raw_tls(broker, "SSL", tls.other_ca, "localhost").close()
    # 19 X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN (the chain sent ends in the CA, as the
    # keystore has it), 20 X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY (the leaf alone).
    assert e.value.verify_code in (19, 20), e.value


def test_client_refuses_a_server_name_mismatch(broker, tls):
    bootstrap = addr(broker, "WRONGHOST")
    # Trusted (signed by the CA), only the name is wrong: without the check it connects.
    assert login(bootstrap, ck_ssl(tls, **{"ssl.endpoint.identification.algorithm": "none"})) is None
    assert_refused_by_client(bootstrap, ck_ssl(tls, **{"ssl.endpoint.identification.algorithm": "https"}))
    raw_tls(broker, "WRONGHOST", tls.ca, "wrong.example").close()
    with pytest.raises(ssl.SSLCertVerificationError) as e:
        raw_tls(broker, "WRONGHOST", tls.ca, "localhost").close()
    assert e.value.verify_code == 62, e.value  # X509_V_ERR_HOSTNAME_MISMATCH


def test_mtls_needs_a_trusted_client_certificate(broker, tls):
    bootstrap = addr(broker, "MTLS")
    assert login(bootstrap, ck_ssl(tls, cert=client_1(tls))) is None
    assert_refused_by_broker(bootstrap, ck_ssl(tls))
    assert_refused_by_broker(bootstrap, ck_ssl(tls, cert=other_client(tls)))


def test_mtls_principal_follows_the_mapping_rules(broker, tls, topic, rnd):
    """CN=client-1,OU=eng,O=Spool,C=NO is User:client-1 on MTLS: with its ACLs
    it round-trips. CN=Client-2,... is User:client-2 (lower-cased by /L):
    refused with no ACL, still refused with ACLs for User:Client-2, and
    allowed once User:client-2 has them."""
    bootstrap, group = addr(broker, "MTLS"), f"g-{topic}"
    create(broker, topic)
    c1, c2 = ck_ssl(tls, cert=client_1(tls)), ck_ssl(tls, cert=client_2(tls))
    assert [e.code() for e in produce_errors(bootstrap, c1, topic, [b"x"])] == [KafkaError.TOPIC_AUTHORIZATION_FAILED]
    grant_topic_and_group(broker, "User:client-1", topic, group)
    ck_round_trip(broker, bootstrap, topic, c1, rnd, group=group, create_topic=False)

    assert [e.code() for e in produce_errors(bootstrap, c2, topic, [b"x"])] == [KafkaError.TOPIC_AUTHORIZATION_FAILED]
    grant(broker, acl(TOPIC, topic, "User:Client-2", AclOperation.WRITE))
    assert [e.code() for e in produce_errors(bootstrap, c2, topic, [b"x"])] == [KafkaError.TOPIC_AUTHORIZATION_FAILED]
    grant(broker, acl(TOPIC, topic, "User:client-2", AclOperation.WRITE))
    assert produce_errors(bootstrap, c2, topic, [b"from client-2"]) == [None]
    got = ck_util.consume(bootstrap, topic, expected=N + 2, **dict(c1, **{"group.id": group}))
    assert [m.value() for m in got[N + 1:]] == [b"from client-2"]


def test_pkcs12_stores_and_the_default_principal(broker, tls, topic, rnd):
    """P12 serves from the PKCS12 keystore, checks client certificates against
    the PKCS12 trust store, and (DEFAULT rules) names client-1 by its whole
    DN: User:client-1's ACLs do not apply there."""
    bootstrap, group = addr(broker, "P12"), f"g-{topic}"
    create(broker, topic)
    assert_refused_by_broker(bootstrap, ck_ssl(tls))
    assert_refused_by_broker(bootstrap, ck_ssl(tls, cert=other_client(tls)))
    c1 = ck_ssl(tls, cert=client_1(tls))
    grant_topic_and_group(broker, "User:client-1", topic, group)
    assert [e.code() for e in produce_errors(bootstrap, c1, topic, [b"x"])] == [KafkaError.TOPIC_AUTHORIZATION_FAILED]
    grant_topic_and_group(broker, f"User:{tls_certs.CLIENT_1_DN}", topic, group)
    ck_round_trip(broker, bootstrap, topic, c1, rnd, group=group, create_topic=False)


def test_plaintext_client_on_the_ssl_port_fails_quickly(broker, tls, topic, rnd):
    bootstrap = addr(broker, "SSL")
    errors = login(bootstrap, {"security.protocol": "PLAINTEXT"})
    assert errors is not None, "a plaintext client got metadata from the SSL listener"
    assert errors, f"a plaintext client on the SSL port saw no error within {LOGIN_S} s"
    # The raw bytes of a Kafka request: the broker closes the connection, at
    # most after a TLS alert, and never answers it.
    with socket.create_connection(("127.0.0.1", port(broker, "SSL")), timeout=10) as s:
        s.sendall(api_versions_v0())
        data = read_until_closed(s, 10)
    assert data == b"" or data[0] == 0x15, data[:16]
    ck_round_trip(broker, bootstrap, topic, ck_ssl(tls), rnd)


def test_truncated_client_hello_does_not_block_others(broker, tls, topic, rnd):
    hello = client_hello()
    s = socket.create_connection(("127.0.0.1", port(broker, "SSL")), timeout=10)
    try:
        s.sendall(hello[:20])
        time.sleep(0.5)
        ck_round_trip(broker, addr(broker, "SSL"), topic, ck_ssl(tls), rnd)
        print(f"truncated ClientHello: the broker {only_alert_or_nothing(s)} the connection")
    finally:
        s.close()
    assert broker.alive()


def test_silent_connections_do_not_block_others(broker, tls, topic, rnd):
    socks = []
    try:
        for _ in range(200):
            socks.append(socket.create_connection(("127.0.0.1", port(broker, "SSL")), timeout=10))
        ck_round_trip(broker, addr(broker, "SSL"), topic, ck_ssl(tls), rnd)
        outcomes = [only_alert_or_nothing(s) for s in socks]
        print("silent connections: " + ", ".join(f"{outcomes.count(o)} {o}" for o in sorted(set(outcomes))))
    finally:
        for s in socks:
            s.close()
    assert broker.alive()
    # and the listener still takes new connections
    assert login(addr(broker, "SSL"), ck_ssl(tls)) is None
