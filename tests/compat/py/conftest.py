"""Fixtures of tests/compat/py: today's Python Kafka clients (confluent-kafka
2.x, kafka-python 3.x, aiokafka 0.14) against a real broker.

  broker     module-scoped running broker made by tests/compat/harness.py
             (imported read-only) with the module's BROKER_OVERRIDES:
             `spool broker` from SPOOL_BIN, or with SPOOL_TEST_PEER=kafka the
             Apache Kafka 4.4 peer through scripts/kafka-peer. restart() is
             SIGTERM (exit 0 asserted) and a start on the same dir and port.
             Teardown asserts the broker stayed up and exited 0.
  bootstrap  its "host:port".
  topic      a fresh topic name per test.
  rnd        random.Random seeded from SPOOL_TEST_SEED (or a fresh seed, printed
             in the header and on failure) and the test's id, so a failure can
             be replayed with SPOOL_TEST_SEED=<seed>.

--deselect-spool-gaps deselects tests marked spool_gap (Kafka behaviour Spool
lacks so far) unless SPOOL_TEST_PEER=kafka; the ctest entries pass it and the
summary names every test it left out.
"""

import os
import random
import re
import sys
import uuid

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/compat: harness.py (read-only)

import harness  # noqa: E402
from spool_fixtures import _tail, serve_new  # noqa: E402  (helpers only, not its fixtures)

PEER = harness.which_peer()  # None (spool broker) or "kafka"
BASE_SEED = int(os.environ.get("SPOOL_TEST_SEED") or random.SystemRandom().randrange(1 << 31))


@pytest.fixture(scope="module")
def broker(request):
    overrides = getattr(request.module, "BROKER_OVERRIDES", {})
    yield from serve_new(harness.Broker(overrides=overrides, name=request.module.__name__))


@pytest.fixture(scope="module")
def bootstrap(broker):
    return broker.bootstrap


@pytest.fixture
def topic(request):
    base = re.sub(r"[^A-Za-z0-9._-]", "_", request.node.name)[:80]
    return f"{base}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def rnd(request):
    return random.Random(f"{BASE_SEED}:{request.node.nodeid}")


def pytest_addoption(parser):
    parser.addoption("--deselect-spool-gaps", action="store_true",
                     help="leave out tests marked spool_gap unless SPOOL_TEST_PEER=kafka")


def _client_versions():
    out = []
    for mod in ("confluent_kafka", "kafka", "aiokafka"):
        try:
            m = __import__(mod)
        except ImportError:
            continue
        v = getattr(m, "__version__", None)
        if mod == "confluent_kafka":
            v = f"{m.__version__} (librdkafka {m.libversion()[0]})"
        out.append(f"{mod} {v}")
    return ", ".join(out)


def pytest_report_header(config):
    broker = "Apache Kafka peer (scripts/kafka-peer)" if PEER == "kafka" else f"spool {harness.spool_bin()}"
    return [f"broker: {broker}",
            f"clients: {_client_versions()}",
            f"seed: SPOOL_TEST_SEED={BASE_SEED}"]


_gaps_left_out = []


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--deselect-spool-gaps") or PEER == "kafka":
        return
    keep, drop = [], []
    for item in items:
        (drop if item.get_closest_marker("spool_gap") else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
        for item in drop:
            m = item.get_closest_marker("spool_gap")
            _gaps_left_out.append(f"{item.nodeid}: {m.kwargs.get('reason') or (m.args[0] if m.args else '')}")


def pytest_terminal_summary(terminalreporter):
    if _gaps_left_out:
        terminalreporter.section("left out: Kafka behaviour Spool lacks (spool_gap)")
        for line in _gaps_left_out:
            terminalreporter.write_line(line)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if not rep.failed:
        return
    rep.sections.append(("replay", f"SPOOL_TEST_SEED={BASE_SEED} (test seed '{BASE_SEED}:{item.nodeid}')"))
    b = item.funcargs.get("broker") if hasattr(item, "funcargs") else None
    if b is not None:
        rep.sections.append(("broker log", _tail(b.all_logs())))
