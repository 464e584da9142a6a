"""max.connection.creation.rate per listener (issue 17, Deliver 5): a
listener over its connection creation rate holds new connections (Kafka's
acceptor waits the throttle time before serving the connection and taking
the next), while the other listeners serve at once.

The rate is Kafka's: connections counted in 11 one-second samples and
divided by at least 10 s (10 s plus the part of the current second). With
listener.name.slow.max.connection.creation.rate=2, a burst of 20
connections is within the limit and is served at once; the 21st measures
2.1/s and is held (2.1 - 2) / 2 of 10 s = 0.5 s, and the next ones longer
as the count grows faster than the window: the four over the rate take
several seconds (3 s on Kafka 4.4, 4 on Spool), each answered only after
its hold. A client on the PLAINTEXT listener meanwhile gets its
ApiVersions answer at once.

Passes against the Apache Kafka 4.4 peer too:
  cd tests/compat/py && SPOOL_TEST_PEER=kafka ../../../build-venv/bin/python -m pytest -q test_connection_rate.py
"""

import socket
import struct
import time

import pytest

from py_common import recv_exact
from spool_fixtures import serve_with_listeners

RATE = 2
FREE = 10 * RATE  # within the limit over the minimum 10 s window


def api_versions(port, timeout=30.0):
    """Connects, sends ApiVersions v0 and returns (socket, seconds until the answer)."""
    t0 = time.monotonic()
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    body = struct.pack(">hhih", 18, 0, 7, 4) + b"rate"
    s.sendall(struct.pack(">i", len(body)) + body)
    size = struct.unpack(">i", recv_exact(s, 4))[0]
    answer = recv_exact(s, size)
    assert struct.unpack(">i", answer[:4])[0] == 7, "correlation id"
    assert struct.unpack(">h", answer[4:6])[0] == 0, "error code"
    return s, time.monotonic() - t0


@pytest.fixture(scope="module")
def broker():
    yield from serve_with_listeners("connection_rate", {"listener.name.slow.max.connection.creation.rate": str(RATE)},
                                    {"SLOW": "PLAINTEXT"})


def test_a_listener_over_its_creation_rate_holds_new_connections(broker):
    slow = broker.extra_listeners["SLOW"]
    held = []
    try:
        t0 = time.monotonic()
        for _ in range(FREE):
            s, _ = api_versions(slow)
            held.append(s)
        burst = time.monotonic() - t0
        assert burst < 3.0, f"{FREE} connections within the rate took {burst:.2f} s"

        t1 = time.monotonic()
        s, first = api_versions(slow)  # the 21st: held about 0.5 s
        held.append(s)
        # Meanwhile another listener serves at once.
        other, plain = api_versions(broker.port)
        other.close()
        assert plain < 1.0, f"the PLAINTEXT listener took {plain:.2f} s"
        for _ in range(3):  # the 22nd to the 24th: about 1, 1.5 and 2 s more
            s, _ = api_versions(slow)
            held.append(s)
        over = time.monotonic() - t1
        print(f"{FREE} connections in {burst:.2f} s; the 21st answered after {first:.2f} s; "
              f"4 over the rate in {over:.2f} s")
        assert first >= 0.3, f"the 21st connection was not held ({first:.2f} s)"
        assert over >= 2.5, f"4 connections over the rate took only {over:.2f} s"
    finally:
        for s in held:
            s.close()
