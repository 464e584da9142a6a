"""The cluster fixture itself (tests/system/cluster.py), on what runs today:
ZooKeeper start/stop/restart/kill9 with data surviving; the session-expiry
trick (freeze a session holder past the timeout, the ephemeral is deleted, the
holder learns its session expired) against a real ZooKeeper, with a control
that an unfrozen holder keeps its session; the command line of a cluster
broker; and the single-node half: start/kill9/restart/pause/resume/stop of a
real `spool broker` with every acknowledged record read back afterwards.

Brokers in cluster mode cannot be started yet (the broker refuses
zookeeper.connect); test_cluster_mode.py covers that part and is registered
once cluster mode lands.
"""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

import cluster as cl
import meta_wire
import zk_wire

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture
def zk(tmp_path):
    z = cl.ZooKeeper(str(tmp_path / "zk"))
    z.start()
    yield z
    z.kill9()


def test_zookeeper_start_stop_restart_kill9_keep_data(zk):
    assert zk.ok()
    srvr = zk_wire.four_letter(zk.port, "srvr").decode()
    assert "Zookeeper version: 3.8" in srvr and "Mode: standalone" in srvr, srvr
    with zk.session() as s:
        s.ensure_path("/spool-fixture/a")
        s.create("/spool-fixture/a/b", b"hello")
        assert s.get_children("/spool-fixture/a") == ["b"]
    assert zk.stop() is True
    assert not zk.ok() and not zk.alive()
    zk.start()
    with zk.session() as s:
        assert s.get_data("/spool-fixture/a/b")[0] == b"hello"
    zk.kill9()
    assert not zk.alive()
    assert cl._wait(lambda: not zk.ok(), 5)
    zk.start()
    with zk.session() as s:
        assert s.get_data("/spool-fixture/a/b")[0] == b"hello"
    zk.restart()
    with zk.session() as s:
        data, stat = s.get_data("/spool-fixture/a/b")
        assert data == b"hello" and stat["version"] == 0
    assert zk.starts == 4
    assert zk.log().count("----- zookeeper start #") == 4


HOLDER = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, sys.argv[1])
    import zk_wire
    s = zk_wire.ZkSession(int(sys.argv[2]), int(sys.argv[4]))
    s.ensure_path(sys.argv[3].rsplit("/", 1)[0])
    s.create(sys.argv[3], b"holder", ephemeral=True)
    print("SESSION %x" % s.session_id, flush=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        time.sleep(0.2)
        try:
            s.ping()
        except (OSError, zk_wire.ZkError) as e:
            print("EXPIRED", e, flush=True)
            sys.exit(3)
    sys.exit(0)
""")


def _holder(zk, path, timeout_ms):
    p = subprocess.Popen([sys.executable, "-c", HOLDER, HERE, str(zk.port), path, str(timeout_ms)],
                         stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert line.startswith("SESSION "), line
    return p, int(line.split()[1], 16)


def test_session_expiry_by_freezing_the_holder(zk):
    """The trick Cluster.expire_session uses, on a real ZooKeeper session."""
    timeout_ms = 2000
    path = "/spool-exp/brokers/ids/7"
    holder, sid = _holder(zk, path, timeout_ms)
    try:
        with zk.session() as s:
            st = s.exists(path)
            assert st is not None and st["ephemeral_owner"] == sid
        # control: a live holder keeps its session well past the timeout
        time.sleep(2 * timeout_ms / 1000.0)
        with zk.session() as s:
            assert s.exists(path)["ephemeral_owner"] == sid
        assert holder.poll() is None
        t0 = time.monotonic()
        cl.freeze_until_expired(holder.pid, zk, path, sid, limit_s=timeout_ms / 1000.0 + 10)
        took = time.monotonic() - t0
        assert took >= timeout_ms / 1000.0 * 0.6, f"expired after only {took:.2f} s"
        with zk.session() as s:
            assert s.exists(path) is None
        out, _ = holder.communicate(timeout=20)
        assert holder.returncode == 3 and "EXPIRED" in out, (holder.returncode, out)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()


def test_freeze_until_expired_is_bounded(zk):
    """A session that cannot expire (nothing owns it) makes the helper give up
    within its limit and always resume the process."""
    path = "/spool-exp2/brokers/ids/1"
    holder, sid = _holder(zk, path, 2000)
    try:
        t0 = time.monotonic()
        with pytest.raises(cl.ClusterError, match="did not expire"):
            cl.freeze_until_expired(holder.pid, zk, path, sid, limit_s=1.0)  # shorter than the timeout
        assert time.monotonic() - t0 < 5
        time.sleep(0.5)
        with zk.session() as s:  # resumed in time: the session lives on
            assert s.exists(path)["ephemeral_owner"] == sid
        assert holder.poll() is None
    finally:
        holder.kill()
        holder.wait()


def test_cluster_broker_command_line(tmp_path):
    c = cl.Cluster(n=3, overrides={"min.insync.replicas": "2"}, base=str(tmp_path), session_timeout_ms=4000)
    try:
        ports = [b.port for b in c.brokers]
        assert len(set(ports)) == 3 and c.zk.port not in ports
        assert c.bootstrap == ",".join(f"127.0.0.1:{p}" for p in ports)
        a = c.brokers[2].args()
        ov = [a[k + 1] for k in range(len(a)) if a[k] == "--override"]
        assert a[1] == "broker"
        assert ov[:4] == ["broker.id=2", f"listeners=PLAINTEXT://127.0.0.1:{ports[2]}",
                          f"log.dirs={tmp_path}/broker-2/data",
                          f"zookeeper.connect=127.0.0.1:{c.zk.port}{c.chroot}"]
        assert "zookeeper.session.timeout.ms=4000" in ov and "min.insync.replicas=2" in ov
        assert c.chroot.startswith("/spool-") and len(c.chroot) == len("/spool-") + 8
        assert c.broker_znode(1) == f"{c.chroot}/brokers/ids/1"
    finally:
        c.close()


def _produce(bootstrap, topic, values):
    acked = {}
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
                  "linger.ms": 1})

    def cb(err, msg):
        assert err is None, err
        acked[msg.value().decode()] = msg.offset()

    for v in values:
        p.produce(topic, v.encode(), partition=0, on_delivery=cb)
    assert p.flush(30) == 0
    return acked


def _read_all(bootstrap, topic, want, timeout=30):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "fixture-check", "enable.auto.commit": False,
                  "isolation.level": "read_committed"})
    c.assign([TopicPartition(topic, 0, 0)])
    got = []
    deadline = time.monotonic() + timeout
    try:
        while len(got) < want and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is not None and m.error() is None:
                got.append((m.offset(), m.value().decode()))
    finally:
        c.close()
    return got


def test_single_broker_kill_restart_pause_resume(cluster_factory):
    c = cluster_factory(n=1, zookeeper=False, overrides={"num.partitions": "1"})
    assert c.bootstrap == f"127.0.0.1:{c.brokers[0].port}"
    assert "zookeeper.connect" not in " ".join(c.brokers[0].args())
    md = c.metadata(0)
    assert [b["Port"] for b in md["Brokers"]] == [c.brokers[0].port]
    topic = "fixture-lifecycle"
    first = _produce(c.bootstrap, topic, [f"a{i}" for i in range(50)])
    assert sorted(first.values()) == list(range(50))
    c.kill9(0)
    assert not c.brokers[0].alive()
    c.restart(0)
    assert c.brokers[0].starts == 2
    second = _produce(c.bootstrap, topic, [f"b{i}" for i in range(50)])
    assert sorted(second.values()) == list(range(50, 100))

    c.pause(0)
    with pytest.raises(cl.ClusterError):  # frozen: connects, never answers
        c.metadata(0, timeout=1.0)
    c.resume(0)
    assert c.metadata(0)["Brokers"][0]["NodeId"] == md["Brokers"][0]["NodeId"]

    c.restart(0)  # running: clean SIGTERM (exit 0) then start, same port and dirs
    assert c.brokers[0].proc.returncode is None and c.brokers[0].starts == 3
    want = sorted([(o, v) for v, o in first.items()] + [(o, v) for v, o in second.items()])
    assert _read_all(c.bootstrap, topic, 100) == want
    c.pause(0)
    assert c.stop(0) == 0  # stop resumes a paused broker first
    text = c.log(0)
    assert text.count("----- broker 0 start #") == 3


def test_cluster_close_kills_everything_and_keeps_logs(tmp_path, capsys):
    c = cl.Cluster(n=1, zookeeper=False, base=str(tmp_path / "c"))
    c.start()
    pid = c.brokers[0].proc.pid
    c.pause(0)
    c.close(keep_logs=True)
    assert c.brokers[0].proc.returncode == -signal.SIGKILL
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    err = capsys.readouterr().err
    assert f"cluster logs kept under {tmp_path}/c" in err and "broker.1.log" in err
    assert os.path.exists(c.brokers[0].log_path(1))


NOZK_WRAPPER = """#!/usr/bin/env bash
# today's single-node broker: drops the cluster-mode overrides run-cluster adds
args=(); skip=0
for a in "$@"; do
  if [ "$skip" = 1 ]; then skip=0
    case "$a" in zookeeper.connect=*|broker.id=*) unset 'args[${#args[@]}-1]'; args=("${args[@]}"); continue;; esac
  fi
  [ "$a" = --override ] && skip=1
  args+=("$a")
done
exec "$REAL_SPOOL_BIN" "${args[@]}"
"""


def test_run_cluster_script_starts_serves_and_stops_on_ctrl_c(tmp_path):
    """scripts/run-cluster end to end with one broker (cluster mode is not
    there yet: a wrapper drops zookeeper.connect so today's broker starts):
    ZooKeeper and the broker come up, the script prints the bootstrap, and
    SIGINT (Ctrl-C) stops everything with exit 0 and nothing left running."""
    wrapper = tmp_path / "spool"
    wrapper.write_text(NOZK_WRAPPER)
    wrapper.chmod(0o755)
    zk_port, port = cl.free_port(), cl.free_port()
    env = dict(os.environ, ZK_PORT=str(zk_port), BROKER_PORTS=str(port), DATA_DIR=str(tmp_path / "data"),
               SPOOL_BIN=str(wrapper), REAL_SPOOL_BIN=cl.spool_bin(), READY_TIMEOUT="30")
    env.pop("SPOOL_ZK_SERVER", None)
    p = subprocess.Popen([os.path.join(cl.REPO_ROOT, "scripts", "run-cluster")], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        assert cl._wait(lambda: cl.port_accepts(port) and zk_wire.serving(zk_port), 60), "not up"
        assert cl._wait(lambda: (tmp_path / "data" / "broker-0.log").exists(), 5)
        time.sleep(1.0)
        assert p.poll() is None
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert p.returncode == 0, out
    assert f"bootstrap servers:  127.0.0.1:{port}" in out and "every broker exited 0" in out, out
    assert not cl.port_accepts(port) and not zk_wire.ruok(zk_port)
    assert os.path.isdir(tmp_path / "data" / "broker-0") and (tmp_path / "data" / "zk" / "zoo.cfg").exists()


def test_run_cluster_script_forms_one_cluster_and_stops_cleanly(tmp_path):
    """scripts/run-cluster starts ZooKeeper and 3 brokers that form one
    cluster (every broker lists all 3, one controller); Ctrl-C (SIGINT to
    the script) stops every broker cleanly (exit 0) and ZooKeeper."""
    zk_port, ports = cl.free_port(), [cl.free_port() for _ in range(3)]
    env = dict(os.environ, ZK_PORT=str(zk_port), BROKER_PORTS=" ".join(map(str, ports)),
               DATA_DIR=str(tmp_path / "data"), SPOOL_BIN=cl.spool_bin(), READY_TIMEOUT="60")
    env.pop("SPOOL_ZK_SERVER", None)
    out_path = tmp_path / "run-cluster.out"
    with open(out_path, "wb") as out:
        p = subprocess.Popen([os.path.join(cl.REPO_ROOT, "scripts", "run-cluster")], env=env, stdout=out,
                             stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while "Spool cluster running" not in out_path.read_text() and time.monotonic() < deadline:
            assert p.poll() is None, out_path.read_text()
            time.sleep(0.2)
        assert "Spool cluster running: 3 brokers" in out_path.read_text(), out_path.read_text()
        mds = []
        for port in ports:
            with meta_wire.Conn(port) as c:
                mds.append(c.call(meta_wire.METADATA, 7, {"Topics": None, "AllowAutoTopicCreation": False}))
        assert all(sorted(b["NodeId"] for b in md["Brokers"]) == [0, 1, 2] for md in mds), mds
        assert len({md["ControllerId"] for md in mds}) == 1 and len({md["ClusterId"] for md in mds}) == 1, mds
        d = subprocess.run([cl.spool_bin(), "cluster", "describe", "--bootstrap", f"127.0.0.1:{ports[0]}"],
                           capture_output=True, text=True, timeout=30)
        assert d.returncode == 0 and "Brokers: 3" in d.stdout, d.stdout + d.stderr
        os.kill(p.pid, signal.SIGINT)
        assert p.wait(120) == 0, out_path.read_text()
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    text = out_path.read_text()
    assert "stopped: every broker exited 0" in text, text
    assert not zk_wire.ruok(zk_port) and not any(cl.port_accepts(port) for port in ports)


def test_ports_lost_to_another_process_are_picked_again(tmp_path):
    """A free port taken before the first start: ZooKeeper (port listening:
    found before the start) and the broker (port bound, not listening: the
    broker's bind fails, "Address already in use") each move to a new port
    once (later restarts keep theirs)."""
    import socket
    squat = [socket.socket(), socket.socket()]
    try:
        for s in squat:
            s.bind(("127.0.0.1", 0))
        squat[0].listen()
        taken = [s.getsockname()[1] for s in squat]
        z = cl.Cluster(n=1, zookeeper=True, base=str(tmp_path / "z"), zk_port=taken[0])
        z.brokers = []  # ZooKeeper only
        try:
            z.start()
            assert z.zk.port != taken[0] and z.zk.ok() and z.zk.starts == 2
        finally:
            z.close()
        b = cl.Cluster(n=1, zookeeper=False, base=str(tmp_path / "b"), ports=[taken[1]])
        try:
            b.start()
            assert b.brokers[0].port != taken[1] and b.brokers[0].starts == 2
            assert b.bootstrap == f"127.0.0.1:{b.brokers[0].port}"
        finally:
            b.close()
    finally:
        for s in squat:
            s.close()
