"""Fail closed: `spool broker` refuses to start on a setting that restricts
access or promises safety which Spool does not act on yet, and starts (with
one warning line) on a harmless one. Runs the real binary once per refused
key; the keys and example values come from refused_keys_tool, which reads the
broker key table (src/config/broker_keys.cc), so a key added there is covered
here without editing this file.

A refused start must exit 2, name the key with its reason, never echo a
secret, open no port and create no log directory."""

import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time

from harness import Broker, free_port, spool_bin

TOOL = os.environ.get("REFUSED_KEYS_TOOL", "")
RUN_TIMEOUT_S = 20


def table():
    assert TOOL and os.path.exists(TOOL), f"REFUSED_KEYS_TOOL not set or missing: {TOOL!r}"
    out = subprocess.run([TOOL], capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    assert out.returncode == 0, out.stderr
    rows = [line.split("\t") for line in out.stdout.splitlines()]
    return [(kind, key, value) for kind, key, value in rows]


def _listening_inodes(ports):
    """The socket inodes listening on any of the ports (loopback, v4 and v6)."""
    hexports = {f"{p:04X}" for p in ports}
    found = set()
    for table_path in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table_path) as f:
                next(f)
                for line in f:
                    cols = line.split()
                    if cols[3] == "0A" and cols[1].rsplit(":", 1)[1] in hexports:
                        found.add(cols[9])
        except OSError:
            pass
    return found


def _owns_socket(pid, inodes):
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:[") and link[8:-1] in inodes:
            return True
    return False


class PortWatch:
    """Polls while the process `proc` runs: did it ever listen on one of the
    ports? The listener's owner is checked through /proc, so a port that
    another test's broker took in the meantime (free ports are picked, then
    released) does not count."""

    def __init__(self, proc, *ports):
        self.proc, self.ports, self.accepted, self._stop = proc, ports, False, threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set() and self.proc.poll() is None:
            inodes = _listening_inodes(self.ports)
            if inodes and _owns_socket(self.proc.pid, inodes):
                self.accepted = True
            time.sleep(0.002)

    def __enter__(self):
        self._t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()


def run_watched(cmd, ports):
    """Runs cmd to its end while watching the ports; returns (exit code,
    output, whether it listened on any of them)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with PortWatch(proc, *ports) as watch:
        try:
            out, err = proc.communicate(timeout=RUN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
    return proc.returncode, out + err, watch.accepted


def refused_start(args, ports=()):
    """Runs `spool broker` expecting a refusal; returns (exit code, output).
    It must never listen: on its own port nor on any of `ports`."""
    port = free_port()
    work = tempfile.mkdtemp(prefix="spool-failclosed-")
    data = os.path.join(work, "data")
    cmd = [spool_bin(), "broker", "--override", f"listeners=PLAINTEXT://127.0.0.1:{port}",
           "--override", f"log.dirs={data}"] + args
    rc, out, listened = run_watched(cmd, (port, *ports))
    assert not listened, f"it listened on {(port, *ports)} with {args}:\n{out}"
    assert not os.path.exists(data), f"log dir created by a refused start {args}:\n{out}"
    assert "net: listening" not in out, out
    os.rmdir(work)
    return rc, out


def test_every_refused_key_stops_the_start():
    refused = [(k, v) for kind, k, v in table() if kind == "R"]
    assert len(refused) > 90, f"only {len(refused)} refused keys"  # 99 after client quotas
    keys = {k for k, _ in refused}
    for must in ("zookeeper.set.acl",
                 "zookeeper.ssl.client.enable", "ssl.engine.factory.class", "sasl.jaas.config",
                 "sasl.login.class", "client.quota.callback.class"):
        assert must in keys, must
    for key, value in refused:
        rc, out = refused_start(["--override", f"{key}={value}"])
        assert rc == 2, f"{key}={value}: exit {rc}\n{out}"
        assert f"\n  {key}: " in out and "refusing to start" in out, \
            f"{key}={value}:\n{out}"
        if "password" in key or key.endswith(".jaas.config") or key.endswith(".secret"):
            assert f"={value}" not in out, f"secret echoed for {key}:\n{out}"


def test_listeners_and_listener_overrides_are_refused():
    cases = [
        # A TLS listener without a usable keystore: Kafka's default JKS, no
        # keystore at all, a file that cannot be read.
        (["--override", "listeners=PLAINTEXT://127.0.0.1:{p},SASL_SSL://127.0.0.1:{q}",
          "--override", "sasl.enabled.mechanisms=PLAIN", "--override",
          "listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule "
          "required user_a=\"b\";"],
         ["refusing to start", "'ssl.keystore.location' (listener SASL_SSL): a TLS listener needs"]),
        (["--override", "listeners=SSL://127.0.0.1:{p}", "--override", "ssl.keystore.location=/nonexistent/ks.pem"],
         ["refusing to start", "JKS stores are Java's own format"]),
        (["--override", "listeners=SSL://127.0.0.1:{p}", "--override", "ssl.keystore.location=/nonexistent/ks.pem",
          "--override", "ssl.keystore.type=PEM", "--override", "ssl.key.password=s3cret-key"],
         ["refusing to start", "cannot read '/nonexistent/ks.pem' (ssl.keystore.location)"]),
        (["--override", "listener.name.plaintext.ssl.keystore.location=/etc/ks.p12"],
         ["listener.name.plaintext.ssl.keystore.location: this per-listener override is not supported"]),
        (["--override", "controller.quorum.voters=1@127.0.0.1:1,2@127.0.0.1:2"],
         ["controller.quorum.voters: a KRaft quorum"]),
        # A SASL listener whose mechanisms Spool cannot serve: Kafka's
        # default (GSSAPI), or PLAIN without users.
        (["--override", "listeners=PLAINTEXT://127.0.0.1:{p},SASL_PLAINTEXT://127.0.0.1:{q}"],
         ["refusing to start", "'sasl.enabled.mechanisms': SASL mechanism GSSAPI is not supported"]),
        (["--override", "sasl.enabled.mechanisms=PLAIN",
          "--override", "listeners=PLAINTEXT://127.0.0.1:{p},SASL_PLAINTEXT://127.0.0.1:{q}"],
         ["refusing to start", "'listener.name.sasl_plaintext.plain.sasl.jaas.config' is not set"]),
        # An authorizer class Spool cannot stand in for, and a malformed super user.
        (["--override", "authorizer.class.name=com.example.OpenDoorAuthorizer"],
         ["refusing to start", "authorizer.class.name=com.example.OpenDoorAuthorizer"]),
        (["--override", "authorizer.class.name=kafka.security.authorizer.AclAuthorizer",
          "--override", "super.users=admin"],
         ["refusing to start", "super.users: 'admin' is not a principal"]),
        # TLS on the admin HTTP listener without a keystore: no plain-text stand-in.
        (["--override", "admin.listener=https://127.0.0.1:{q}"],
         ["refusing to start", "admin.listener https://127.0.0.1:{q}:", "set ssl.keystore.location"]),
        (["--override", "admin.listener=127.0.0.1:{q}"],
         ["refusing to start", "expected http://HOST:PORT"]),
    ]
    for args, wants in cases:
        p, q = free_port(), free_port()
        args = [a.format(p=p, q=q) for a in args]
        wants = [w.format(p=p, q=q) for w in wants]
        # A listeners override replaces the harness's own, so it comes last.
        rc, out = refused_start(args, ports=(p, q))
        assert rc == 2, f"{args}: exit {rc}\n{out}"
        for w in wants:
            assert w in out, f"{args}: {w!r} missing:\n{out}"


def test_secured_kafka_server_properties_without_its_stores_is_refused():
    port, sasl_port, ssl_port = free_port(), free_port(), free_port()
    work = tempfile.mkdtemp(prefix="spool-failclosed-")
    props = os.path.join(work, "server.properties")
    with open(props, "w") as f:
        f.write(f"listeners=PLAINTEXT://127.0.0.1:{port},SASL_PLAINTEXT://127.0.0.1:{sasl_port},"
                f"SASL_SSL://127.0.0.1:{ssl_port}\n"
                "listener.name.sasl_ssl.ssl.keystore.password=s3cret-ks\n"
                "listener.name.sasl_ssl.plain.sasl.jaas.config="
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_admin=\"s3cret-pw\";\n"
                "sasl.enabled.mechanisms=PLAIN\n"
                "listener.name.sasl_plaintext.plain.sasl.jaas.config="
                "org.apache.kafka.common.security.plain.PlainLoginModule required "
                "username=\"admin\" password=\"s3cret-pw\" user_admin=\"s3cret-pw\";\n"
                "authorizer.class.name=kafka.security.authorizer.AclAuthorizer\n"
                "allow.everyone.if.no.acl.found=true\n"
                "super.users=User:admin\n"
                f"log.dirs={work}/data\n")
    rc, out, listened = run_watched([spool_bin(), "broker", "--config", props], (port, sasl_port, ssl_port))
    assert rc == 2, out
    # Every key is served now (issue 17); what stops the start is the
    # SASL_SSL listener's missing keystore, named with its listener.
    assert "refusing to start" in out and "listener SASL_SSL" in out and "ssl.keystore" in out, out
    for key in ("sasl.enabled.mechanisms", "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                "authorizer.class.name", "allow.everyone.if.no.acl.found", "super.users",
                "listener.name.sasl_ssl.ssl.keystore.password"):
        assert f"\n  {key}: " not in out, f"{key} refused:\n{out}"
    assert "s3cret-pw" not in out and "s3cret-ks" not in out, out
    assert not listened, out
    assert not os.path.exists(os.path.join(work, "data"))


def test_harmless_keys_start_with_one_warning():
    harmless = {k: v for kind, k, v in table() if kind == "N"}
    assert len(harmless) > 100 and "num.io.threads" in harmless
    b = Broker(overrides=harmless, name="harmless")
    try:
        b.start()
        # The broker serves: a TCP round trip works (ApiVersions v0).
        with socket.create_connection(("127.0.0.1", b.port), timeout=5) as s:
            s.sendall(b"\x00\x00\x00\x0a\x00\x12\x00\x00\x00\x00\x00\x01\x00\x00")
            assert len(s.recv(4)) == 4
        rc = b.stop()
        log = b.log()
        assert rc == 0, log
    finally:
        b.cleanup()
    lines = [ln for ln in log.splitlines() if "config keys accepted but not acted on by Spool yet" in ln]
    assert len(lines) == 1, log
    named = set(lines[0].split("yet: ", 1)[1].split(", "))
    assert set(harmless) <= named, sorted(set(harmless) - named)


def test_port_watch_sees_a_broker_that_listens():
    """Positive control for PortWatch: a start that is not refused is seen
    listening on its port (so a refused start that listened would be too)."""
    port = free_port()
    work = tempfile.mkdtemp(prefix="spool-failclosed-")
    proc = subprocess.Popen([spool_bin(), "broker", "--override", f"listeners=PLAINTEXT://127.0.0.1:{port}",
                             "--override", f"log.dirs={work}/data"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        with PortWatch(proc, port) as watch:
            deadline = time.monotonic() + RUN_TIMEOUT_S
            while not watch.accepted and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.05)
        assert watch.accepted, f"no listener of pid {proc.pid} seen on {port} (exit {proc.poll()})"
    finally:
        proc.terminate()
        assert proc.wait(RUN_TIMEOUT_S) == 0
        shutil.rmtree(work, ignore_errors=True)
