"""The cluster fixture's process harness: one ZooKeeper and N `spool broker`
processes on free loopback ports, everything under one temp dir, for the
system tests of cluster mode (issue 13) and `scripts/run-cluster`.

Layout (base = a fresh temp dir, kept on failure):
  base/zk/            ZooKeeper: zoo.cfg, data/, zookeeper.log, zk.pid
  base/broker-I/data  log.dirs of broker I; base/broker-I/broker.N.log = its
                      stdout+stderr of start number N.

API (see `Cluster`):
  c = Cluster(n=3, overrides={...}); c.start()   ZooKeeper, then the brokers,
      ready when every broker's port accepts and its Metadata lists all N
      brokers (cluster mode). With zookeeper=False (N must be 1) the broker runs
      without zookeeper.connect (today's single node) and ready = port accepts.
  c.bootstrap                "127.0.0.1:P0,127.0.0.1:P1,..." of the brokers
  c.kill9(i) / c.stop(i)     SIGKILL / SIGTERM (stop raises unless exit 0)
  c.pause(i) / c.resume(i)   SIGSTOP / SIGCONT
  c.restart(i)               start again (after stop/kill9, or stop first if
                             running) with the same broker.id, port and dirs
  c.start_broker(i)          start a stopped broker, wait until it serves
  c.log(i)                   all its output, every start, as text
  c.metadata(i=None)         Metadata v7 from broker i (or any live one)
  c.wait_ready()             again after faults (bounded)
  c.leader_of(topic, p), c.controller()   from Metadata
  c.zk.stop()/start()/kill9()/restart(), c.zk.connect, c.zk.port, c.zk.session()
  c.chroot, c.broker_znode(i), c.registration(i)   /brokers/ids/I stat or None
  c.expire_session(i)        make broker i's ZooKeeper session expire (below)
  c.stop_all()               SIGTERM every broker, then ZooKeeper; exit codes
  c.close(keep_logs=False)   kills everything still running; removes base
                             unless keep_logs (then prints the log paths)
  Ports are picked free at construction (a port taken before the first start
  is picked again once); restarts keep them.

Session expiry (the robust trick, as in Kafka's and Redpanda's tests): the
broker is SIGSTOPped; a frozen process sends no heartbeats, so ZooKeeper
expires its session after zookeeper.session.timeout.ms and deletes its
ephemeral /brokers/ids/I. We poll ZooKeeper from our own session until that
znode is gone (or its owner changed), bounded by the session timeout + 10 s,
then SIGCONT. The broker wakes up to an expired session and must re-register.
No client library hook is needed and it works for any ZooKeeper client.

ZooKeeper comes from tests/support/zk-server (start DIR PORT / stop DIR /
kill9 DIR): Debian's ZooKeeper 3.8 standalone with DIR/zoo.cfg, DIR/zk.pid
and DIR/zookeeper.log. SPOOL_ZK_SERVER=/path/zk-server names another script
with the same CLI.

Peer mode (SPOOL_TEST_PEER=kafka, or Cluster(peer="kafka")): the same API over
an Apache Kafka 4.4 KRaft cluster of N combined broker+controller nodes started
through `scripts/kafka-peer cluster-start` (node.id I = index I, data under
base/peer/node-I, log base/peer/node-I/kafka.log). Differences:
  - no ZooKeeper: c.zk is None; expire_session, registration and broker_znode
    raise ClusterError("... not applicable on KRaft ...") (a KRaft broker has a
    heartbeat session with the controller quorum instead: pause() it for longer
    than broker.session.timeout.ms to fence it).
  - pause/resume SIGSTOP/SIGCONT the JVM.
  - controller() is the active KRaft controller (the quorum leader, newest
    "[QuorumController id=I] In the new epoch E, the leader is X" in the node
    logs): a KRaft broker's Metadata ControllerId is a random live broker.
  - wait_ready: every live unpaused node lists every live unpaused node and no
    dead one (a killed node stays listed until broker.session.timeout.ms
    fences it). A paused node may or may not be listed.
  - stop(i) is a clean SIGTERM while a controller quorum remains; a node left
    without one (the last of 3 after two are down) cannot finish its
    controlled shutdown (Kafka waits up to 5 minutes for the controller), so
    stop_all() stops every running node at once (kafka-peer cluster-stop).
    cluster_fixtures' cluster_factory stops nodes one by one at teardown: use
    a fixture that calls stop_all() (as test_failover_clients.py does).
  - peer_cluster.PEER_FAST_FAILOVER holds overrides for quick fencing and controller
    elections; tests pass them as overrides (the script keeps Kafka's defaults).
  Env KAFKA_PEER_HEAP (default here -Xmx384m -Xms128m per node).

Every wait is bounded; errors raise `ClusterError` with the relevant log tail.
Not thread-safe: drive a Cluster from one thread (the workload's threads only
talk Kafka to it).
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "compat"))

from harness import REPO_ROOT, free_port, port_accepts, spool_bin  # noqa: E402
import meta_wire  # noqa: E402
import peer_cluster as _peer  # noqa: E402  (peer mode; imports this module lazily)
import power_cut  # noqa: E402
import zk_wire  # noqa: E402

ZK_SCRIPT = os.path.join(REPO_ROOT, "tests", "support", "zk-server")
ZK_START_TIMEOUT_S = 30.0
ZK_STOP_TIMEOUT_S = 15.0
BROKER_START_TIMEOUT_S = 30.0
CLUSTER_READY_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 15.0
LOG_TAIL_CHARS = 6000
DEFAULT_SESSION_TIMEOUT_MS = 6000

# Overrides every cluster broker gets unless the test sets them.
BASE_OVERRIDES = {
    "group.initial.rebalance.delay.ms": "0",
}


class ClusterError(RuntimeError):
    pass


def _tail(text, n=LOG_TAIL_CHARS):
    return text if len(text) <= n else "...\n" + text[-n:]


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _all_threads_stopped(pid):
    """Every task of `pid` in state T (stopped); a vanished process counts as stopped."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return True
    for t in tasks:
        try:
            with open(f"/proc/{pid}/task/{t}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in ("T", "t"):
            return False
    return True


def _wait(pred, timeout, poll=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(poll)
    return pred()


def freeze_until_expired(pid, zk, znode, owner, limit_s):
    """SIGSTOPs `pid` until ZooKeeper `zk` has expired session `owner`: the
    ephemeral `znode` is gone or owned by another session. SIGCONT always
    follows (also on timeout or error). Raises ClusterError after limit_s."""
    os.kill(pid, signal.SIGSTOP)
    try:
        def expired():
            with zk.session() as s:
                st = s.exists(znode)
            return st is None or st["ephemeral_owner"] != owner

        if not _wait(expired, limit_s, 0.2):
            raise ClusterError(f"session {owner:#x} holding {znode} did not expire within {limit_s} s")
    finally:
        os.kill(pid, signal.SIGCONT)


class ZooKeeper:
    """One standalone ZooKeeper server with data under `dir`, on 127.0.0.1:port.
    Through tests/support/zk-server (or the script SPOOL_ZK_SERVER names)."""

    def __init__(self, dir, port=None, script=None):
        self.dir = os.path.abspath(dir)
        self.port = port or free_port()
        os.makedirs(self.dir, exist_ok=True)
        self.script = script or os.environ.get("SPOOL_ZK_SERVER") or ZK_SCRIPT
        if not os.access(self.script, os.X_OK):
            raise ClusterError(f"{self.script} is missing or not executable")
        self.starts = 0

    @property
    def connect(self):
        return f"127.0.0.1:{self.port}"

    @property
    def log_path(self):
        return os.path.join(self.dir, "zookeeper.log")

    def log(self):
        return _read(self.log_path)

    def ok(self):
        """Serving clients (srvr answers with its mode, not just ruok)."""
        return zk_wire.serving(self.port)

    def _pid(self):
        try:
            with open(os.path.join(self.dir, "zk.pid")) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def _script(self, *args, timeout):
        return subprocess.run([self.script, *args], stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=timeout)

    def start(self, timeout=ZK_START_TIMEOUT_S):
        self.starts += 1
        if port_accepts(self.port):
            raise ClusterError(f"ZooKeeper port {self.port} already in use")
        with open(self.log_path, "ab") as logf:
            logf.write(f"----- zookeeper start #{self.starts} -----\n".encode())
        r = self._script("start", self.dir, str(self.port), timeout=timeout + 30)
        if r.returncode != 0:
            raise ClusterError(f"{self.script} start failed ({r.returncode}):\n{r.stdout}{r.stderr}\n"
                               f"{_tail(self.log())}")
        if not _wait(lambda: self.ok() or not self.alive(), timeout) or not self.ok():
            self.kill9()
            raise ClusterError(f"ZooKeeper did not serve (srvr) on {self.port} within {timeout} s:\n"
                               f"{_tail(self.log())}")
        return self

    def alive(self):
        pid = self._pid()
        if pid is None:
            return False
        try:
            os.kill(pid, 0)
            return True
        except OSError:
            return False

    def stop(self, timeout=ZK_STOP_TIMEOUT_S):
        """zk-server stop (SIGTERM and wait); True when it stopped cleanly."""
        return self._script("stop", self.dir, timeout=timeout + 30).returncode == 0

    def kill9(self):
        self._script("kill9", self.dir, timeout=30)

    def restart(self, timeout=ZK_START_TIMEOUT_S):
        if not self.stop():
            raise ClusterError(f"ZooKeeper did not stop cleanly:\n{_tail(self.log())}")
        if not _wait(lambda: not port_accepts(self.port), 10):
            raise ClusterError(f"ZooKeeper port {self.port} still accepts after stop")
        return self.start(timeout)

    def session(self, timeout_ms=6000):
        return zk_wire.ZkSession(self.port, timeout_ms)


class ClusterBroker:
    """One `spool broker` process; id, port and dirs fixed for its lifetime."""

    def __init__(self, broker_id, base, port=None, overrides=None, zk_connect=None):
        self.id = broker_id
        self.dir = os.path.join(base, f"broker-{broker_id}")
        self.data_dir = os.path.join(self.dir, "data")
        os.makedirs(self.data_dir, exist_ok=True)
        self.port = port or free_port()
        self.overrides = dict(overrides or {})
        self.zk_connect = zk_connect
        self.proc = None
        self.paused = False
        self.starts = 0
        self.env = {}  # extra environment (power_cut.fault_fs_env)

    @property
    def bootstrap(self):
        return f"127.0.0.1:{self.port}"

    def args(self):
        a = [spool_bin(), "broker"]
        if self.zk_connect:  # cluster mode only: a single node keeps today's config
            a += ["--override", f"broker.id={self.id}"]
        a += ["--override", f"listeners=PLAINTEXT://127.0.0.1:{self.port}",
              "--override", f"log.dirs={self.data_dir}"]
        if self.zk_connect:
            a += ["--override", f"zookeeper.connect={self.zk_connect}"]
        for k, v in self.overrides.items():
            a += ["--override", f"{k}={v}"]
        return a

    def log_path(self, n=None):
        return os.path.join(self.dir, f"broker.{n or self.starts}.log")

    def log(self):
        return "\n".join(f"----- broker {self.id} start #{n} -----\n{_read(self.log_path(n))}"
                         for n in range(1, self.starts + 1))

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def spawn(self):
        if self.alive():
            raise ClusterError(f"broker {self.id} already running")
        if not os.path.exists(spool_bin()):
            raise ClusterError(f"spool binary not found at {spool_bin()} (set SPOOL_BIN)")
        self.starts += 1
        with open(self.log_path(), "wb") as f:
            self.proc = subprocess.Popen(self.args(), stdin=subprocess.DEVNULL, stdout=f,
                                         stderr=subprocess.STDOUT, env=dict(os.environ, **self.env))
        self.paused = False

    def wait_port(self, timeout=BROKER_START_TIMEOUT_S, retry_port=False):
        """Until the port accepts. retry_port (first start only): a broker that
        lost the race for its free port gets a new one and starts again, once."""
        if not _wait(lambda: not self.alive() or port_accepts(self.port), timeout, 0.05) \
                or not self.alive():
            rc = self.proc.poll()
            self.kill9()
            if retry_port and self.starts == 1 and "in use" in _read(self.log_path()).lower():
                self.port = free_port()
                self.spawn()
                return self.wait_port(timeout)
            raise ClusterError(f"broker {self.id} not listening on {self.port} within {timeout} s "
                               f"(exit {rc}):\n{_tail(_read(self.log_path()))}")

    def signal(self, sig):
        if not self.alive():
            rc = self.proc.returncode if self.proc is not None else None
            raise ClusterError(f"broker {self.id} is not running (exit {rc}):\n{_tail(_read(self.log_path()))}")
        self.proc.send_signal(sig)

    def stop(self, timeout=STOP_TIMEOUT_S):
        """SIGTERM; the exit code (SIGKILL after timeout gives -9)."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            if self.paused:
                self.proc.send_signal(signal.SIGCONT)
                self.paused = False
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def kill9(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.paused = False


class Cluster:
    def __init__(self, n=3, overrides=None, zookeeper=True, session_timeout_ms=DEFAULT_SESSION_TIMEOUT_MS,
                 base=None, zk_port=None, ports=None, name="cluster", peer=None, broker_overrides=None):
        """broker_overrides: {broker id: {key: value}} on top of `overrides`
        for that broker alone (Spool only: the peer's nodes share one config)."""
        self.peer = _peer.which_cluster_peer(peer)
        if self.peer == "kafka":
            if broker_overrides:
                raise ClusterError("per-broker overrides are not supported by the Kafka peer cluster")
            _peer.init_cluster(self, n, overrides, base, ports, name)
            return
        if not zookeeper and n != 1:
            raise ClusterError("without ZooKeeper a cluster has exactly one broker")
        self.base = base or tempfile.mkdtemp(prefix=f"spool-{name}-")
        os.makedirs(self.base, exist_ok=True)
        self.n = n
        self.session_timeout_ms = session_timeout_ms
        self.zk = ZooKeeper(os.path.join(self.base, "zk"), zk_port) if zookeeper else None
        self.chroot = f"/spool-{uuid.uuid4().hex[:8]}" if zookeeper else None
        ov = dict(BASE_OVERRIDES)
        if zookeeper:
            ov["zookeeper.session.timeout.ms"] = str(session_timeout_ms)
        ov.update(overrides or {})
        zk_connect = f"{self.zk.connect}{self.chroot}" if zookeeper else None
        ports = list(ports) if ports else [None] * n
        self.brokers = [ClusterBroker(i, self.base, ports[i], {**ov, **(broker_overrides or {}).get(i, {})}, zk_connect)
                        for i in range(n)]

    # -- addresses ------------------------------------------------------------
    @property
    def bootstrap(self):
        return ",".join(b.bootstrap for b in self.brokers)

    def broker(self, i):
        return self.brokers[i]

    # -- whole cluster ----------------------------------------------------------
    def start(self, timeout=CLUSTER_READY_TIMEOUT_S):
        if self.peer == "kafka":
            return _peer.start_cluster(self, max(timeout, _peer.PEER_START_TIMEOUT_S))
        if self.zk is not None:
            if not self.zk.alive():
                try:
                    self.zk.start()
                except ClusterError as e:
                    # lost the race for a free port (first start only): once more on another
                    if self.zk.starts > 1 or "in use" not in (str(e) + self.zk.log()).lower():
                        raise
                    self.zk.port = free_port()
                    for b in self.brokers:
                        b.zk_connect = f"{self.zk.connect}{self.chroot}"
                    self.zk.start()
            with self.zk.session() as s:  # the chroot must exist before brokers connect
                s.ensure_path(self.chroot)
        for b in self.brokers:
            if b.starts == 0 and port_accepts(b.port):  # taken since we picked it
                b.port = free_port()
            b.spawn()
        for b in self.brokers:
            b.wait_port(retry_port=True)
        self.wait_ready(timeout)
        return self

    def wait_ready(self, timeout=CLUSTER_READY_TIMEOUT_S, brokers=None):
        """Until every live, unpaused broker (or those in `brokers`) answers
        Metadata listing exactly the running broker ids (cluster mode; a
        paused broker counts as running: its session may still be alive)."""
        want_live = sorted(b.id for b in self.brokers if b.alive())
        ids = brokers if brokers is not None else [b.id for b in self.brokers if b.alive() and not b.paused]
        last = {}

        def ready():
            if self.peer == "kafka":
                return _peer.cluster_ready(self, ids, last)
            for i in ids:
                try:
                    md = self.metadata(i, timeout=2.0)
                except (OSError, AssertionError, ClusterError) as e:
                    last[i] = repr(e)
                    return False
                got = sorted(x["NodeId"] for x in md["Brokers"])
                last[i] = got
                if self.zk is not None and got != want_live:
                    return False
            return True

        if not _wait(ready, timeout, 0.2):
            raise ClusterError(f"cluster not ready within {timeout} s: want brokers {want_live}, "
                               f"Metadata said {last}\n" + self.log_tails())

    def metadata(self, i=None, topics=None, timeout=5.0):
        """Metadata v7 (brokers, controller id, leaders, ISRs, offline
        replicas) from broker i, or from the first live broker that answers."""
        order = [i] if i is not None else [b.id for b in self.brokers if b.alive() and not b.paused]
        err = None
        for j in order:
            try:
                with meta_wire.Conn(self.brokers[j].port, timeout) as c:
                    req = {"Topics": None if topics is None else [{"Name": t} for t in topics],
                           "AllowAutoTopicCreation": False}
                    return c.call(meta_wire.METADATA, 7, req)
            except (OSError, AssertionError) as e:
                err = e
        raise ClusterError(f"no broker answered Metadata: {err!r}")

    def leader_of(self, topic, partition, i=None):
        md = self.metadata(i, [topic])
        for t in md["Topics"]:
            for p in t["Partitions"]:
                if t["Name"] == topic and p["PartitionIndex"] == partition:
                    return p["LeaderId"]
        return -1

    def controller(self, i=None):
        if self.peer == "kafka":
            return _peer.active_controller(self)
        return self.metadata(i)["ControllerId"]

    # -- one broker -------------------------------------------------------------
    def start_broker(self, i, timeout=CLUSTER_READY_TIMEOUT_S):
        b = self.brokers[i]
        b.spawn()
        b.wait_port()
        self.wait_ready(timeout)
        return b

    def kill9(self, i):
        self.brokers[i].kill9()

    def stop(self, i):
        b = self.brokers[i]
        rc = b.stop()
        if rc != 0:
            raise ClusterError(f"broker {i} exited {rc} on SIGTERM:\n{_tail(_read(b.log_path()))}")
        return rc

    def pause(self, i):
        """SIGSTOP, returning once every thread of the process is stopped (the
        signal is delivered asynchronously: a request sent right after kill()
        could still be answered)."""
        b = self.brokers[i]
        b.signal(signal.SIGSTOP)
        b.paused = True
        pid = b.proc.pid if getattr(b, "proc", None) is not None else getattr(b, "pid", None)
        if pid is not None and not _wait(lambda: _all_threads_stopped(pid), 5.0, 0.01):
            raise ClusterError(f"broker {b.id} (pid {pid}) not stopped 5 s after SIGSTOP")

    def resume(self, i):
        b = self.brokers[i]
        b.signal(signal.SIGCONT)
        b.paused = False

    def power_cut(self, i):
        """Broker i (started with power_cut.fault_fs_env) loses power; its log
        dir is left as its disk would be. Returns the broker's report."""
        b = self.brokers[i]
        return power_cut.cut(b.proc, b.data_dir, lambda: _read(b.log_path()))

    def restart(self, i, timeout=CLUSTER_READY_TIMEOUT_S):
        """Same id, port and dirs. A running broker is stopped first (exit 0)."""
        if self.brokers[i].alive():
            self.stop(i)
        return self.start_broker(i, timeout)

    def log(self, i):
        return self.brokers[i].log()

    # -- ZooKeeper sessions -----------------------------------------------------------
    def broker_znode(self, i):
        if self.peer == "kafka":
            raise ClusterError(f"broker_znode: {_peer.PEER_NOT_APPLICABLE}")
        return f"{self.chroot}/brokers/ids/{self.brokers[i].id}"

    def registration(self, i):
        """Stat of /brokers/ids/I under the chroot, or None if not registered."""
        if self.peer == "kafka":
            raise ClusterError(f"registration: {_peer.PEER_NOT_APPLICABLE}")
        with self.zk.session() as s:
            return s.exists(self.broker_znode(i))

    def expire_session(self, i, extra_timeout_s=10.0, owner=None):
        """SIGSTOP broker i until ZooKeeper has expired its session, then
        SIGCONT. The session counts as expired once the registration znode is
        gone or owned by a session other than the one seen before (owner
        given: that session id). Returns the old owner session id.
        Peer mode: raises ClusterError (not applicable on KRaft)."""
        if self.peer == "kafka":
            raise ClusterError(f"expire_session: {_peer.PEER_NOT_APPLICABLE}")
        if self.zk is None:
            raise ClusterError("expire_session needs ZooKeeper")
        st = self.registration(i)
        if owner is None:
            if st is None:
                raise ClusterError(f"broker {i} is not registered at {self.broker_znode(i)}")
            owner = st["ephemeral_owner"]
        self.brokers[i].paused = True
        try:
            freeze_until_expired(self.brokers[i].proc.pid, self.zk, self.broker_znode(i), owner,
                                 self.session_timeout_ms / 1000.0 + extra_timeout_s)
        finally:
            self.brokers[i].paused = False
        return owner

    # -- teardown ---------------------------------------------------------------
    def log_paths(self):
        paths = [p for b in self.brokers for p in (b.log_path(n) for n in range(1, b.starts + 1))]
        if self.zk is not None:
            paths.append(self.zk.log_path)
        return paths

    def log_tails(self, n=2000):
        out = []
        for b in self.brokers:
            out.append(f"== broker {b.id} ({b.log_path()}) ==\n{_tail(_read(b.log_path()), n)}")
        if self.zk is not None:
            out.append(f"== zookeeper ({self.zk.log_path}) ==\n{_tail(self.zk.log(), n)}")
        return "\n".join(out)

    def close(self, keep_logs=False):
        """Kills every process still running (never raises for that). Keeps
        base and prints the log paths if keep_logs, else removes base."""
        for b in self.brokers:
            try:
                b.kill9()
            except OSError:
                pass
        if self.zk is not None:
            try:
                self.zk.kill9()
            except (OSError, subprocess.SubprocessError):
                pass
        if keep_logs:
            print(f"\ncluster logs kept under {self.base}:", file=sys.stderr)
            for p in self.log_paths():
                print(f"  {p}", file=sys.stderr)
        else:
            shutil.rmtree(self.base, ignore_errors=True)

    def stop_all(self):
        """Clean shutdown: brokers by SIGTERM (exit 0 each), then ZooKeeper.
        Returns {broker id: exit code}; ZooKeeper's cleanliness in 'zk'.
        Peer mode: every running node at once (kafka-peer cluster-stop): a KRaft
        node left without a controller quorum cannot finish its controlled
        shutdown (Kafka waits up to 5 minutes), so one-by-one stops of the
        last nodes hang; 0 per node that shut down cleanly."""
        if self.peer == "kafka":
            return _peer.stop_all(self)
        rcs = {b.id: b.stop() for b in self.brokers}
        if self.zk is not None:
            rcs["zk"] = self.zk.stop()
        return rcs
