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
