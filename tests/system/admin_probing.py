"""Probing the admin listeners of a ZooKeeper cluster (test_admin_probes.py):
probe() asks one path over a new HTTP connection and tells a listener that is
not there ("refused", "reset", "closed") from an answer; Poller polls
/v1/health and /v1/ready of one port from a thread; is_live / is_ready /
not_ready_reason read the probe answers; the admin_cluster fixture makes
Clusters whose brokers each have admin.listener on a free port; metadata /
partitions_of / create_topic ask a broker's own Metadata; Frozen holds a
broker stopped (SIGSTOP) for a with-block."""

import http.client
import json
import threading
import time

import pytest

import meta_wire
from cluster import Cluster
from cluster_fixtures import _CLUSTERS, close_clusters, wait_until
from harness import free_port

# The start phases (admin_listener.h, admin_api.cc not_ready_reason).
CONNECTING = "starting: connecting to ZooKeeper"
NOT_REGISTERED = "starting: not yet accepting Kafka clients"
WAITING_FOR_METADATA = "starting: waiting for the controller's metadata"
SHUTTING_DOWN = "shutting down"
SESSION_TIMEOUT_MS = 10000  # long enough that a frozen controller keeps its session through a test step
GONE = ("refused", "reset", "closed")


# -- HTTP probes ------------------------------------------------------------------

def probe(port, path, timeout=10):
    """(status, parsed JSON) from a new connection, or ("refused"|"reset"|
    "closed", None) when no listener answered."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        body = r.read()
        assert r.getheader("Content-Type") == "application/json", (path, r.status, r.getheaders())
        return r.status, json.loads(body)
    except ConnectionRefusedError:
        return "refused", None
    except (ConnectionResetError, BrokenPipeError):
        return "reset", None
    except http.client.RemoteDisconnected:
        return "closed", None
    finally:
        conn.close()


class Poller:
    """A thread asking /v1/health then /v1/ready of one admin port, over and
    over; samples are (monotonic time the ready request was sent, health,
    ready) with each answer (status, body). on_ready_200(sample) runs in the
    thread after the first ready 200 and its result is kept."""

    def __init__(self, port, interval=0.005, on_ready_200=None):
        self.port = port
        self.interval = interval
        self.on_ready_200 = on_ready_200
        self.samples = []
        self.first_200_check = None
        self.error = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def _run(self):
        try:
            while not self._stop.is_set():
                health = probe(self.port, "/v1/health")
                t = time.monotonic()
                ready = probe(self.port, "/v1/ready")
                self.samples.append((t, health, ready))
                if ready[0] == 200 and self.first_200_check is None and self.on_ready_200 is not None:
                    self.first_200_check = self.on_ready_200()
                self._stop.wait(self.interval)
        except BaseException as e:  # noqa: BLE001 - re-raised in stop()
            self.error = e

    def answered(self):
        return [s for s in self.samples if s[1][0] not in GONE or s[2][0] not in GONE]

    def wait_for(self, pred, what, timeout):
        deadline = time.monotonic() + timeout
        while True:
            assert self.error is None, f"poller of {self.port} failed: {self.error!r}"
            if any(pred(s) for s in list(self.samples)):
                return
            assert time.monotonic() < deadline, \
                f"timed out after {timeout} s waiting for {what} on {self.port}; last: {self.samples[-3:]}"
            time.sleep(0.01)

    def stop(self):
        self._stop.set()
        if self._thread.ident is None:  # never started
            return self.samples
        self._thread.join(30)
        assert not self._thread.is_alive(), f"poller of {self.port} stuck"
        if self.error is not None:
            raise self.error
        return self.samples


def is_live(answer, broker_id):
    return answer == (200, {"status": "live", "broker_id": broker_id})


def is_ready(answer, broker_id):
    return answer == (200, {"status": "ready", "broker_id": broker_id})


def not_ready_reason(answer, broker_id):
    """The reason of a well-formed 503, else an AssertionError."""
    status, body = answer
    assert status == 503 and body["status"] == "not ready" and body["broker_id"] == broker_id \
        and set(body) == {"status", "reason", "broker_id"} and body["reason"], answer
    return body["reason"]


def check_health_whenever_answered(samples, broker_id):
    for t, health, _ in samples:
        assert health[0] in GONE or is_live(health, broker_id), (broker_id, t, health)


# -- the cluster ------------------------------------------------------------------

@pytest.fixture
def admin_cluster(request):
    """make(n=3, overrides, broker_overrides, start=True, **Cluster kwargs) ->
    a Cluster whose brokers each have admin.listener on a free port
    (ClusterBroker.admin_port). As cluster_factory: after a passing test
    every running broker must exit 0 on SIGTERM; after a failing one all is
    killed and the logs are kept (their tails go into the report)."""
    made = request.node.stash.setdefault(_CLUSTERS, [])
    failed_before = request.session.testsfailed

    def make(n=3, overrides=None, broker_overrides=None, start=True, **kw):
        ports = [free_port() for _ in range(n)]
        per = {i: {"admin.listener": f"http://127.0.0.1:{ports[i]}", **(broker_overrides or {}).get(i, {})}
               for i in range(n)}
        kw.setdefault("session_timeout_ms", SESSION_TIMEOUT_MS)
        # The last broker stopped cannot hand its leaders to anyone: its
        # controlled shutdown retries (3 tries) before it stops anyway.
        ov = {"controlled.shutdown.retry.backoff.ms": "300", **(overrides or {})}
        c = Cluster(n=n, overrides=ov, broker_overrides=per, name=request.node.name[:40], **kw)
        for b in c.brokers:
            b.admin_port = ports[b.id]
        made.append(c)
        if start:
            c.start()
        return c

    yield make
    close_clusters(made, failed=request.session.testsfailed > failed_before)


def metadata(c, i, timeout=5.0):
    """Metadata v7 of every topic from broker i itself."""
    with meta_wire.Conn(c.brokers[i].port, timeout) as conn:
        return conn.call(meta_wire.METADATA, 7, {"Topics": None, "AllowAutoTopicCreation": False})


def partitions_of(md, topic):
    return {p["PartitionIndex"]: p for t in md["Topics"] if t["Name"] == topic for p in t["Partitions"]}


def create_topic(c, topic, n, assignment=None):
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": c.bootstrap})
    nt = NewTopic(topic, n, replica_assignment=assignment) if assignment else NewTopic(topic, n, 3)
    for f in admin.create_topics([nt]).values():
        f.result(60)
    wait_until(lambda: all(
        len(ps := partitions_of(metadata(c, b.id), topic)) == n and
        all(p["LeaderId"] >= 0 and len(p["IsrNodes"]) == 3 for p in ps.values()) for b in c.brokers if b.alive()),
        f"{topic}: {n} partitions with a leader and a full ISR on every broker", 60)


class Frozen:
    """SIGSTOP broker i for the with-block (SIGCONT on the way out, always)."""

    def __init__(self, c, i):
        self.c, self.i = c, i

    def __enter__(self):
        self.c.pause(self.i)
        return self

    def __exit__(self, *exc):
        if self.c.brokers[self.i].alive():
            self.c.resume(self.i)
