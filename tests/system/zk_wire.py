"""A minimal ZooKeeper client over the raw wire protocol (jute framing), for the
cluster fixture and its tests: no third-party ZooKeeper library is installed.

Covers what the harness needs and nothing else: open a session (ConnectRequest),
ping, create (persistent / ephemeral), exists, get_data, get_children, delete,
close; and the four-letter words (`ruok`, `srvr`) on a fresh socket.

Contract:
  * One `ZkSession` = one TCP connection = one ZooKeeper session; synchronous,
    one request in flight, not thread-safe. Watches are never set.
  * Every socket operation has a timeout (default 5 s); errors raise `ZkError`
    carrying ZooKeeper's error code (NONODE = -101, NODEEXISTS = -110, ...).
  * A session the server expired answers the next request with a closed socket
    or SESSIONEXPIRED (-112); the caller opens a new session.
"""

import socket
import struct

NONODE = -101
NODEEXISTS = -110
SESSIONEXPIRED = -112

OP_CREATE, OP_DELETE, OP_EXISTS, OP_GETDATA, OP_GETCHILDREN = 1, 2, 3, 4, 8
OP_PING, OP_CLOSE = 11, -11
EPHEMERAL = 1
_OPEN_ACL = struct.pack(">i", 1) + struct.pack(">i", 31) + b"\x00\x00\x00\x05world\x00\x00\x00\x06anyone"


class ZkError(RuntimeError):
    def __init__(self, code, what):
        super().__init__(f"{what}: ZooKeeper error {code}")
        self.code = code


def four_letter(port, word, host="127.0.0.1", timeout=2.0):
    """Sends a four-letter word and returns the whole answer (b"" on failure)."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as s:
            s.settimeout(timeout)
            s.sendall(word.encode())
            out = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    return out
                out += chunk
    except OSError:
        return b""


def ruok(port, host="127.0.0.1"):
    """True once the server process answers (it may not serve requests yet)."""
    return four_letter(port, "ruok", host) == b"imok"


def serving(port, host="127.0.0.1"):
    """True once the server serves clients: `srvr` reports its version and mode
    (before that it answers "This ZooKeeper instance is not currently serving
    requests", while ruok already says imok)."""
    return b"Mode: " in four_letter(port, "srvr", host)


def _buf(b):
    return struct.pack(">i", -1) if b is None else struct.pack(">i", len(b)) + b


def _str(s):
    return _buf(s.encode())


class _Reader:
    def __init__(self, data):
        self.d, self.p = data, 0

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.d, self.p)
        self.p += struct.calcsize(fmt)
        return v if len(v) > 1 else v[0]

    def buf(self):
        n = self.take(">i")
        if n < 0:
            return None
        b = self.d[self.p:self.p + n]
        self.p += n
        return b

    def stat(self):
        names = ("czxid", "mzxid", "ctime", "mtime", "version", "cversion", "aversion",
                 "ephemeral_owner", "data_length", "num_children", "pzxid")
        return dict(zip(names, self.take(">qqqqiiiqiiq")))


class ZkSession:
    def __init__(self, port, session_timeout_ms=6000, host="127.0.0.1", timeout=5.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.settimeout(timeout)
        self._xid = 0
        req = struct.pack(">iqiq", 0, 0, session_timeout_ms, 0) + _buf(b"\x00" * 16) + b"\x00"
        self._send(req)
        r = _Reader(self._recv())
        _proto, self.timeout_ms, self.session_id = r.take(">iiq")
        if self.session_id == 0:
            raise ZkError(SESSIONEXPIRED, "connect refused")

    def _send(self, payload):
        self.sock.sendall(struct.pack(">i", len(payload)) + payload)

    def _recv_exact(self, n):
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise ZkError(SESSIONEXPIRED, "connection closed by ZooKeeper")
            out += chunk
        return out

    def _recv(self):
        (n,) = struct.unpack(">i", self._recv_exact(4))
        return self._recv_exact(n)

    def _call(self, op, body, what, xid=None):
        if xid is None:
            self._xid += 1
            xid = self._xid
        self._send(struct.pack(">ii", xid, op) + body)
        while True:
            r = _Reader(self._recv())
            rxid, _zxid, err = r.take(">iqi")
            if rxid == -1:  # a watch event; we set none, skip defensively
                continue
            if rxid != xid:
                raise ZkError(0, f"{what}: answer for xid {rxid}, expected {xid}")
            if err != 0:
                raise ZkError(err, what)
            return r

    def ping(self):
        self._call(OP_PING, b"", "ping", xid=-2)

    def create(self, path, data=b"", ephemeral=False):
        body = _str(path) + _buf(data) + _OPEN_ACL + struct.pack(">i", EPHEMERAL if ephemeral else 0)
        return self._call(OP_CREATE, body, f"create {path}").buf().decode()

    def ensure_path(self, path):
        parts = [p for p in path.split("/") if p]
        for i in range(1, len(parts) + 1):
            try:
                self.create("/" + "/".join(parts[:i]))
            except ZkError as e:
                if e.code != NODEEXISTS:
                    raise

    def exists(self, path):
        """The node's stat dict, or None if there is no such node."""
        try:
            return self._call(OP_EXISTS, _str(path) + b"\x00", f"exists {path}").stat()
        except ZkError as e:
            if e.code == NONODE:
                return None
            raise

    def get_data(self, path):
        r = self._call(OP_GETDATA, _str(path) + b"\x00", f"get {path}")
        return r.buf(), r.stat()

    def get_children(self, path):
        r = self._call(OP_GETCHILDREN, _str(path) + b"\x00", f"ls {path}")
        return sorted(r.buf().decode() for _ in range(r.take(">i")))

    def delete(self, path, version=-1):
        self._call(OP_DELETE, _str(path) + struct.pack(">i", version), f"delete {path}")

    def close(self):
        try:
            self._call(OP_CLOSE, b"", "close")
        except (OSError, ZkError):
            pass
        finally:
            self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
