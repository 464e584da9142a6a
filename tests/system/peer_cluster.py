"""Peer mode of the cluster fixture (tests/system/cluster.py): the Cluster API
over an Apache Kafka 4.4 KRaft cluster of N combined broker+controller nodes,
started through `scripts/kafka-peer cluster-start` (see cluster.py's docstring,
"Peer mode"). Used when SPOOL_TEST_PEER=kafka or Cluster(peer="kafka").
PeerBroker is the ClusterBroker interface over one node's JVM (kafka-peer
node-start / stop / kill9, pid from node-I/kafka.pid); the functions below are
the peer-mode bodies of Cluster's methods. Imports cluster lazily (cluster
imports this module), so either may be imported first.
"""

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

import cluster as _c
from harness import REPO_ROOT, free_port, port_accepts


KAFKA_PEER_SCRIPT = os.path.join(REPO_ROOT, "scripts", "kafka-peer")
PEER_HEAP = "-Xmx384m -Xms128m"
PEER_START_TIMEOUT_S = 120.0
PEER_NOT_APPLICABLE = "not applicable on KRaft (the Kafka peer has no ZooKeeper)"
# Quick failover on the peer: a killed broker is fenced after 3 s, a lost quorum
# leader is replaced after ~1-1.5 s.
PEER_FAST_FAILOVER = {
    "broker.session.timeout.ms": "3000",
    "broker.heartbeat.interval.ms": "500",
    "controller.quorum.fetch.timeout.ms": "1000",
    "controller.quorum.election.timeout.ms": "500",
}
# Spool-only keys dropped from the overrides in peer mode.
SPOOL_ONLY_KEYS = ("zookeeper.session.timeout.ms", "zookeeper.connect", "durable.writes", "admin.listener")


def which_cluster_peer(peer=None):
    p = peer if peer is not None else (os.environ.get("SPOOL_TEST_PEER") or None)
    if p not in (None, "kafka"):
        raise _c.ClusterError(f"SPOOL_TEST_PEER={p}: only 'kafka' is known")
    return p


def _peer_env():
    env = dict(os.environ)
    env.setdefault("KAFKA_PEER_HEAP", PEER_HEAP)
    env["KAFKA_PEER_WATCH_PID"] = str(os.getpid())  # no JVM outlives the test process
    env.setdefault("KAFKA_PEER_START_TIMEOUT", str(int(PEER_START_TIMEOUT_S)))
    return env


def run_kafka_peer(*args, timeout=PEER_START_TIMEOUT_S + 60):
    """scripts/kafka-peer ARGS; (returncode, stdout+stderr)."""
    try:
        r = subprocess.run([KAFKA_PEER_SCRIPT, *args], stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=timeout, env=_peer_env())
    except subprocess.TimeoutExpired as e:
        return 124, f"kafka-peer {args[0]} timed out after {timeout} s: {e.stdout or ''}{e.stderr or ''}"
    return r.returncode, r.stdout + r.stderr


class PeerBroker:
    """Node I of the Kafka peer cluster under `peer_base` (scripts/kafka-peer
    node dir peer_base/node-I): the ClusterBroker interface over the JVM."""

    def __init__(self, broker_id, peer_base, port):
        self.id = broker_id
        self.peer_base = peer_base
        self.dir = os.path.join(peer_base, f"node-{broker_id}")
        self.data_dir = os.path.join(self.dir, "data")
        self.port = port
        self.overrides = {}
        self.paused = False
        self.starts = 0
        self.proc = None  # no Popen: the script supervises the JVM

    @property
    def bootstrap(self):
        return f"127.0.0.1:{self.port}"

    @property
    def pid(self):
        try:
            with open(os.path.join(self.dir, "kafka.pid")) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def exit_code(self):
        try:
            with open(os.path.join(self.dir, "kafka.exit")) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def alive(self):
        pid = self.pid
        if pid is None or os.path.exists(os.path.join(self.dir, "kafka.exit")):
            return False
        try:
            os.kill(pid, 0)
            return True
        except OSError:
            return False

    def log_path(self, n=None):
        return os.path.join(self.dir, "kafka.log")

    def log(self):
        return _c._read(self.log_path())

    def spawn(self):
        """node-start: returns once the node is listed unfenced by itself."""
        if self.alive():
            raise _c.ClusterError(f"peer node {self.id} already running")
        self.starts += 1
        rc, out = run_kafka_peer("node-start", self.peer_base, str(self.id))
        self.paused = False
        if rc != 0:
            raise _c.ClusterError(f"kafka-peer node-start {self.id} failed ({rc}):\n{_c._tail(out)}")

    def wait_port(self, timeout=None, retry_port=False):
        timeout = _c.BROKER_START_TIMEOUT_S if timeout is None else timeout
        if not _c._wait(lambda: not self.alive() or port_accepts(self.port), timeout, 0.05) or not self.alive():
            raise _c.ClusterError(f"peer node {self.id} not listening on {self.port}:\n{_c._tail(self.log())}")

    def signal(self, sig):
        if not self.alive():
            raise _c.ClusterError(f"peer node {self.id} is not running")
        os.kill(self.pid, sig)

    def stop(self, timeout=None):
        """SIGTERM through kafka-peer stop: 0 on a clean shutdown, else the
        JVM's exit status (or 1)."""
        if self.pid is None:
            return None
        if self.alive():
            if self.paused:
                os.kill(self.pid, signal.SIGCONT)
                self.paused = False
            rc, _ = run_kafka_peer("stop", self.dir, timeout=120)
            return 0 if rc == 0 else (self.exit_code() or rc)
        code = self.exit_code()
        return 0 if code in (0, 143) else code

    def kill9(self):
        if self.alive():
            if self.paused:
                os.kill(self.pid, signal.SIGCONT)
            run_kafka_peer("kill9", self.dir, timeout=60)
        self.paused = False


def init_cluster(self, n, overrides, base, ports, name):
    """Cluster.__init__ of peer mode."""
    self.base = base or tempfile.mkdtemp(prefix=f"kafka-{name}-")
    os.makedirs(self.base, exist_ok=True)
    self.n = n
    self.session_timeout_ms = None
    self.zk = None
    self.chroot = None
    self.peer_base = os.path.join(self.base, "peer")
    ov = dict(_c.BASE_OVERRIDES)
    ov.update(overrides or {})
    self.overrides = {k: v for k, v in ov.items() if k not in SPOOL_ONLY_KEYS}
    ports = list(ports) if ports else [free_port() for _ in range(n)]
    while len(set(ports)) != n:
        ports = [free_port() for _ in range(n)]
    self.brokers = [PeerBroker(i, self.peer_base, ports[i]) for i in range(n)]


def start_cluster(self, timeout):
    """Cluster.start of peer mode: kafka-peer cluster-start, then wait_ready."""
    for attempt in (1, 2):
        ports = ",".join(str(b.port) for b in self.brokers)
        kv = [f"{k}={v}" for k, v in self.overrides.items()]
        rc, out = run_kafka_peer("cluster-start", self.peer_base, str(self.n), ports, *kv,
                                 timeout=timeout + 60)
        if rc == 0:
            for b in self.brokers:
                b.starts += 1
            self.wait_ready(timeout)
            return self
        logs = "".join(b.log() for b in self.brokers)
        first = all(b.starts == 0 for b in self.brokers)
        if attempt == 1 and first and "Address already in use" in logs:
            run_kafka_peer("cluster-kill9", self.peer_base, timeout=60)
            shutil.rmtree(self.peer_base, ignore_errors=True)
            for b in self.brokers:
                b.port = free_port()
            continue
        raise _c.ClusterError(f"kafka-peer cluster-start failed ({rc}):\n{_c._tail(out)}\n{self.log_tails()}")


def cluster_ready(self, ids, last):
    """One wait_ready probe of peer mode."""
    live = sorted(b.id for b in self.brokers if b.alive() and not b.paused)
    maybe = {b.id for b in self.brokers if b.alive()}
    for i in ids:
        try:
            md = self.metadata(i, timeout=2.0)
        except (OSError, AssertionError, _c.ClusterError) as e:
            last[i] = repr(e)
            return False
        got = sorted(x["NodeId"] for x in md["Brokers"])
        last[i] = got
        if not set(live) <= set(got) or not set(got) <= maybe:
            return False
    return True


def active_controller(self):
    """The active KRaft controller: the leader of the newest quorum epoch
    in the live nodes' logs, or -1 if none is known."""
    best = (-1, -1)
    pat = re.compile(r"\[QuorumController id=\d+\] In the new epoch (\d+), the leader is (\S+?)\.")
    for b in self.brokers:
        if not b.alive():
            continue
        for m in pat.finditer(b.log()):
            leader = m.group(2)
            if leader.isdigit() and int(m.group(1)) > best[0]:
                best = (int(m.group(1)), int(leader))
    return best[1]


def stop_all(self):
    """Cluster.stop_all of peer mode: every running node at once (cluster-stop)."""
    was = [b for b in self.brokers if b.alive()]
    for b in was:
        if b.paused:
            os.kill(b.pid, signal.SIGCONT)
            b.paused = False
    if was:
        run_kafka_peer("cluster-stop", self.peer_base, timeout=180)
    return {b.id: (0 if b.exit_code() in (0, 143) and "shut down completed" in b.log()[-20000:]
                   else b.exit_code()) for b in was}
