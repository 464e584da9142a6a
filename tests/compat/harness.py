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
import tempfile
import time
import shutil

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_BIN = os.path.join(REPO_ROOT, "build", "spool")

START_TIMEOUT_S = 20.0
STOP_TIMEOUT_S = 10.0


class BrokerError(RuntimeError):
    pass


def spool_bin():
    return os.environ.get("SPOOL_BIN") or DEFAULT_BIN


def external_bootstrap():
    """Address of an already running broker to use instead of spawning one."""
    return os.environ.get("SPOOL_TEST_BOOTSTRAP") or None


def free_port():
    # Binding to port 0 lets the kernel pick an unused port; there is a small
    # window before the broker binds it, covered by the retry in start().
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_accepts(port, host="127.0.0.1", timeout=0.2):
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


class Broker:
    def __init__(self, overrides=None, log_dir=None, port=None, name="broker"):
        self.bin = spool_bin()
        self.overrides = dict(overrides or {})
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
        args = [self.bin, "broker",
                "--override", f"listeners=PLAINTEXT://127.0.0.1:{self.port}",
                "--override", f"log.dirs={self.log_dir}"]
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
