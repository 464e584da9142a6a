"""Start, stop, restart and kill a real `spool broker` process for the
compatibility and system tests.

Contract:
  * `Broker` owns one child process and its temporary log dir/port. The same
    dir and port survive `restart()` and `kill9()` + `start()`, so a test can
    check recovery.
  * `start()` waits until the port accepts a TCP connection (default 20 s);
    on timeout or early exit it raises `BrokerError` carrying the broker's
    stderr, so a failing test shows why the broker did not come up.
  * `stop()` sends SIGTERM, escalates to SIGKILL after 10 s, and returns the
    exit code; the fixtures assert it is 0 (clean shutdown contract).
  * Not thread-safe: drive one Broker from one test thread.

Peer switch: with SPOOL_TEST_PEER=kafka (set by `make test-peer`), `Broker(...)`
makes a `KafkaPeerBroker` instead: the same interface, but start/stop/kill9 go
through scripts/kafka-peer (Apache Kafka 4.4.0, single-node KRaft) with the
same overrides minus Spool's own keys (SPOOL_ONLY_KEYS). `log_dir` is then
Kafka's log.dirs (DIR/data of the peer's DIR), `log()` the peer's kafka.log of
that start, and stop() returns 0 when the peer script saw a clean shutdown.
Tests that depend on Spool-only behaviour ask `which_peer()` and check Kafka's
behaviour instead (tests/compat/README.md, "Differences from Kafka 4.4").

Debugging aid: if the environment variable SPOOL_TEST_BOOTSTRAP is set
(e.g. to the address printed by /work/shared/tools/mockbroker), no broker is
started and tests talk to that address instead. Tests that need to restart or
kill the broker skip themselves in that mode. The real suite (ctest) never
sets it.
"""

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import shutil

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_BIN = os.path.join(REPO_ROOT, "build", "spool")

START_TIMEOUT_S = 20.0
STOP_TIMEOUT_S = 10.0

KAFKA_PEER = os.path.join(REPO_ROOT, "scripts", "kafka-peer")
# A JVM start (and a restart after kill -9, which waits for the old broker
# session to expire, ~9 s) takes far longer than Spool's.
PEER_START_TIMEOUT_S = 90.0
PEER_STOP_TIMEOUT_S = 60.0
# Spool's own broker keys (src/config/broker_keys.cc): Kafka would refuse
# none of them, but they mean nothing to it, so they are not passed on.
SPOOL_ONLY_KEYS = ("durable.writes", "reactor.threads", "log.level", "log.format", "admin.listener")
# Spool's own topic keys (src/config/topic_config.cc): Kafka refuses them
# (INVALID_CONFIG "Unknown topic config name").
SPOOL_ONLY_TOPIC_KEYS = ("durable.writes",)


class BrokerError(RuntimeError):
    pass


def spool_bin():
    return os.environ.get("SPOOL_BIN") or DEFAULT_BIN


def which_peer():
    """None for Spool, or the peer named by SPOOL_TEST_PEER ("kafka")."""
    peer = os.environ.get("SPOOL_TEST_PEER") or None
    if peer not in (None, "kafka"):
        raise BrokerError(f"SPOOL_TEST_PEER={peer!r}: only 'kafka' is known")
    return peer


def peer_overrides(overrides):
    """The overrides as the Kafka peer gets them (Spool-only keys dropped)."""
    return {k: v for k, v in overrides.items() if k not in SPOOL_ONLY_KEYS}


def topic_configs(configs):
    """Topic configs for CreateTopics/AlterConfigs: as given against Spool,
    without Spool's own topic keys against the Kafka peer."""
    if which_peer() is None:
        return dict(configs)
    return {k: v for k, v in configs.items() if k not in SPOOL_ONLY_TOPIC_KEYS}


def random_seed(env_var):
    """The seed of a test's random choices: the value of env_var (to replay
    a run) or a fresh one. Printed, so a failing test's captured output
    says how to replay it."""
    import random
    seed = int(os.environ.get(env_var) or random.SystemRandom().randrange(1 << 31))
    print(f"random choices seeded with {env_var}={seed}")
    return seed


def missing_tool(what):
    """A tool or client library a test needs (kcat, node, mvn, java, go, a
    codec module...) is missing: a failure under CI=true (a missing tool must
    not pass as a skip), else a skip."""
    import pytest
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} missing (CI=true: a missing tool is a failure)")
    pytest.skip(f"{what} missing")


def external_bootstrap():
    """Address of an already running broker to use instead of spawning one."""
    return os.environ.get("SPOOL_TEST_BOOTSTRAP") or None


def tls_certs(directory):
    """Throw-away TLS material (py/tls_certs.py: a fresh CA, server and client
    certificates) written into `directory`; returns name -> path."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "py", "tls_certs.py")
    r = subprocess.run([sys.executable, script, directory], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"tls_certs.py failed:\n{r.stdout}{r.stderr}"
    return lambda name: os.path.join(directory, name)


def free_port():
    # Binding to port 0 lets the kernel pick an unused port; there is a small
    # window before the broker binds it, covered by the retry in start().
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status_mb(pid, key="VmRSS"):
    """A memory figure of process `pid` from /proc/PID/status (VmRSS,
    VmHWM...), in MB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024.0
    raise AssertionError(f"no {key} for {pid}")


def port_accepts(port, host="127.0.0.1", timeout=0.2):
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


class Broker:
    def __new__(cls, *args, **kwargs):
        if cls is Broker and which_peer() == "kafka":
            return super().__new__(KafkaPeerBroker)
        return super().__new__(cls)

    def __init__(self, overrides=None, log_dir=None, port=None, name="broker", extra_listeners=None,
                 listener_protocols=None):
        """extra_listeners: {NAME: port}, more listeners on 127.0.0.1 after
        the PLAINTEXT one on `port`, all advertised; PLAINTEXT unless
        listener_protocols ({NAME: protocol}) names another protocol."""
        self.bin = spool_bin()
        self.overrides = dict(overrides or {})
        self.extra_listeners = dict(extra_listeners or {})
        self.listener_protocols = {n: (listener_protocols or {}).get(n, "PLAINTEXT") for n in self.extra_listeners}
        self._own_dir = log_dir is None
        self.work_dir = tempfile.mkdtemp(prefix="spool-test-")
        self.log_dir = log_dir or os.path.join(self.work_dir, "data")
        os.makedirs(self.log_dir, exist_ok=True)
        self.port = port or free_port()
        self.name = name
        self.proc = None
        self.starts = 0
        self._stderr_path = None
        self._stderr_file = None
        self.last_start_seconds = None

    # -- addresses ---------------------------------------------------------
    @property
    def bootstrap(self):
        return f"127.0.0.1:{self.port}"

    # -- process control ---------------------------------------------------
    def _args(self):
        listeners = ",".join([f"PLAINTEXT://127.0.0.1:{self.port}"] +
                             [f"{n}://127.0.0.1:{p}" for n, p in self.extra_listeners.items()])
        args = [self.bin, "broker", "--override", f"listeners={listeners}",
                "--override", f"log.dirs={self.log_dir}"]
        if self.extra_listeners:
            protocols = ",".join(["PLAINTEXT:PLAINTEXT"] + [f"{n}:{p}" for n, p in self.listener_protocols.items()])
            args += ["--override", f"listener.security.protocol.map={protocols}"]
        for k, v in self.overrides.items():
            args += ["--override", f"{k}={v}"]
        return args

    def start(self, timeout=START_TIMEOUT_S, retry_port=True, ready=None, poll_s=0.05):
        """Starts the broker and waits until `ready()` (default: the port
        accepts). last_start_seconds is measured from just before exec."""
        if self.proc is not None and self.proc.poll() is None:
            raise BrokerError("broker already running")
        if not os.path.exists(self.bin):
            raise BrokerError(f"spool binary not found at {self.bin} (set SPOOL_BIN)")
        self.starts += 1
        self._stderr_path = os.path.join(self.work_dir, f"{self.name}.{self.starts}.log")
        self._stderr_file = open(self._stderr_path, "wb")
        t0 = time.monotonic()
        self.proc = subprocess.Popen(self._args(), stdin=subprocess.DEVNULL,
                                     stdout=self._stderr_file, stderr=subprocess.STDOUT)
        deadline = t0 + timeout
        while time.monotonic() < deadline:
            rc = self.proc.poll()
            if rc is not None:
                log = self.log()
                # Lost the race for the port we picked: only on the very first
                # start, since restarts must keep the port.
                if retry_port and self.starts == 1 and "in use" in log.lower():
                    self.port = free_port()
                    self.starts = 0
                    return self.start(timeout, retry_port=False, ready=ready, poll_s=poll_s)
                raise BrokerError(f"broker exited with {rc} before listening:\n{log}")
            if ready() if ready else port_accepts(self.port):
                self.last_start_seconds = time.monotonic() - t0
                return self
            time.sleep(poll_s)
        self.kill9()
        raise BrokerError(f"broker did not accept on port {self.port} within {timeout} s:\n"
                          f"{self.log()}")

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=STOP_TIMEOUT_S):
        """SIGTERM, then SIGKILL after `timeout`. Returns the exit code
        (negative signal number if it had to be killed)."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        rc = self.proc.returncode
        self._close_log()
        return rc

    def kill9(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        self._close_log()

    def restart(self, timeout=START_TIMEOUT_S):
        """Clean stop (asserting exit 0) and start again on the same dir/port."""
        rc = self.stop()
        if rc != 0:
            raise BrokerError(f"broker exited with {rc} on SIGTERM:\n{self.log()}")
        return self.start(timeout)

    def _close_log(self):
        if self._stderr_file is not None:
            self._stderr_file.close()
            self._stderr_file = None

    def log(self, start_no=None):
        """The broker's stderr of start number `start_no` (default: latest)."""
        path = self._stderr_path
        if start_no is not None:
            path = os.path.join(self.work_dir, f"{self.name}.{start_no}.log")
        if not path or not os.path.exists(path):
            return ""
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def all_logs(self):
        parts = []
        for i in range(1, self.starts + 1):
            parts.append(f"----- {self.name} start #{i} -----\n{self.log(i)}")
        return "\n".join(parts)

    def cleanup(self):
        self.kill9()
        shutil.rmtree(self.work_dir, ignore_errors=True)


class KafkaPeerBroker(Broker):
    """Apache Kafka 4.4.0 through scripts/kafka-peer, in place of spool broker
    (SPOOL_TEST_PEER=kafka). The peer's DIR is `log_dir` if given (so two
    Brokers on the same log_dir share data, as with Spool), else a folder in
    work_dir; Kafka's log.dirs is DIR/data and becomes self.log_dir."""

    def __init__(self, overrides=None, log_dir=None, port=None, name="broker", extra_listeners=None,
                 listener_protocols=None):
        super().__init__(overrides=overrides, log_dir=log_dir, port=port, name=name, extra_listeners=extra_listeners,
                         listener_protocols=listener_protocols)
        self.bin = KAFKA_PEER
        self.peer_dir = self.log_dir
        self.log_dir = os.path.join(self.peer_dir, "data")
        self._running = False
        self._marks = []  # offset in kafka.log where each start's output begins

    def _kafka_log(self):
        return os.path.join(self.peer_dir, "kafka.log")

    def _run(self, *args, timeout):
        env = dict(os.environ,
                   KAFKA_PEER_EXTRA_LISTENERS=",".join(f"{n}://127.0.0.1:{p}"
                                                       for n, p in self.extra_listeners.items()),
                   KAFKA_PEER_EXTRA_PROTOCOLS=",".join(f"{n}:{p}" for n, p in self.listener_protocols.items()),
                   KAFKA_PEER_ADVERTISED=self.overrides.get("advertised.listeners", ""),
                   KAFKA_PEER_WATCH_PID=str(os.getpid()),  # no JVM outlives this process
                   KAFKA_PEER_START_TIMEOUT=str(int(timeout)),
                   KAFKA_PEER_STOP_TIMEOUT=str(int(PEER_STOP_TIMEOUT_S)))
        try:
            return subprocess.run([self.bin, *args], stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, env=env,
                                  timeout=timeout + 30)
        except subprocess.TimeoutExpired as e:
            raise BrokerError(f"kafka-peer {args[0]} did not return within {timeout + 30} s") from e

    def start(self, timeout=START_TIMEOUT_S, retry_port=True, ready=None, poll_s=0.05):
        if self.alive():
            raise BrokerError("broker already running")
        timeout = max(timeout, PEER_START_TIMEOUT_S)
        self.starts += 1
        log_path = self._kafka_log()
        self._marks.append(os.path.getsize(log_path) if os.path.exists(log_path) else 0)
        t0 = time.monotonic()
        args = ["start", self.peer_dir, str(self.port)]
        # advertised.listeners goes through KAFKA_PEER_ADVERTISED (see _run).
        args += [f"{k}={v}" for k, v in peer_overrides(self.overrides).items() if k != "advertised.listeners"]
        r = self._run(*args, timeout=timeout)
        self._script_out = r.stdout + r.stderr
        if r.returncode != 0:
            # Whatever the script left (it kills the JVM itself on a time-out,
            # but not if it failed in between) must not outlive the test.
            self._run("kill9", self.peer_dir, timeout=30)
            self._running = False
            text = self.log() + "\n" + self._script_out
            if retry_port and self.starts == 1 and "already in use" in text.lower() \
                    and f":{self.port}" in text:
                self.port = free_port()
                self.starts = 0
                self._marks = []
                return self.start(timeout, retry_port=False, ready=ready, poll_s=poll_s)
            raise BrokerError(f"kafka-peer start failed ({r.returncode}):\n{self._script_out}")
        self._running = True
        deadline = t0 + timeout
        while ready is not None and not ready():
            if time.monotonic() > deadline:
                self.kill9()
                raise BrokerError(f"kafka peer not ready within {timeout} s:\n{self.log()}")
            time.sleep(poll_s)
        self.last_start_seconds = time.monotonic() - t0
        return self

    def _pid(self):
        try:
            with open(os.path.join(self.peer_dir, "kafka.pid")) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def alive(self):
        if not self._running or os.path.exists(os.path.join(self.peer_dir, "kafka.exit")):
            return False
        pid = self._pid()
        if pid is None:
            return False
        try:
            os.kill(pid, 0)
            return True
        except OSError:
            return False

    def stop(self, timeout=STOP_TIMEOUT_S):
        """0 when the peer shut down cleanly (kafka-peer stop's verdict),
        else kafka-peer's exit code; None if never started."""
        if self.starts == 0:
            return None
        if not self._running:
            return self._last_rc
        r = self._run("stop", self.peer_dir, timeout=max(timeout, PEER_STOP_TIMEOUT_S))
        self._running = False
        self._last_rc = r.returncode
        if r.returncode != 0:
            self._script_out = r.stdout + r.stderr
        return r.returncode

    _last_rc = None
    _script_out = ""

    def kill9(self):
        if self._running:
            self._run("kill9", self.peer_dir, timeout=30)
            self._running = False
            self._last_rc = -signal.SIGKILL

    def restart(self, timeout=PEER_START_TIMEOUT_S):
        rc = self.stop()
        if rc != 0:
            raise BrokerError(f"kafka peer exited with {rc} on SIGTERM:\n{self._script_out}\n{self.log()}")
        return self.start(timeout)

    def rss_kib(self):
        """VmRSS of the running JVM (for the benchmarks and the report)."""
        pid = self._pid()
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return None

    def log(self, start_no=None):
        """kafka.log from start number `start_no` (default: latest) to the next."""
        path = self._kafka_log()
        if not self._marks or not os.path.exists(path):
            return ""
        i = (start_no or len(self._marks)) - 1
        with open(path, "rb") as f:
            f.seek(self._marks[i])
            end = self._marks[i + 1] if i + 1 < len(self._marks) else None
            data = f.read() if end is None else f.read(end - self._marks[i])
        return data.decode("utf-8", "replace")


    def all_logs(self):
        text = super().all_logs()
        if self._script_out:
            text += f"\n----- kafka-peer's last output -----\n{self._script_out}"
        return text


class ExternalBroker:
    """Stand-in for Broker when SPOOL_TEST_BOOTSTRAP is set: no process."""

    def __init__(self, bootstrap):
        self.bootstrap = bootstrap
        host, _, port = bootstrap.split(",")[0].rpartition(":")
        self.host = host
        self.port = int(port)

    def alive(self):
        return port_accepts(self.port, self.host)

    def log(self, start_no=None):
        return "(external broker: no log)"

    all_logs = log


JAVA_CLIENTS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "java")


def java_client_argv(main_class, *jvm_options):
    """[java, options..., -cp, classpath, main_class] for a driver of
    tests/compat/java, compiled offline (`mvn -B -o -q compile`) first."""
    mvn, java = shutil.which("mvn"), shutil.which("java")
    if mvn is None or java is None:
        missing_tool("mvn or java")
    r = subprocess.run([mvn, "-B", "-o", "-q", "compile"], cwd=JAVA_CLIENTS_DIR, capture_output=True, text=True,
                       timeout=600, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, f"mvn compile failed:\n{r.stdout[-3000:]}{r.stderr[-3000:]}"
    with open(os.path.join(JAVA_CLIENTS_DIR, "target", "runtime.classpath")) as f:
        cp = os.path.join(JAVA_CLIENTS_DIR, "target", "classes") + os.pathsep + f.read().strip()
    return [java, *jvm_options, "-cp", cp, main_class]
