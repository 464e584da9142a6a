"""SaslHandshake (api 17) and SaslAuthenticate (api 36) by hand, for the
SASL tests: the requests as a client sends them and the answers decoded,
from the public protocol description (not the broker's definitions)."""

import struct

import kafka_wire as w

HANDSHAKE, AUTHENTICATE = 17, 36


def handshake(correlation_id, mechanism, version=1):
    return w.request(HANDSHAKE, version, correlation_id, w.string(mechanism))


def parse_handshake(frame):
    """-> (error code, [mechanisms]) of a SaslHandshake v0/v1 answer."""
    corr, error, n = struct.unpack(">ihi", frame[:10])
    pos, mechanisms = 10, []
    for _ in range(n):
        (size,) = struct.unpack(">h", frame[pos:pos + 2])
        mechanisms.append(frame[pos + 2:pos + 2 + size].decode())
        pos += 2 + size
    assert pos == len(frame), "trailing bytes in SaslHandshake answer"
    return error, mechanisms


def authenticate(correlation_id, token, version=1):
    """SaslAuthenticate v0/v1 (non-flexible)."""
    return w.request(AUTHENTICATE, version, correlation_id, struct.pack(">i", len(token)) + token)


def parse_authenticate(frame, version=1):
    """-> dict(error, message, auth_bytes, session_lifetime_ms) of a v0/v1 answer."""
    corr, error, size = struct.unpack(">ihh", frame[:8])
    pos = 8
    message = None
    if size >= 0:
        message = frame[pos:pos + size].decode()
        pos += size
    (n,) = struct.unpack(">i", frame[pos:pos + 4])
    auth = frame[pos + 4:pos + 4 + n]
    pos += 4 + n
    lifetime = 0
    if version >= 1:
        (lifetime,) = struct.unpack(">q", frame[pos:pos + 8])
        pos += 8
    assert pos == len(frame), "trailing bytes in SaslAuthenticate answer"
    return {"error": error, "message": message, "auth_bytes": auth, "session_lifetime_ms": lifetime}


def plain_token(user, password, authzid=""):
    return f"{authzid}\0{user}\0{password}".encode()


def metadata_v1(correlation_id):
    """Metadata v1 for no topic: the cheapest request that needs authentication."""
    return w.request(3, 1, correlation_id, struct.pack(">i", 0))


def scram_login(port, user, password, mechanism="SCRAM-SHA-512"):
    """A whole SCRAM exchange (RFC 5802, written here from the RFC) on a new
    connection to `port`; -> (error code of the last answer, the socket, or
    None when the broker closed it)."""
    import base64
    import hashlib
    import hmac
    import os

    h = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}[mechanism]
    sock = w.connect(port, timeout=10)
    err, _ = parse_handshake(w.roundtrip(sock, handshake(1, mechanism)))
    if err:
        return err, None
    cnonce = base64.b64encode(os.urandom(18)).decode()
    bare = f"n={user},r={cnonce}"
    ans = parse_authenticate(w.roundtrip(sock, authenticate(2, ("n,," + bare).encode())))
    if ans["error"]:
        return ans["error"], None
    server_first = ans["auth_bytes"].decode()
    f = dict(item.split("=", 1) for item in server_first.split(","))
    salted = hashlib.pbkdf2_hmac(h, password.encode(), base64.b64decode(f["s"]), int(f["i"]))
    without_proof = f"c=biws,r={f['r']}"
    auth = f"{bare},{server_first},{without_proof}".encode()
    client_key = hmac.new(salted, b"Client Key", h).digest()
    signature = hmac.new(hashlib.new(h, client_key).digest(), auth, h).digest()
    proof = bytes(a ^ b for a, b in zip(client_key, signature))
    final = f"{without_proof},p={base64.b64encode(proof).decode()}".encode()
    ans = parse_authenticate(w.roundtrip(sock, authenticate(3, final)))
    if ans["error"]:
        return ans["error"], None
    server_key = hmac.new(salted, b"Server Key", h).digest()
    expected = "v=" + base64.b64encode(hmac.new(server_key, auth, h).digest()).decode()
    assert ans["auth_bytes"].decode() == expected, "the server's signature does not verify"
    return 0, sock
