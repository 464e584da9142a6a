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
    failed = any(r.failed for r in reps.values())
    problems = []
    for c in made:
        if failed:
            c.close(keep_logs=True)
            continue
        try:
            for b in c.brokers:
                if b.alive():
                    rc = c.brokers[b.id].stop()
                    if rc != 0:
                        problems.append(f"broker {b.id} exited {rc} on SIGTERM (logs: {b.log_path()})")
            if c.zk is not None and c.zk.alive() and not c.zk.stop():
                problems.append(f"ZooKeeper did not stop cleanly (log: {c.zk.log_path})")
        finally:
            c.close(keep_logs=bool(problems))
    assert not problems, "\n".join(problems)
