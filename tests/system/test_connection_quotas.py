"""Per-address connection limits (issue 17, Deliver 5): max.connections.per.ip
and max.connections.per.ip.overrides, at start and changed live through
AlterConfigs on the broker. A connection over its address's limit is closed
right after accept, before it is read; the ones already open stay; other
addresses are not affected (the unit tests cover several addresses: here
every client is 127.0.0.1). Passes against Spool and against the Apache
Kafka 4.4 peer:
  cd tests/system && SPOOL_TEST_PEER=kafka /usr/bin/python3 -m pytest -q test_connection_quotas.py
"""

import gc
import time

from confluent_kafka.admin import AdminClient, ConfigResource

import kafka_wire as w
from harness import Broker


def answered(s):
    """Whether the broker answers an ApiVersions v0 on socket `s` (False:
    it closed the connection)."""
    try:
        s.sendall(w.request(18, 0, 5))
        frame = w.read_frame(s)
    except OSError:  # reset by the peer
        return False
    if frame is None:
        return False
    corr, err, _ = w.parse_api_versions_v0(frame)
    assert (corr, err) == (5, 0)
    return True


def connections(port, n):
    """n sockets to `port`, and whether each was answered, in order."""
    socks = [w.connect(port, timeout=10) for _ in range(n)]
    return socks, [answered(s) for s in socks]


def close_all(socks):
    for s in socks:
        s.close()


def alter_broker(bootstrap, configs):
    """Sets the broker's dynamic configs to `configs` (legacy AlterConfigs
    replaces the whole set) on its own node id."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    node = next(iter(admin.list_topics(timeout=10).brokers))
    res = ConfigResource(ConfigResource.Type.BROKER, str(node), set_config=configs)
    admin.alter_configs([res])[res].result(30)
    del admin  # its connections count against 127.0.0.1 too: close them
    gc.collect()


def test_per_ip_limit_at_start_and_overrides_applied_live():
    b = Broker(overrides={"max.connections.per.ip": "3"}, name="quotas")
    try:
        b.start(ready=lambda: _accepting(b.port))
        # Once the readiness probes are gone, three are served, the fourth
        # is closed unread.
        socks, ok = _settled(b.port, 4, want=[True, True, True, False])
        assert ok == [True, True, True, False], ok
        # The ones open stay open.
        assert all(answered(s) for s in socks[:3])
        close_all(socks)

        alter_broker(b.bootstrap, {"max.connections.per.ip.overrides": "127.0.0.1:5"})
        socks, ok = _settled(b.port, 6, want=[True] * 5 + [False])
        assert ok == [True] * 5 + [False], ok
        close_all(socks)

        # Lowered live: new connections get the new limit.
        alter_broker(b.bootstrap, {"max.connections.per.ip.overrides": "127.0.0.1:1"})
        socks, ok = _settled(b.port, 2, want=[True, False])
        assert ok == [True, False], ok
        close_all(socks)
    finally:
        b.stop()
        b.cleanup()


def _accepting(port):
    try:
        with w.connect(port, timeout=2) as s:
            return answered(s)
    except OSError:
        return False


def _settled(port, n, want, timeout=30.0):
    """Opens n connections until their answers are `want`, or the timeout;
    -> (sockets, answers). Closed sockets leave the broker's count
    asynchronously, and a live change lands asynchronously on the peer,
    hence the retries."""
    deadline = time.monotonic() + timeout
    while True:
        socks, ok = connections(port, n)
        if ok == want or time.monotonic() > deadline:
            return socks, ok
        close_all(socks)
        time.sleep(0.3)
