"""The Debian package and the broker's contract with systemd, without systemd.

* scripts/make-deb builds spool_<version>_<arch>.deb from SPOOL_BIN; its
  control data (Depends from the binary's libraries, conffiles, maintainer
  scripts) and its files are checked with dpkg-deb --info / --contents.
* The package is extracted with dpkg-deb -x, and the unit's ExecStart line
  runs from there (binary and config mapped into the extracted root, log.dirs
  and listeners overridden) with NOTIFY_SOCKET naming a datagram socket this
  test binds, as systemd would for Type=notify: READY=1 arrives once the port
  accepts, 10 records go through, SIGTERM brings STOPPING=1 and exit 0.
* Every key shipped commented out in server.properties is accepted as given.
* The broker's log (stdout): log.format=json gives one JSON object per line;
  text format on journald's stream (JOURNAL_STREAM naming stdout) gives
  `<priority>` lines without a timestamp; a bad log.format stops the start.
"""

import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest

import ck_util
from harness import REPO_ROOT, free_port, missing_tool, port_accepts, spool_bin

MAKE_DEB = os.path.join(REPO_ROOT, "scripts", "make-deb")
CONFIG = "/etc/spool/server.properties"
UNIT = "/lib/systemd/system/spool.service"
READY_TIMEOUT_S = 30
STOP_TIMEOUT_S = 120  # the unit's TimeoutStopSec


def run(*argv, timeout=300):
    r = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{argv}: exit {r.returncode}\n{r.stdout}{r.stderr}"
    return r.stdout


@pytest.fixture(scope="module")
def deb(tmp_path_factory):
    out = tmp_path_factory.mktemp("deb")
    path = run(MAKE_DEB, spool_bin(), str(out)).strip()
    assert os.path.isfile(path), path
    return path


@pytest.fixture(scope="module")
def root(deb, tmp_path_factory):
    r = tmp_path_factory.mktemp("root")
    run("dpkg-deb", "-x", deb, str(r))
    return str(r)


def unit_settings(root):
    """The [Service] section of the extracted unit, key -> value."""
    settings, section = {}, None
    with open(root + UNIT) as f:
        for line in f:
            line = line.strip()
            if line.startswith("["):
                section = line
            elif section == "[Service]" and line and not line.startswith("#"):
                key, _, value = line.partition("=")
                settings[key] = value
    return settings


# ---------------------------------------------------------------- the package

def test_file_name_and_control_fields(deb):
    info = run("dpkg-deb", "--info", deb)
    fields = dict(re.findall(r"^ ([A-Z][A-Za-z-]+): (.*)$", info, re.M))
    arch = run("dpkg", "--print-architecture").strip()
    assert fields["Package"] == "spool"
    assert fields["Architecture"] == arch
    assert os.path.basename(deb) == f"spool_{fields['Version']}_{arch}.deb"
    assert re.fullmatch(r"\d+\.\d+\.\d+(\+git\d{8}\.[0-9a-f]+)?", fields["Version"]), fields["Version"]
    depends = {d.strip().split(" ")[0] for d in fields["Depends"].split(",")}
    # The libraries the binary links, named by their packages.
    for pkg in ("libc6", "libstdc++6", "libssl3", "libsystemd0", "libzstd1"):
        assert pkg in depends, fields["Depends"]
    assert "adduser | passwd" in fields["Depends"]
    for script in ("control", "conffiles", "postinst", "prerm", "postrm"):
        assert re.search(rf"^ +\d+ bytes, +\d+ lines +\*? *{script}\b", info, re.M), info


def test_maintainer_scripts(deb, tmp_path):
    control = tmp_path / "DEBIAN"
    run("dpkg-deb", "-e", deb, str(control))
    assert (control / "conffiles").read_text() == CONFIG + "\n"
    for script in ("postinst", "prerm", "postrm"):
        path = control / script
        assert os.access(path, os.X_OK), script
        run("sh", "-n", str(path))  # parses
    postinst = (control / "postinst").read_text()
    assert "adduser --system" in postinst and "useradd --system" in postinst
    assert "--home /var/lib/spool --no-create-home" in postinst
    assert "install -d -o spool -g spool -m 0750 /var/lib/spool" in postinst
    assert "[ -d /run/systemd/system ]" in postinst and "systemctl daemon-reload" in postinst
    prerm = (control / "prerm").read_text()
    assert "[ -d /run/systemd/system ]" in prerm and "systemctl stop spool.service" in prerm
    postrm = (control / "postrm").read_text()
    purge = postrm[postrm.index('"$1" = "purge"'):]
    assert "deluser" in purge and "userdel" in purge
    assert "/var/lib/spool" not in purge and "rm -r" not in purge  # the data stays


def test_contents(deb):
    listing = run("dpkg-deb", "--contents", deb)
    entries = {}
    for line in listing.splitlines():
        perms, owner, _size, _date, _time, path = line.split(None, 5)
        entries[path.removeprefix(".")] = (perms, owner)
    expected = {
        "/usr/bin/spool": "-rwxr-xr-x",
        CONFIG: "-rw-r--r--",
        UNIT: "-rw-r--r--",
        "/usr/share/doc/spool/copyright": "-rw-r--r--",
    }
    for path, perms in expected.items():
        assert path in entries, f"{path} missing:\n{listing}"
        assert entries[path][0] == perms, (path, entries[path])
    assert all(owner == "root/root" for _, owner in entries.values()), listing


def test_unit(root):
    s = unit_settings(root)
    assert s["Type"] == "notify" and s["NotifyAccess"] == "main"
    assert s["ExecStart"] == f"/usr/bin/spool broker --config {CONFIG}"
    assert s["User"] == "spool" and s["Group"] == "spool"
    assert s["Restart"] == "on-failure"
    assert s["TimeoutStopSec"] == "120"
    assert s["LimitNOFILE"] == "1048576"
    assert s["StateDirectory"] == "spool"
    # systemd's own parser (no systemd running needed): unknown keys and bad
    # values fail, and ExecStart's binary must exist in the root.
    if shutil.which("systemd-analyze") is None:
        missing_tool("systemd-analyze (Debian package systemd)")
    r = subprocess.run(["systemd-analyze", f"--root={root}", "verify", "--recursive-errors=no", "--man=no",
                        root + UNIT], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stderr == "", r.stdout + r.stderr
    with open(root + CONFIG) as f:
        active = [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
    assert active == ["listeners=PLAINTEXT://:9092", "log.dirs=/var/lib/spool"], active


# ---------------------------------------------------------------- the service

class NotifySocket:
    """What systemd binds for a Type=notify unit: a unix datagram socket
    whose path goes to the service in NOTIFY_SOCKET."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="spool-notify-")
        self.path = os.path.join(self.dir, "notify")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.states = []

    def wait_for(self, state, proc, timeout):
        deadline = time.monotonic() + timeout
        while state not in self.states:
            left = deadline - time.monotonic()
            assert left > 0, f"no {state} within {timeout} s (got {self.states})"
            self.sock.settimeout(min(0.2, left))
            try:
                self.states += self.sock.recv(4096).decode().split("\n")
            except socket.timeout:
                assert proc.poll() is None, f"exited {proc.returncode} before {state} (got {self.states})"

    def close(self):
        self.sock.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Service:
    """A broker started as the unit would start it: argv, its stdout and
    stderr in files (stdout is the log), NOTIFY_SOCKET set."""

    def __init__(self, argv, work, env=None, stdout_env=None):
        self.notify = NotifySocket()
        self.out_path, self.err_path = os.path.join(work, "stdout"), os.path.join(work, "stderr")
        self.out, self.err = open(self.out_path, "wb"), open(self.err_path, "wb")
        e = {k: v for k, v in os.environ.items() if k not in ("JOURNAL_STREAM", "NOTIFY_SOCKET")}
        e.update(env or {})
        if stdout_env:  # variables naming the stdout file (JOURNAL_STREAM)
            e.update(stdout_env(os.fstat(self.out.fileno())))
        e["NOTIFY_SOCKET"] = self.notify.path
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self.out, stderr=self.err, env=e)

    def ready(self):
        self.notify.wait_for("READY=1", self.proc, READY_TIMEOUT_S)

    def stop(self):
        """SIGTERM; STOPPING=1 must arrive. Returns the exit code."""
        self.proc.send_signal(signal.SIGTERM)
        self.notify.wait_for("STOPPING=1", self.proc, STOP_TIMEOUT_S)
        return self.proc.wait(STOP_TIMEOUT_S)

    def stdout(self):
        with open(self.out_path, encoding="utf-8") as f:
            return f.read()

    def stderr(self):
        with open(self.err_path, encoding="utf-8") as f:
            return f.read()

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.out.close()
        self.err.close()
        self.notify.close()


def exec_start(root, *overrides):
    """The unit's ExecStart, its absolute paths moved into the extracted root."""
    argv = [root + a if a.startswith("/") else a for a in shlex.split(unit_settings(root)["ExecStart"])]
    for kv in ("admin.listener=",) + overrides:  # no admin listener: 9644 may be another test's
        argv += ["--override", kv]
    return argv


def broker_argv(*overrides, port, data):
    return [spool_bin(), "broker", "--override", f"listeners=PLAINTEXT://127.0.0.1:{port}",
            "--override", f"log.dirs={data}", "--override", "admin.listener="] + \
        [a for kv in overrides for a in ("--override", kv)]


def test_exec_start_notifies_serves_and_stops(root, tmp_path):
    port = free_port()
    argv = exec_start(root, f"log.dirs={tmp_path / 'data'}", f"listeners=PLAINTEXT://127.0.0.1:{port}")
    assert argv[0] == root + "/usr/bin/spool" and os.access(argv[0], os.X_OK)
    svc = Service(argv, str(tmp_path))
    try:
        svc.ready()
        assert port_accepts(port), "READY=1 before the listener accepts"
        bootstrap = f"127.0.0.1:{port}"
        values = [f"deb-{i}".encode() for i in range(10)]
        reports = ck_util.produce_all(ck_util.producer(bootstrap, acks="all"), "deb-service",
                                      [{"value": v} for v in values])
        assert all(err is None for err, _, _ in reports), reports
        got = ck_util.consume(bootstrap, "deb-service", expected=10)
        assert [m.value() for m in got] == values
        rc = svc.stop()
        assert rc == 0, f"exit {rc}\n{svc.stdout()}{svc.stderr()}"
        log = svc.stdout()
        assert "serving on" in log and "shutdown complete" in log, log
        assert "\x1b[" not in log, "ANSI colours in a log that is not a terminal"
        assert svc.stderr() == "", svc.stderr()
    finally:
        svc.close()


def test_every_shipped_key_is_accepted(root, tmp_path):
    """server.properties with every commented key uncommented (but the
    cluster's ZooKeeper and the example advertised host) starts as is."""
    with open(root + CONFIG) as f:
        text = f.read()
    keys = re.findall(r"^#([a-z][a-z0-9._]*)=", text, re.M)
    assert len(keys) >= 25, keys
    # admin.listener: its shipped value is the default, here with a free port instead.
    skip = re.compile(r"^#(zookeeper\.|advertised\.listeners=|admin\.listener=)")
    uncommented = "".join(ln[1:] if re.match(r"^#[a-z][a-z0-9._]*=", ln) and not skip.match(ln) else ln
                          for ln in text.splitlines(keepends=True))
    config = tmp_path / "server.properties"
    config.write_text(uncommented)
    port = free_port()
    argv = [root + "/usr/bin/spool", "broker", "--config", str(config),
            "--override", f"log.dirs={tmp_path / 'data'}", "--override", f"listeners=PLAINTEXT://127.0.0.1:{port}",
            "--override", f"admin.listener=http://127.0.0.1:{free_port()}"]
    svc = Service(argv, str(tmp_path))
    try:
        svc.ready()
        assert "serving on" in svc.stdout()
        assert svc.stop() == 0, svc.stdout() + svc.stderr()
    finally:
        svc.close()


# ---------------------------------------------------------------- the log

LEVELS = {"trace", "debug", "info", "warn", "error", "critical"}


def test_json_log_lines(tmp_path):
    # A data dir whose name needs escaping: the start line quotes it.
    data = tmp_path / 'da"ta\\dir\ttab'
    svc = Service(broker_argv("log.format=json", "num.io.threads=8", port=free_port(), data=data), str(tmp_path))
    try:
        svc.ready()
        assert svc.stop() == 0, svc.stdout() + svc.stderr()
        lines = svc.stdout().splitlines()
        assert len(lines) >= 3, lines
        records = []
        for line in lines:
            r = json.loads(line)
            assert set(r) == {"ts", "level", "thread", "msg"}, line
            assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", r["ts"]), line
            assert r["level"] in LEVELS and isinstance(r["thread"], int), line
            records.append(r)
        start = [r for r in records if "serving on" in r["msg"]]
        assert len(start) == 1 and start[0]["level"] == "info", records
        assert start[0]["msg"].endswith(f"data in {data}"), start[0]["msg"]
        assert any(r["level"] == "warn" and "not acted on" in r["msg"] for r in records), records
    finally:
        svc.close()


def journal_stream(st):
    return {"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}"}


def test_text_log_on_journald_carries_priorities(tmp_path):
    svc = Service(broker_argv("num.io.threads=8", port=free_port(), data=tmp_path / "data"), str(tmp_path),
                  stdout_env=journal_stream)
    try:
        svc.ready()
        assert svc.stop() == 0, svc.stdout() + svc.stderr()
        lines = svc.stdout().splitlines()
        for line in lines:
            assert re.match(r"<[2-7]>(trace|debug|info|warning|error|critical) \[\d+\] ", line), line
        assert any(ln.startswith("<6>info ") and "serving on" in ln for ln in lines), lines
        assert any(ln.startswith("<4>warning ") and "not acted on" in ln for ln in lines), lines
    finally:
        svc.close()


def test_text_log_elsewhere_keeps_timestamps(tmp_path):
    """JOURNAL_STREAM inherited while stdout goes elsewhere (a child whose
    stdout was redirected): the ordinary text format."""
    other = lambda st: {"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino + 1}"}  # noqa: E731
    svc = Service(broker_argv(port=free_port(), data=tmp_path / "data"), str(tmp_path), stdout_env=other)
    try:
        svc.ready()
        assert svc.stop() == 0, svc.stdout() + svc.stderr()
        for line in svc.stdout().splitlines():
            assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3} \w+ \[\d+\] ", line), line
    finally:
        svc.close()


def test_bad_log_format_stops_the_start(tmp_path):
    port = free_port()
    r = subprocess.run(broker_argv("log.format=xml", port=port, data=tmp_path / "data"),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "log.format" in r.stderr and "text, json" in r.stderr, r.stderr
    assert not (tmp_path / "data").exists()
