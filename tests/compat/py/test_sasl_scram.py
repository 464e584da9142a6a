"""SASL/SCRAM-SHA-256 and SCRAM-SHA-512 (and PLAIN with KIP-368
re-authentication) with today's clients (issue 17, Deliver 3).

One broker with a PLAINTEXT listener and a SASL_PLAINTEXT one named SASL
enabling PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 with
connections.max.reauth.ms=4000. Users are created and removed through the
Admin API (AlterUserScramCredentials / DescribeUserScramCredentials: the
client salts and hashes, the broker keeps only the derived keys), then:

  * confluent-kafka 2.16 (librdkafka) and kafka-python 3 log in with each
    SCRAM mechanism and round-trip exact messages;
  * a wrong password, a mechanism the user has no credential for, and a
    deleted user all fail authentication;
  * the Admin API's errors: too few or too many iterations
    (UNACCEPTABLE_CREDENTIAL), deleting or describing what does not exist
    (RESOURCE_NOT_FOUND), the same user twice in one request, even for two
    mechanisms (DUPLICATE_RESOURCE, as Kafka 4's controller);
  * librdkafka re-authenticates (KIP-368) on a connection that lives past
    the session lifetime, and keeps consuming.

Passes against the Apache Kafka 4.4 peer too:
  cd tests/compat/py && SPOOL_TEST_PEER=kafka ../../../build-venv/bin/python -m pytest -q test_sasl_scram.py
"""

import time

import kafka
import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import (AdminClient, NewTopic, ScramCredentialInfo, ScramMechanism,
                                   UserScramCredentialDeletion, UserScramCredentialUpsertion)

import ck_util
import harness

REAUTH_MS = 4000
PLAIN_USERS = {"admin": "admin-secret"}
JAAS_PLAIN = ("org.apache.kafka.common.security.plain.PlainLoginModule required "
              + " ".join(f'user_{u}="{p}"' for u, p in PLAIN_USERS.items()) + ";")
JAAS_SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
MECHS = {"SCRAM-SHA-256": ScramMechanism.SCRAM_SHA_256, "SCRAM-SHA-512": ScramMechanism.SCRAM_SHA_512}
UNACCEPTABLE_CREDENTIAL, RESOURCE_NOT_FOUND, DUPLICATE_RESOURCE = 93, 91, 92


@pytest.fixture(scope="module")
def sasl():
    port = harness.free_port()
    b = harness.Broker(overrides={
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
        "listener.name.sasl.plain.sasl.jaas.config": JAAS_PLAIN,
        "listener.name.sasl.scram-sha-256.sasl.jaas.config": JAAS_SCRAM,
        "listener.name.sasl.scram-sha-512.sasl.jaas.config": JAAS_SCRAM,
        "connections.max.reauth.ms": str(REAUTH_MS),
    }, name="sasl_scram", extra_listeners={"SASL": port}, listener_protocols={"SASL": "SASL_PLAINTEXT"})
    try:
        b.start()
        yield b, f"127.0.0.1:{port}"
    finally:
        alive = b.alive()
        rc = b.stop()
        log = b.all_logs()
        b.cleanup()
        assert alive and rc == 0, f"broker died or exited {rc}:\n{log[-4000:]}"


def admin(b):
    """One AdminClient per broker, kept: a client destroyed before its
    futures resolve fails them (_DESTROY)."""
    if not hasattr(b, "admin_client"):
        b.admin_client = AdminClient({"bootstrap.servers": b.bootstrap})
    return b.admin_client


def upsert(b, user, password, mechanism="SCRAM-SHA-256", iterations=8192):
    fs = admin(b).alter_user_scram_credentials(
        [UserScramCredentialUpsertion(user, ScramCredentialInfo(MECHS[mechanism], iterations), password.encode())])
    for f in fs.values():
        f.result(30)


def sasl_conf(bootstrap, mechanism, user, password, **kw):
    c = {"bootstrap.servers": bootstrap, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": mechanism,
         "sasl.username": user, "sasl.password": password}
    c.update(kw)
    return c


def auth_error(conf):
    """The first error a producer with `conf` reports (None if it got metadata)."""
    errors = ck_util.login_errors(conf)
    return errors[0] if errors else None


def round_trip(bootstrap, topic, conf_extra, n=30):
    values = [f"{topic}-{i}".encode() for i in range(n)]
    p = Producer(dict(conf_extra, **{"bootstrap.servers": bootstrap, "acks": "all"}))
    for v in values:
        p.produce(topic, v, partition=0)
    assert p.flush(30) == 0
    c = Consumer(dict(conf_extra, **{"bootstrap.servers": bootstrap, "group.id": f"g-{topic}",
                                     "auto.offset.reset": "earliest", "enable.auto.commit": False}))
    try:
        c.subscribe([topic])
        got, deadline = [], time.monotonic() + 60
        while len(got) < n and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None or (m.error() and m.error().code() == KafkaError._PARTITION_EOF):
                continue
            assert m.error() is None, m.error()
            got.append(m.value())
    finally:
        c.close()
    assert got == values


def create(b, topic):
    for f in admin(b).create_topics([NewTopic(topic, 1, 1)]).values():
        f.result(30)


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_scram_user_round_trips_with_librdkafka(sasl, topic, mechanism):
    b, bootstrap = sasl
    user = f"ck-{mechanism.lower()}"
    upsert(b, user, "pa,ss=word", mechanism)
    create(b, topic)
    conf = sasl_conf(bootstrap, mechanism, user, "pa,ss=word")
    round_trip(bootstrap, topic, {k: v for k, v in conf.items() if k != "bootstrap.servers"})
    # A wrong password, and the other mechanism (no credential for it), fail.
    err = auth_error(sasl_conf(bootstrap, mechanism, user, "wrong"))
    assert err is not None and err.code() == KafkaError._AUTHENTICATION, err
    other = "SCRAM-SHA-512" if mechanism == "SCRAM-SHA-256" else "SCRAM-SHA-256"
    err = auth_error(sasl_conf(bootstrap, other, user, "pa,ss=word"))
    assert err is not None and err.code() == KafkaError._AUTHENTICATION, err


def test_scram_user_round_trips_with_kafka_python(sasl, topic):
    b, bootstrap = sasl
    upsert(b, "kp-user", "kp-secret", "SCRAM-SHA-512")
    create(b, topic)
    conf = {"bootstrap_servers": bootstrap, "security_protocol": "SASL_PLAINTEXT",
            "sasl_mechanism": "SCRAM-SHA-512", "sasl_plain_username": "kp-user",
            "sasl_plain_password": "kp-secret"}
    p = kafka.KafkaProducer(acks="all", **conf)
    for i in range(20):
        p.send(topic, f"k{i}".encode(), partition=0)
    p.flush(30)
    p.close()
    c = kafka.KafkaConsumer(topic, auto_offset_reset="earliest", consumer_timeout_ms=10000, **conf)
    got = [m.value for m in c]
    c.close()
    assert got == [f"k{i}".encode() for i in range(20)]


def test_describe_and_delete_credentials(sasl):
    b, bootstrap = sasl
    upsert(b, "both", "s1", "SCRAM-SHA-256", 4096)
    upsert(b, "both", "s2", "SCRAM-SHA-512", 16384)
    got = admin(b).describe_user_scram_credentials(["both"])["both"].result(30)
    assert got.user == "both"
    assert sorted((i.mechanism, i.iterations) for i in got.scram_credential_infos) == \
        sorted([(ScramMechanism.SCRAM_SHA_256, 4096), (ScramMechanism.SCRAM_SHA_512, 16384)])
    every = admin(b).describe_user_scram_credentials().result(30)
    assert "both" in every, every
    # Deleting one mechanism keeps the other; the deleted one no longer logs in.
    for f in admin(b).alter_user_scram_credentials(
            [UserScramCredentialDeletion("both", ScramMechanism.SCRAM_SHA_256)]).values():
        f.result(30)
    got = admin(b).describe_user_scram_credentials(["both"])["both"].result(30)
    assert [(i.mechanism, i.iterations) for i in got.scram_credential_infos] == [(ScramMechanism.SCRAM_SHA_512, 16384)]
    err = auth_error(sasl_conf(bootstrap, "SCRAM-SHA-256", "both", "s1"))
    assert err is not None and err.code() == KafkaError._AUTHENTICATION, err
    assert auth_error(sasl_conf(bootstrap, "SCRAM-SHA-512", "both", "s2")) is None


def kafka_code(future):
    with pytest.raises(KafkaException) as e:
        future.result(30)
    return e.value.args[0].code()


def test_admin_errors(sasl):
    b, _ = sasl
    a = admin(b)
    for iterations in (4095, 16385):
        fs = a.alter_user_scram_credentials([UserScramCredentialUpsertion(
            "bad-iter", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, iterations), b"pw")])
        assert kafka_code(fs["bad-iter"]) == UNACCEPTABLE_CREDENTIAL
    fs = a.alter_user_scram_credentials([UserScramCredentialDeletion("nobody", ScramMechanism.SCRAM_SHA_256)])
    assert kafka_code(fs["nobody"]) == RESOURCE_NOT_FOUND
    assert kafka_code(a.describe_user_scram_credentials(["nobody"])["nobody"]) == RESOURCE_NOT_FOUND
    fs = a.alter_user_scram_credentials([
        UserScramCredentialUpsertion("twice", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), b"a"),
        UserScramCredentialUpsertion("twice", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192), b"b")])
    assert kafka_code(fs["twice"]) == DUPLICATE_RESOURCE
    # Nothing of a refused request was applied.
    assert kafka_code(a.describe_user_scram_credentials(["twice"])["twice"]) == RESOURCE_NOT_FOUND
    # Kafka 4 takes one alteration per user and request, even for two mechanisms.
    fs = a.alter_user_scram_credentials([
        UserScramCredentialUpsertion("two-mechs", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), b"a"),
        UserScramCredentialUpsertion("two-mechs", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), b"b")])
    assert kafka_code(fs["two-mechs"]) == DUPLICATE_RESOURCE
    assert kafka_code(a.describe_user_scram_credentials(["two-mechs"])["two-mechs"]) == RESOURCE_NOT_FOUND


def test_librdkafka_reauthenticates_past_the_session_lifetime(sasl, topic):
    b, bootstrap = sasl
    create(b, topic)
    conf = sasl_conf(bootstrap, "PLAIN", "admin", PLAIN_USERS["admin"])
    p = Producer(dict(conf, acks="all"))
    # Three session lifetimes on the same connections, writing all along.
    deadline, n = time.monotonic() + 3 * REAUTH_MS / 1000 + 1, 0
    while time.monotonic() < deadline:
        p.produce(topic, f"r{n}".encode(), partition=0)
        n += 1
        p.poll(0.1)
    assert p.flush(30) == 0
    c = Consumer(dict(conf, **{"group.id": f"g-{topic}", "auto.offset.reset": "earliest"}))
    try:
        c.subscribe([topic])
        got, end = [], time.monotonic() + 60
        while len(got) < n and time.monotonic() < end:
            m = c.poll(0.5)
            if m is None or (m.error() and m.error().code() == KafkaError._PARTITION_EOF):
                continue
            assert m.error() is None, m.error()
            got.append(m.value().decode())
    finally:
        c.close()
    assert got == [f"r{i}" for i in range(n)]
    if not harness.which_peer():
        # Spool logs a connection it closes for an expired session: none was.
        assert "expired (connections.max.reauth.ms" not in b.all_logs(), "a session expired without re-authentication"
