"""pytest fixtures for cluster tests (imported by tests/system/conftest.py).

  cluster_factory  function-scoped: cluster_factory(n=3, overrides=None,
                   zookeeper=True, session_timeout_ms=6000) -> a started
                   cluster.Cluster. After a passing test every broker still
                   running must exit 0 on SIGTERM; after a failing one all
                   processes are SIGKILLed, the temp dir is kept and the log
                   paths are printed (and the log tails attached to the report).
                   Teardown always kills everything, whatever happened.
"""

import pytest

from cluster import Cluster
from harness import java_client_argv, missing_tool  # noqa: F401 - imported from here by the cluster tests

_KEY = pytest.StashKey()


class ClusterOutcome:
    """Remembers each phase's report on the item, for the fixture teardown."""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        rep = outcome.get_result()
        item.stash.setdefault(_KEY, {})[rep.when] = rep
        if rep.failed:
            for c in item.stash.get(_CLUSTERS, []):
                rep.sections.append((f"cluster {c.base}", c.log_tails()))


_CLUSTERS = pytest.StashKey()


def register(config):
    if not config.pluginmanager.has_plugin("spool-cluster-outcome"):
        config.pluginmanager.register(ClusterOutcome(), "spool-cluster-outcome")


@pytest.fixture
def cluster_factory(request):
    made = request.node.stash.setdefault(_CLUSTERS, [])

    def make(n=3, overrides=None, zookeeper=True, **kw):
        c = Cluster(n=n, overrides=overrides, zookeeper=zookeeper, name=request.node.name[:40], **kw)
        made.append(c)
        c.start()
        return c

    yield make
    reps = request.node.stash.get(_KEY, {})
    close_clusters(made, failed=any(r.failed for r in reps.values()))


def close_clusters(made, failed):
    """A cluster fixture's teardown: after a failed test every cluster is
    killed and its logs kept; after a passing one every running broker must
    exit 0 on SIGTERM and ZooKeeper stop cleanly (else the logs are kept and
    the teardown fails, naming them)."""
    problems = []
    for c in made:
        if failed:
            c.close(keep_logs=True)
            continue
        try:
            for b in c.brokers:
                if b.alive():
                    rc = b.stop()
                    if rc != 0:
                        problems.append(f"broker {b.id} exited {rc} on SIGTERM (logs: {b.log_path()})")
            if c.zk is not None and c.zk.alive() and not c.zk.stop():
                problems.append(f"ZooKeeper did not stop cleanly (log: {c.zk.log_path})")
        finally:
            c.close(keep_logs=bool(problems))
    assert not problems, "\n".join(problems)


def wait_until(pred, what, timeout, poll=0.25):
    """Polls pred() until it returns True (exactly: any other value is kept
    as the last state, so `cond or diagnostic` shows why it is not done yet);
    an exception (a broker still starting) is a retry. After `timeout` s the
    test fails naming `what` and the last state."""
    import time
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            last = pred()
            if last is True:
                return
        except Exception as e:  # noqa: BLE001 - shown if it never clears
            last = repr(e)
        assert time.monotonic() < deadline, f"timed out after {timeout} s waiting for {what}; last: {last!r}"
        time.sleep(poll)


def module_cluster(request, overrides, name, peer, fast_failover=True, prepare=None, n=3):
    """Generator body of a module-scoped n-node (3) cluster fixture (use with
    `yield from`): Spool on ZooKeeper with a 3 s session, or the Kafka peer
    (peer == "kafka"; with peer_cluster.PEER_FAST_FAILOVER unless
    fast_failover is False). `prepare(cluster)` runs once it is up. At the
    end every stopped broker is started again, then all must exit cleanly;
    logs are kept when a test of the module failed."""
    from peer_cluster import PEER_FAST_FAILOVER
    failed_before = request.session.testsfailed
    ov = dict(overrides)
    if peer == "kafka":
        if fast_failover:
            ov.update(PEER_FAST_FAILOVER)
        c = Cluster(n=n, overrides=ov, name=name)
    else:
        c = Cluster(n=n, overrides=ov, session_timeout_ms=3000, name=name)
    try:
        c.start()
        if prepare is not None:
            prepare(c)
    except Exception:
        c.close(keep_logs=True)
        raise
    yield c
    for b in c.brokers:  # a victim still down: back, so its clean stop is checked too
        if not b.alive():
            c.start_broker(b.id)
    rcs = c.stop_all()
    bad = {k: v for k, v in rcs.items() if v not in (0, True)}
    c.close(keep_logs=bool(bad) or request.session.testsfailed > failed_before)
    assert not bad, f"unclean shutdown: {bad}"


_REPO = __import__("os").path.abspath(__import__("os").path.join(__import__("os").path.dirname(__file__), "..", ".."))
GO_CLIENTS_DIR = _REPO + "/tests/compat/go"


def go_client_binary(package, out_dir):
    """Builds tests/compat/go/<package> offline (GOPROXY=off, the module cache
    filled by scripts/deps/go.sh) into out_dir; returns the binary's path."""
    import os
    import shutil
    import subprocess
    go = shutil.which("go") or next((g for g in ("/usr/local/go/bin/go", "/usr/lib/go/bin/go")
                                     if os.access(g, os.X_OK)), None)
    if go is None:
        missing_tool("go")
    exe = os.path.join(str(out_dir), package)
    env = dict(os.environ, GOPROXY="off", GOFLAGS="-mod=readonly", GOTOOLCHAIN="local")
    r = subprocess.run([go, "build", "-o", exe, "./" + package], cwd=GO_CLIENTS_DIR, capture_output=True, text=True,
                       timeout=600, stdin=subprocess.DEVNULL, env=env)
    assert r.returncode == 0, f"go build ./{package} failed (bash scripts/deps/go.sh?):\n{r.stdout}{r.stderr}"
    return exe
