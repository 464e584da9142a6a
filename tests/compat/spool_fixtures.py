"""pytest fixtures shared by tests/compat and tests/system (imported by both
conftest.py files). See harness.py for the broker process contract.

  broker     module-scoped running broker (or ExternalBroker under
             SPOOL_TEST_BOOTSTRAP); teardown asserts a clean SIGTERM exit 0.
  bootstrap  its "host:port" string.
  broker_factory  function-scoped factory for tests that restart or kill
             the broker themselves; every broker it made is stopped after the
             test and must have exited 0 if it was still running.
  topic      a fresh topic name per test.
  peer       None against Spool, "kafka" under SPOOL_TEST_PEER=kafka (then every
             Broker is the Apache Kafka 4.4 peer, see harness.KafkaPeerBroker).
"""

import re
import uuid

import pytest

from harness import Broker, ExternalBroker, external_bootstrap, free_port, which_peer

LOG_TAIL_CHARS = 20000


def _tail(text):
    return text if len(text) <= LOG_TAIL_CHARS else "...\n" + text[-LOG_TAIL_CHARS:]


@pytest.fixture(scope="module")
def broker(request):
    ext = external_bootstrap()
    if ext:
        yield ExternalBroker(ext)
        return
    overrides = getattr(request.module, "BROKER_OVERRIDES", {})
    b = Broker(overrides=overrides, name=request.module.__name__)
    b.start()
    yield from serve_started(b)


def serve_started(b):
    """The body of a module-scoped fixture for the started broker `b` (also
    used by tests/compat/py/conftest.py): yields it, then asserts it stayed up
    and exited 0 on SIGTERM, and removes its dir."""
    try:
        yield b
    finally:
        died = not b.alive()
        rc = b.stop()
        log = b.all_logs()
        b.cleanup()
        assert not died, f"broker died during the tests (exit {rc}):\n{_tail(log)}"
        assert rc == 0, f"broker exited {rc} on SIGTERM:\n{_tail(log)}"


def serve_new(b):
    """The body of a module-scoped fixture for the unstarted broker `b`:
    starts it (removing its dir if the start fails), then serves it as
    serve_started does."""
    try:
        b.start()
    except BaseException:
        b.cleanup()
        raise
    yield from serve_started(b)


def serve_with_listeners(name, overrides, listeners):
    """serve_new for a broker with extra listeners ({NAME: security
    protocol}, each on a free port, all advertised)."""
    yield from serve_new(Broker(overrides=overrides, name=name, extra_listeners={n: free_port() for n in listeners},
                                listener_protocols=listeners))


def listener_address(b, listener):
    """host:port of the extra listener `listener` of broker `b`."""
    return f"127.0.0.1:{b.extra_listeners[listener]}"


@pytest.fixture(scope="module")
def bootstrap(broker):
    return broker.bootstrap


@pytest.fixture
def broker_factory(request):
    if external_bootstrap():
        pytest.skip("needs to start/kill its own broker; SPOOL_TEST_BOOTSTRAP is set")
    made = []

    def make(overrides=None):
        b = Broker(overrides=overrides, name=f"broker{len(made)}")
        made.append(b)
        b.start()
        return b

    yield make
    problems = []
    for b in made:
        if b.alive():
            rc = b.stop()
            if rc != 0:
                problems.append(f"broker exited {rc} on SIGTERM:\n{_tail(b.all_logs())}")
        b.cleanup()
    assert not problems, "\n".join(problems)


@pytest.fixture(scope="session")
def peer():
    return which_peer()


@pytest.fixture
def topic(request):
    base = re.sub(r"[^A-Za-z0-9._-]", "_", request.node.name)[:80]
    return f"{base}-{uuid.uuid4().hex[:8]}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if not rep.failed:
        return
    for name in ("broker",):
        b = item.funcargs.get(name) if hasattr(item, "funcargs") else None
        if b is not None:
            what = "kafka peer log" if which_peer() else "spool broker log"
            rep.sections.append((what, _tail(b.all_logs())))
