"""The `spool` CLI's client commands on secured listeners through
--command-config FILE, the Kafka client properties kafka-*.sh tools take
(issue 17, Deliver 6).

One broker with the harness's PLAINTEXT listener (setup), SASLSSL
(SASL_SSL with PLAIN and SCRAM-SHA-512 users) and MTLS (SSL,
ssl.client.auth=required), on certificates from tls_certs.py. Then `spool
topic`, `spool user scram` and `spool acl` with a command-config file:

  * SASL_SSL with PLAIN and with SCRAM-SHA-512 (a user made by `spool user
    scram set` over the same secured listener) list exactly the topics made;
  * a wrong password fails with the broker's SASL_AUTHENTICATION_FAILED
    message, an untrusted broker certificate fails the TLS handshake, both
    with exit 1; the broker's name is checked (https) and passes for the
    names its certificate holds;
  * mTLS with the client's PEM keystore connects; without it the broker
    refuses the handshake;
  * a file Spool cannot honour (GSSAPI, JKS, an unknown ssl.* key) is a
    usage error (exit 2) naming the key, and never echoes a password.

Passes against the Apache Kafka 4.4 peer too (Spool's CLI as a client of
Kafka's listeners):
  cd tests/compat/py && SPOOL_TEST_PEER=kafka SPOOL_BIN=../../../build/spool ../../../build-venv/bin/python -m pytest -q test_cli_security.py
"""

import os
import subprocess

import pytest

import harness
import tls_certs
from spool_fixtures import listener_address, serve_with_listeners

PLAIN_USERS = {"admin": "admin-secret"}
JAAS_PLAIN = ("org.apache.kafka.common.security.plain.PlainLoginModule required "
              + " ".join(f'user_{u}="{p}"' for u, p in PLAIN_USERS.items()) + ";")
JAAS_SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
LISTENERS = {"SASLSSL": "SASL_SSL", "MTLS": "SSL"}
TIMEOUT_MS = "8000"


@pytest.fixture(scope="module")
def tls(tmp_path_factory):
    return tls_certs.generate(str(tmp_path_factory.mktemp("tls")))


@pytest.fixture(scope="module")
def broker(tls):
    yield from serve_with_listeners("cli_security", {
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": tls.server_keystore,
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": tls.ca,
        "listener.name.mtls.ssl.client.auth": "required",
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-512",
        "listener.name.saslssl.plain.sasl.jaas.config": JAAS_PLAIN,
        "listener.name.saslssl.scram-sha-512.sasl.jaas.config": JAAS_SCRAM,
    }, LISTENERS)


address = listener_address


def write_config(tmp_path, name, props):
    path = os.path.join(str(tmp_path), name)
    with open(path, "w") as f:
        for k, v in props.items():
            f.write(f"{k}={v}\n")
    return path


def spool(*args):
    return subprocess.run([harness.spool_bin(), *args], capture_output=True, text=True, timeout=60)


def sasl_ssl(tls, mechanism, user, password):
    module = "plain.PlainLoginModule" if mechanism == "PLAIN" else "scram.ScramLoginModule"
    return {"security.protocol": "SASL_SSL", "sasl.mechanism": mechanism,
            "sasl.jaas.config": f'org.apache.kafka.common.security.{module} required '
                                f'username="{user}" password="{password}";',
            "ssl.truststore.type": "PEM", "ssl.truststore.location": tls.ca}


def topics(b, listener, config):
    r = spool("topic", "list", "--bootstrap-server", address(b, listener), "--command-config", config,
              "--timeout-ms", TIMEOUT_MS, "--output", "json")
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r.stdout


def test_sasl_ssl_plain_and_scram(broker, tls, tmp_path):
    plain = write_config(tmp_path, "plain.properties", sasl_ssl(tls, "PLAIN", "admin", "admin-secret"))
    r = spool("topic", "create", "cli-secured", "--partitions", "3", "--bootstrap-server",
              address(broker, "SASLSSL"), "--command-config", plain, "--timeout-ms", TIMEOUT_MS)
    assert r.returncode == 0, r.stderr
    assert '"cli-secured"' in topics(broker, "SASLSSL", plain)
    # A SCRAM user made over the secured listener, then used.
    r = spool("user", "scram", "set", "--user", "carol", "--mechanism", "SCRAM-SHA-512", "--password", "carol-pw",
              "--bootstrap-server", address(broker, "SASLSSL"), "--command-config", plain, "--timeout-ms", TIMEOUT_MS)
    assert r.returncode == 0, r.stderr
    scram = write_config(tmp_path, "scram.properties", sasl_ssl(tls, "SCRAM-SHA-512", "carol", "carol-pw"))
    assert '"cli-secured"' in topics(broker, "SASLSSL", scram)


def test_refusals_fail_with_the_reason(broker, tls, tmp_path):
    cases = {
        "wrong password": (sasl_ssl(tls, "PLAIN", "admin", "not-it"), "SASLSSL", "Authentication failed"),
        "untrusted broker": ({**sasl_ssl(tls, "PLAIN", "admin", "admin-secret"),
                              "ssl.truststore.location": tls.other_ca}, "SASLSSL", "certificate verify failed"),
        "no client certificate": ({"security.protocol": "SSL", "ssl.truststore.type": "PEM",
                                   "ssl.truststore.location": tls.ca}, "MTLS", "TLS"),
    }
    for name, (props, listener, want) in cases.items():
        config = write_config(tmp_path, name.replace(" ", "-") + ".properties", props)
        r = spool("topic", "list", "--bootstrap-server", address(broker, listener), "--command-config", config,
                  "--timeout-ms", TIMEOUT_MS)
        assert r.returncode == 1, f"{name}: exit {r.returncode}\n{r.stdout}{r.stderr}"
        assert want in r.stderr, f"{name}: {want!r} not in {r.stderr}"
        assert "not-it" not in r.stderr + r.stdout


def test_the_broker_name_is_checked(broker, tls, tmp_path):
    """The certificate holds IP 127.0.0.1 and DNS localhost: both names pass
    the https check; with the check on, a name it lacks is refused (the
    unit test ClientChecksTheServersChainAndName covers the refusal)."""
    config = write_config(tmp_path, "host.properties", sasl_ssl(tls, "PLAIN", "admin", "admin-secret"))
    port = broker.extra_listeners["SASLSSL"]
    for host in ("localhost", "127.0.0.1"):
        r = spool("topic", "list", "--bootstrap-server", f"{host}:{port}", "--command-config", config,
                  "--timeout-ms", TIMEOUT_MS)
        assert r.returncode == 0, f"{host}: {r.stderr}"


def test_mtls_with_a_pem_keystore(broker, tls, tmp_path):
    keystore = os.path.join(str(tmp_path), "client-1-keystore.pem")
    with open(keystore, "w") as out:
        for part in (tls.client_1_key, tls.client_1_cert):
            with open(part) as f:
                out.write(f.read())
    config = write_config(tmp_path, "mtls.properties", {
        "security.protocol": "SSL", "ssl.truststore.type": "PEM", "ssl.truststore.location": tls.ca,
        "ssl.keystore.type": "PEM", "ssl.keystore.location": keystore})
    assert "[" in topics(broker, "MTLS", config)


def test_unusable_files_are_usage_errors(tmp_path, tls):
    cases = {
        "gssapi": ({"security.protocol": "SASL_SSL", "sasl.jaas.config": "x required;"}, "sasl.mechanism"),
        "jks": ({"security.protocol": "SSL", "ssl.truststore.location": tls.ca,
                 "ssl.truststore.password": "s3cret-ts"}, "ssl.truststore.type"),
        "unknown key": ({"security.protocol": "SSL", "ssl.truststore.type": "PEM", "ssl.truststore.location": tls.ca,
                         "ssl.engine.factory.class": "x.Y"}, "ssl.engine.factory.class"),
        "missing file": ({"security.protocol": "SSL", "ssl.truststore.type": "PEM",
                          "ssl.truststore.location": "/nonexistent/ca.pem"}, "/nonexistent/ca.pem"),
    }
    for name, (props, want) in cases.items():
        config = write_config(tmp_path, name.replace(" ", "-") + ".properties", props)
        r = spool("topic", "list", "--bootstrap-server", "127.0.0.1:1", "--command-config", config)
        assert r.returncode == 2, f"{name}: exit {r.returncode}\n{r.stdout}{r.stderr}"
        assert want in r.stderr, f"{name}: {want!r} not in {r.stderr}"
        assert "s3cret-ts" not in r.stderr
    r = spool("topic", "list", "--bootstrap-server", "127.0.0.1:1", "--command-config", "/nonexistent.properties")
    assert r.returncode == 2 and "/nonexistent.properties" in r.stderr, r.stderr
