"""kcat (librdkafka) over SASL_SSL and SSL listeners, with mTLS (issue 17).

One broker for the module with the harness's PLAINTEXT listener and three
more, on Kafka's own keys (the certificates come from py/tls_certs.py, a
fresh throw-away CA per run):

  SASLSSL  SASL_SSL; sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,
           listener.name.saslssl.plain.sasl.jaas.config (user_admin) and
           .scram-sha-256/.scram-sha-512.sasl.jaas.config (ScramLoginModule)
  SSL      SSL, ssl.client.auth=none
  MTLS     SSL, listener.name.mtls.ssl.client.auth=required

with the global ssl.keystore.type=PEM / ssl.keystore.location (key + chain)
and ssl.truststore.type=PEM / ssl.truststore.location (the CA). The SCRAM
credentials of user scram-user are made over PLAINTEXT with
AlterUserScramCredentials v0, written here on the wire (the system
python3's clients predate the SCRAM admin API): the salted password is
PBKDF2-HMAC of the password, as a client computes it, and the test waits
until DescribeUserScramCredentials lists them. Then, with kcat's -X options
(security.protocol, sasl.mechanisms, ssl.ca.location,
ssl.certificate.location, ssl.key.location):

  * PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 on SASL_SSL: kcat produces keyed
    lines (one of 200 KB, spanning many TLS records) and consumes exactly
    them back (key, value, offset). SCRAM on the Kafka 4.4 peer with a kcat
    whose librdkafka predates 2.6.1 (Debian's kcat 1.7.1 has 2.0.2) is
    refused instead ("invalid credentials"): that librdkafka repeats its
    client nonce in the client-final-message, which Kafka 4.x refuses
    (RFC 5802 equality) and Spool accepts as Kafka 3.8.1-3.9 did (Spool
    README, SASL: a deliberate difference);
  * the same SCRAM credentials log in with an RFC 5802 exchange written
    here (SaslHandshake v1, SaslAuthenticate v1 over TLS, the server
    signature checked), on both brokers; a wrong password, and the other
    mechanism's password, are refused with SASL_AUTHENTICATION_FAILED;
  * a wrong password (PLAIN and SCRAM-SHA-512): kcat gets no metadata
    within a bounded time (non-zero exit) and its stderr reports the SASL
    authentication failure;
  * SSL: round trip; a CA that did not sign the server (other-ca.pem) makes
    kcat fail on certificate verification;
  * MTLS: client-1's certificate round-trips; without a certificate kcat
    gets no metadata.

Passes against the Apache Kafka 4.4 peer too:
  cd tests/compat && SPOOL_TEST_PEER=kafka /usr/bin/python3 -m pytest -q test_kcat_security.py
"""

import base64
import hashlib
import hmac
import os
import re
import shutil
import socket
import ssl
import struct
import subprocess
import time

import pytest

import harness
from spool_fixtures import listener_address, serve_with_listeners

KCAT = shutil.which("kcat") or shutil.which("kafkacat")
PEER = harness.which_peer()

LISTENERS = {"SASLSSL": "SASL_SSL", "SSL": "SSL", "MTLS": "SSL"}
PLAIN_USERS = {"admin": "admin-plain-secret"}
SCRAM_USER = "scram-user"
SCRAM_PASSWORDS = {"SCRAM-SHA-256": "scram-256,=secret", "SCRAM-SHA-512": "scram-512=,secret"}
SCRAM_TYPES = {"SCRAM-SHA-256": (1, "sha256"), "SCRAM-SHA-512": (2, "sha512")}
JAAS_PLAIN = ("org.apache.kafka.common.security.plain.PlainLoginModule required "
              + " ".join(f'user_{u}="{p}"' for u, p in PLAIN_USERS.items()) + ";")
JAAS_SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
TIMEOUT_S = 60          # bound on one kcat run that should succeed
FAIL_TIMEOUT_S = 40     # bound on one kcat run that should fail
METADATA_S = 5          # kcat -m: its metadata request timeout
N = 100                 # lines per round trip (plus one of BIG bytes)
BIG = 200_000


@pytest.fixture(autouse=True)
def kcat_installed():
    if KCAT is None:
        harness.missing_tool("kcat")


def librdkafka_version():
    """kcat's librdkafka as a tuple, from `kcat -V`."""
    r = subprocess.run([KCAT, "-V"], capture_output=True, text=True, timeout=10)
    m = re.search(r"librdkafka (\d+)\.(\d+)\.(\d+)", r.stdout + r.stderr)
    assert m, f"no librdkafka version in `kcat -V`: {r.stdout}{r.stderr}"
    return tuple(int(x) for x in m.groups())


def scram_refused_by_peer():
    """librdkafka before 2.6.1 (librdkafka#4895) puts its client nonce twice
    in the SCRAM client-final-message. Kafka 4.x compares that nonce with the
    server's for equality (RFC 5802) and refuses the login ("invalid
    credentials"); Spool accepts a final nonce that ends with the server's,
    as Kafka 3.8.1-3.9 did (a deliberate difference, Spool README, SASL)."""
    return PEER == "kafka" and KCAT is not None and librdkafka_version() < (2, 6, 1)


# -- certificates and broker -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return harness.tls_certs(str(tmp_path_factory.mktemp("tls")))


def overrides(certs):
    return {
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
        "listener.name.saslssl.plain.sasl.jaas.config": JAAS_PLAIN,
        "listener.name.saslssl.scram-sha-256.sasl.jaas.config": JAAS_SCRAM,
        "listener.name.saslssl.scram-sha-512.sasl.jaas.config": JAAS_SCRAM,
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": certs("server-keystore.pem"),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": certs("ca.pem"),
        "ssl.client.auth": "none",
        "listener.name.mtls.ssl.client.auth": "required",
    }


@pytest.fixture(scope="module")
def broker(certs):
    """Named `broker` so that the failure hook shows its log."""
    yield from serve_with_listeners("kcat_security", overrides(certs), LISTENERS)


addr = listener_address


# -- SCRAM credentials on the wire (AlterUserScramCredentials / DescribeUserScramCredentials v0) -----

def _uvarint(n):
    out = b""
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out += bytes([byte | 0x80])
        else:
            return out + bytes([byte])


def _cstr(s):
    b = s.encode()
    return _uvarint(len(b) + 1) + b


def _cbytes(b):
    return _uvarint(len(b) + 1) + b


def _carray(items):
    return _uvarint(len(items) + 1) + b"".join(items)


class _Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, n):
        out = self.data[self.pos:self.pos + n]
        assert len(out) == n, f"response truncated at {self.pos}"
        self.pos += n
        return out

    def unpack(self, fmt):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))

    def uvarint(self):
        shift = n = 0
        while True:
            (b,) = self.take(1)
            n |= (b & 0x7F) << shift
            if not b & 0x80:
                return n
            shift += 7

    def cstr(self):
        n = self.uvarint()
        return None if n == 0 else self.take(n - 1).decode()

    def tags(self):
        for _ in range(self.uvarint()):
            self.uvarint()
            self.take(self.uvarint())


def _request(port, api_key, body, correlation_id=11):
    """One flexible request (header v2) on a fresh PLAINTEXT connection; the
    response body after its header v1."""
    client = b"kcat-security-test"
    msg = struct.pack(">hhih", api_key, 0, correlation_id, len(client)) + client + b"\x00" + body
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(struct.pack(">i", len(msg)) + msg)
        buf = b""
        while len(buf) < 4 or len(buf) < 4 + struct.unpack(">i", buf[:4])[0]:
            chunk = s.recv(65536)
            assert chunk, "connection closed before the whole response"
            buf += chunk
    r = _Reader(buf[4:])
    (corr,) = r.unpack(">i")
    assert corr == correlation_id
    r.tags()
    return r


def upsert_scram(b, user, mechanism, password, iterations=8192):
    mech, digest = SCRAM_TYPES[mechanism]
    salt = os.urandom(24)
    salted = hashlib.pbkdf2_hmac(digest, password.encode(), salt, iterations)
    upsertion = _cstr(user) + struct.pack(">bi", mech, iterations) + _cbytes(salt) + _cbytes(salted) + b"\x00"
    r = _request(b.port, 51, _carray([]) + _carray([upsertion]) + b"\x00")
    r.unpack(">i")  # throttle
    results = []
    for _ in range(r.uvarint() - 1):
        name = r.cstr()
        (code,) = r.unpack(">h")
        results.append((name, code, r.cstr()))
        r.tags()
    assert results == [(user, 0, None)], results


def scram_mechanisms(b, user):
    """{mechanism number: iterations} DescribeUserScramCredentials lists for user."""
    r = _request(b.port, 50, _carray([_cstr(user) + b"\x00"]) + b"\x00")
    r.unpack(">i")  # throttle
    (code,) = r.unpack(">h")
    r.cstr()
    assert code == 0, code
    out = {}
    for _ in range(r.uvarint() - 1):
        name = r.cstr()
        (code,) = r.unpack(">h")
        r.cstr()
        for _ in range(r.uvarint() - 1):
            mech, iterations = r.unpack(">bi")
            r.tags()
            if name == user and code == 0:
                out[mech] = iterations
        r.tags()
    return out


def _scram_escape(name):
    return name.replace("=", "=3D").replace(",", "=2C")


def _send_v1(sock, api_key, version, body, correlation_id):
    """A request with header v1 (non-flexible); the response after its correlation id."""
    client = b"kcat-security-test"
    msg = struct.pack(">hhih", api_key, version, correlation_id, len(client)) + client + body
    sock.sendall(struct.pack(">i", len(msg)) + msg)

    def exactly(n):
        out = b""
        while len(out) < n:
            chunk = sock.recv(n - len(out))
            assert chunk, f"connection closed after {len(out)} of {n} bytes"
            out += chunk
        return out

    (size,) = struct.unpack(">i", exactly(4))
    r = _Reader(exactly(size))
    assert r.unpack(">i") == (correlation_id,)
    return r


def _sasl_authenticate(sock, auth_bytes, correlation_id):
    """SaslAuthenticate v1: (error code, error message, auth bytes)."""
    r = _send_v1(sock, 36, 1, struct.pack(">i", len(auth_bytes)) + auth_bytes, correlation_id)
    (code, n) = r.unpack(">hh")
    message = None if n < 0 else r.take(n).decode()
    (n,) = r.unpack(">i")
    return code, message, (b"" if n < 0 else r.take(n))


def scram_login(b, certs, mechanism, user, password):
    """An RFC 5802 SCRAM exchange on SASLSSL (Python's ssl, SaslHandshake v1,
    SaslAuthenticate v1): None once the broker accepted the proof (and its
    server signature checks out), else (error code, message) of its refusal."""
    _, digest = SCRAM_TYPES[mechanism]
    ctx = ssl.create_default_context(cafile=certs("ca.pem"))
    with socket.create_connection(("127.0.0.1", b.extra_listeners["SASLSSL"]), timeout=30) as raw, \
            ctx.wrap_socket(raw, server_hostname="localhost") as s:
        r = _send_v1(s, 17, 1, struct.pack(">h", len(mechanism)) + mechanism.encode(), 1)
        assert r.unpack(">h") == (0,), f"SaslHandshake {mechanism} refused"
        client_nonce = base64.b64encode(os.urandom(24)).decode()
        first_bare = f"n={_scram_escape(user)},r={client_nonce}"
        code, message, server_first = _sasl_authenticate(s, b"n,," + first_bare.encode(), 2)
        if code:
            return code, message
        fields = dict(kv.split("=", 1) for kv in server_first.decode().split(","))
        assert fields["r"].startswith(client_nonce) and len(fields["r"]) > len(client_nonce), fields
        salted = hashlib.pbkdf2_hmac(digest, password.encode(), base64.b64decode(fields["s"]), int(fields["i"]))
        client_key = hmac.new(salted, b"Client Key", digest).digest()
        stored_key = hashlib.new(digest, client_key).digest()
        final_no_proof = f"c=biws,r={fields['r']}"
        auth_message = f"{first_bare},{server_first.decode()},{final_no_proof}".encode()
        signature = hmac.new(stored_key, auth_message, digest).digest()
        proof = bytes(x ^ y for x, y in zip(client_key, signature))
        final = f"{final_no_proof},p={base64.b64encode(proof).decode()}".encode()
        code, message, server_final = _sasl_authenticate(s, final, 3)
        if code:
            return code, message
        server_key = hmac.new(salted, b"Server Key", digest).digest()
        expected = base64.b64encode(hmac.new(server_key, auth_message, digest).digest()).decode()
        assert server_final.decode() == f"v={expected}", server_final
        # Authenticated: the connection serves requests (ApiVersions v0).
        r = _send_v1(s, 18, 0, b"", 4)
        assert r.unpack(">h") == (0,)
        return None


@pytest.fixture(scope="module")
def scram_user(broker):
    for mechanism, password in SCRAM_PASSWORDS.items():
        upsert_scram(broker, SCRAM_USER, mechanism, password)
    want = {m: 8192 for m, _ in SCRAM_TYPES.values()}
    deadline = time.monotonic() + 30
    while scram_mechanisms(broker, SCRAM_USER) != want:
        assert time.monotonic() < deadline, f"SCRAM credentials not listed: {scram_mechanisms(broker, SCRAM_USER)}"
        time.sleep(0.2)
    return SCRAM_USER


# -- kcat ----------------------------------------------------------------------------------------

def run_kcat(bootstrap, conf, *args, stdin=None, timeout=TIMEOUT_S):
    cmd = [KCAT, "-b", bootstrap, "-X", "socket.timeout.ms=10000"]
    for k, v in conf.items():
        cmd += ["-X", f"{k}={v}"]
    return subprocess.run(cmd + list(args), input=stdin, capture_output=True, timeout=timeout)


def kcat(bootstrap, conf, *args, stdin=None):
    r = run_kcat(bootstrap, conf, *args, stdin=stdin)
    assert r.returncode == 0, f"kcat {args} exited {r.returncode}: {r.stderr.decode(errors='replace')[-3000:]}"
    return r.stdout


def kcat_fails(bootstrap, conf):
    """kcat -L with conf: asserts it got no metadata (a non-zero exit within
    FAIL_TIMEOUT_S) and returns its stderr."""
    t0 = time.monotonic()
    r = run_kcat(bootstrap, conf, "-L", "-m", str(METADATA_S), timeout=FAIL_TIMEOUT_S)
    err = r.stderr.decode(errors="replace")
    assert r.returncode != 0, f"kcat -L succeeded in {time.monotonic() - t0:.1f} s:\n{r.stdout.decode()[:2000]}\n{err}"
    assert b"Metadata for" not in r.stdout, r.stdout[:2000]
    return err


def sasl_ssl(certs, mechanism, user, password):
    return {"security.protocol": "SASL_SSL", "ssl.ca.location": certs("ca.pem"), "sasl.mechanisms": mechanism,
            "sasl.username": user, "sasl.password": password}


def ssl_conf(certs, ca="ca.pem", client=None):
    c = {"security.protocol": "SSL", "ssl.ca.location": certs(ca)}
    if client:
        c.update({"ssl.certificate.location": certs(f"{client}.pem"), "ssl.key.location": certs(f"{client}.key")})
    return c


def lines_for(topic, n=N):
    out = [f"key{i % 5}:{topic} line {i} {'x' * (i % 37)}" for i in range(n)]
    out.append(f"big:{'b' * BIG}")
    return out


def round_trip(bootstrap, conf, topic):
    """kcat produces keyed lines to partition 0 (acks=all) and consumes them
    from the beginning to the end: exactly the lines, at offsets 0..n-1."""
    lines = lines_for(topic)
    kcat(bootstrap, conf, "-P", "-t", topic, "-p", "0", "-K:", "-X", "acks=all",
         stdin=("\n".join(lines) + "\n").encode())
    out = kcat(bootstrap, conf, "-C", "-t", topic, "-p", "0", "-o", "beginning", "-e", "-f", "%o %k %s\n")
    got = out.decode().splitlines()
    want = [f"{i} {line.split(':', 1)[0]} {line.split(':', 1)[1]}" for i, line in enumerate(lines)]
    assert len(got) == len(want), (len(got), len(want), got[:3])
    assert got == want


def password(mechanism):
    return PLAIN_USERS["admin"] if mechanism == "PLAIN" else SCRAM_PASSWORDS[mechanism]


def user(mechanism):
    return "admin" if mechanism == "PLAIN" else SCRAM_USER


# -- the tests -----------------------------------------------------------------------------------

@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_sasl_ssl_round_trip(broker, certs, scram_user, topic, mechanism):
    conf = sasl_ssl(certs, mechanism, user(mechanism), password(mechanism))
    if mechanism != "PLAIN" and scram_refused_by_peer():
        # Kafka 4.4 and this kcat's librdkafka: refused (see scram_refused_by_peer;
        # test_scram_login_on_the_wire shows the credential itself is right).
        err = kcat_fails(addr(broker, "SASLSSL"), conf)
        assert f"invalid credentials with SASL mechanism {mechanism}" in err, err[-3000:]
        return
    round_trip(addr(broker, "SASLSSL"), conf, topic)


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_scram_login_on_the_wire(broker, certs, scram_user, mechanism):
    """The credentials made with AlterUserScramCredentials log in with an RFC
    5802 exchange; a wrong password and the other mechanism's password are
    refused with SASL_AUTHENTICATION_FAILED (58)."""
    assert scram_login(broker, certs, mechanism, SCRAM_USER, SCRAM_PASSWORDS[mechanism]) is None
    other = "SCRAM-SHA-512" if mechanism == "SCRAM-SHA-256" else "SCRAM-SHA-256"
    for wrong in ("wrong-password", SCRAM_PASSWORDS[other]):
        refused = scram_login(broker, certs, mechanism, SCRAM_USER, wrong)
        assert refused is not None and refused[0] == 58, refused


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-512"])
def test_sasl_ssl_wrong_password_fails(broker, certs, scram_user, mechanism):
    err = kcat_fails(addr(broker, "SASLSSL"), sasl_ssl(certs, mechanism, user(mechanism), "wrong-password"))
    assert "SASL authentication error" in err or "Authentication failed" in err, err[-3000:]


def test_ssl_round_trip(broker, certs, topic):
    round_trip(addr(broker, "SSL"), ssl_conf(certs), topic)


def test_ssl_untrusted_ca_fails(broker, certs):
    err = kcat_fails(addr(broker, "SSL"), ssl_conf(certs, ca="other-ca.pem"))
    assert "certificate verify failed" in err, err[-3000:]


def test_mtls_round_trip(broker, certs, topic):
    round_trip(addr(broker, "MTLS"), ssl_conf(certs, client="client-1"), topic)


def test_mtls_without_client_certificate_fails(broker, certs):
    err = kcat_fails(addr(broker, "MTLS"), ssl_conf(certs))
    # The broker's TLS alert (certificate required, bad certificate) or its close.
    assert "ssl://127.0.0.1" in err and any(w in err for w in ("alert", "Disconnected", "reset", "SSL")), err[-3000:]
