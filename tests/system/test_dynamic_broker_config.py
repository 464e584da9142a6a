"""Dynamic broker configs (issue 15 item 4) on a 3-node cluster (real
ZooKeeper, or the Kafka 4.4 KRaft peer) and on a single node:

* a cluster-wide default (BROKER resource "") and a per-broker value
  (BROKER resource "<id>", set through `spool config alter --broker`) of
  message.max.bytes and log.retention.ms show in DescribeConfigs on every
  broker with Kafka's sources (DYNAMIC_DEFAULT_BROKER_CONFIG /
  DYNAMIC_BROKER_CONFIG) and act without a restart: a produce above a
  leader's message.max.bytes is MESSAGE_TOO_LARGE, a topic without an
  override describes the new retention.ms; after a restart of every broker
  all of it still holds;
* bad input changes nothing: a read-only key (log.dirs) and another broker's
  id are INVALID_REQUEST, a bad value is refused, validate_only writes
  nothing;
* unclean.leader.election.enable turned on as a dynamic default elects the
  stale replica of a partition whose only in-sync replica died;
* BROKER_LOGGER: the root logger's level is described and set live.

Which broker gets the per-broker value is drawn from a seed printed at the
start (SPOOL_TEST_SEED=N replays it). Against Kafka: a bad value is
INVALID_REQUEST (KAFKA-13609), Spool answers INVALID_CONFIG; Kafka accepts a
dynamic num.replica.fetchers, Spool refuses it (it applies it only at
start). Both are checked per broker and marked "Spool only" / PEER.
  cd tests/system && SPOOL_BIN=../../build/spool /usr/bin/python3 -m pytest -q -s test_dynamic_broker_config.py
  cd tests/system && SPOOL_TEST_PEER=kafka /usr/bin/python3 -m pytest -q -s test_dynamic_broker_config.py
"""

import json
import os
import random
import subprocess
import tempfile
import time

import pytest

import admin_wire as a
import kafka_wire as w
from cluster_fixtures import module_cluster, wait_until
from harness import spool_bin
from peer_cluster import which_cluster_peer

PEER = which_cluster_peer()
SEED = int(os.environ.get("SPOOL_TEST_SEED") or random.SystemRandom().randrange(1 << 30))

TOPIC, BROKER, BROKER_LOGGER = 2, 4, 8
DYNAMIC_BROKER, DYNAMIC_DEFAULT, DEFAULT = 2, 3, 5
MESSAGE_TOO_LARGE = 10
WAIT_S = 60
BASE = {"default.replication.factor": "3", "offsets.topic.replication.factor": "3", "min.insync.replicas": "1",
        "auto.leader.rebalance.enable": "false"}


# Kafka's KRaft controller looks for partitions to elect uncleanly every
# unclean.leader.election.interval.ms (5 min); ZooKeeper-mode Kafka and Spool
# elect as soon as the config turns on. The peer checks every second here.
PEER_ONLY = {"unclean.leader.election.interval.ms": "1000"} if PEER else {}


@pytest.fixture(scope="module")
def cl(request):
    yield from module_cluster(request, dict(BASE, **PEER_ONLY), "dynconfig", PEER)


def seeded():
    """Each test's random choices: printed, replayable with SPOOL_TEST_SEED."""
    print(f"\n  seed {SEED} (SPOOL_TEST_SEED={SEED} replays it)")
    return random.Random(SEED)


def roundtrip(port, frame):
    with w.connect(port, timeout=30) as s:
        return w.roundtrip(s, frame)


def describe(port, rtype, name, keys=None):
    [r] = a.parse_describe_configs(roundtrip(port, a.describe_configs(1, 4, [(rtype, name, keys)], synonyms=True)),
                                   1, 4)
    return r


def alter(port, rtype, name, ops, validate_only=False):
    """IncrementalAlterConfigs v1 of one resource -> (error, message)."""
    frame = a.incremental_alter_configs(2, 1, [(rtype, name, ops)], validate_only)
    return a.parse_alter_configs(roundtrip(port, frame), 2, True)[(rtype, name)]


def config(port, rtype, name, key):
    r = describe(port, rtype, name, [key])
    assert r["error"] == a.NONE, r
    return r["configs"].get(key)


def value_source(port, rtype, name, key):
    c = config(port, rtype, name, key)
    return None if c is None else (c["value"], c["source"])


def wait(pred, what, timeout=WAIT_S):
    wait_until(pred, what, timeout, poll=0.2)


def spool_config(*args):
    r = subprocess.run([spool_bin(), "config", *args], capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


def create_topic(c, topic, assignment):
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": c.bootstrap, "socket.timeout.ms": 10000})
    admin.create_topics([NewTopic(topic, len(assignment), replica_assignment=assignment)], operation_timeout=30)[topic].result(60)
    del admin

    def led():
        ps = c.metadata(topics=[topic])["Topics"][0]["Partitions"]
        return len(ps) == len(assignment) and all(p["LeaderId"] >= 0 for p in ps) or ps
    wait(led, f"{topic} created with leaders")


def leaders(c, topic):
    return {p["PartitionIndex"]: p["LeaderId"] for p in c.metadata(topics=[topic])["Topics"][0]["Partitions"]}


def produce(port, topic, partition, size):
    batch = w.record_batch([(None, b"x" * size, ())], int(time.time() * 1000))
    _, res = w.parse_produce_v3(roundtrip(port, w.produce_v3(9, topic, partition, batch)))
    return res[(topic, partition)][0]


def port_of(c, broker_id):
    return next(b.port for b in c.brokers if b.id == broker_id)


def check_limits(c, topic, limit_of, what):
    """Every partition's leader refuses a record 10 KB above its
    message.max.bytes (limit_of(leader)) with MESSAGE_TOO_LARGE and takes one
    10 KB below it."""
    def ok():
        for p, leader in leaders(c, topic).items():
            for size, want in ((limit_of(leader) + 10000, MESSAGE_TOO_LARGE), (limit_of(leader) - 10000, a.NONE)):
                err = produce(port_of(c, leader), topic, p, size)
                if err != want:
                    return f"partition {p} (leader {leader}): {size} bytes -> {err}, want {want}"
        return True
    wait(ok, what)


def check_dynamic_state(c, topic, per_broker_id):
    """The default (20000 / 123456789) and per-broker (60000 on per_broker_id)
    values, as every broker describes them."""
    ids = [b.id for b in c.brokers]

    def described():
        for i in ids:
            port = port_of(c, i)
            d = describe(port, BROKER, "")
            assert d["error"] == a.NONE, d
            got = {k: (v["value"], v["source"]) for k, v in d["configs"].items()
                   if k in ("message.max.bytes", "log.retention.ms")}
            if got != {"message.max.bytes": ("20000", DYNAMIC_DEFAULT), "log.retention.ms": ("123456789", DYNAMIC_DEFAULT)}:
                return f"broker {i}: defaults {got}"
            own = config(port, BROKER, str(i), "message.max.bytes")
            want = ("60000", DYNAMIC_BROKER) if i == per_broker_id else ("20000", DYNAMIC_DEFAULT)
            if (own["value"], own["source"]) != want:
                return f"broker {i}: message.max.bytes {own}"
            if i == per_broker_id:
                assert own["synonyms"][:2] == [("message.max.bytes", "60000", DYNAMIC_BROKER),
                                               ("message.max.bytes", "20000", DYNAMIC_DEFAULT)], own["synonyms"]
                assert own["synonyms"][-1] == ("message.max.bytes", "1048588", DEFAULT), own["synonyms"]
            assert own["read_only"] is False
            ret = value_source(port, TOPIC, topic, "retention.ms")
            if ret != ("123456789", DYNAMIC_DEFAULT):
                return f"broker {i}: topic {topic} retention.ms {ret}"
        return True
    wait(described, "the dynamic configs described on every broker")
    check_limits(c, topic, lambda leader: 60000 if leader == per_broker_id else 20000,
                 "message.max.bytes acting on every leader")


def test_default_and_per_broker_configs_apply_live_and_survive_restarts(cl):
    topic = "dyn-live"
    rng = seeded()
    ids = sorted(b.id for b in cl.brokers)
    create_topic(cl, topic, [ids[i:] + ids[:i] for i in range(len(ids))])  # each broker leads one partition
    per_broker = rng.choice(ids)
    via = rng.choice(ids)
    print(f"  per-broker value on broker {per_broker}; defaults sent to broker {via}")
    check_limits(cl, topic, lambda leader: 1048588, "the static limit first")

    assert alter(port_of(cl, via), BROKER, "", [("message.max.bytes", a.SET, "20000"),
                                                ("log.retention.ms", a.SET, "123456789")])[0] == a.NONE
    rc, out, err = spool_config("alter", "--broker", str(per_broker), "--add-config", "message.max.bytes=60000",
                                "--bootstrap-server", cl.brokers[via].bootstrap)
    assert rc == 0, out + err
    assert out == f"Completed updating config for broker {per_broker}.\n", out
    check_dynamic_state(cl, topic, per_broker)

    rc, out, err = spool_config("describe", "--broker", str(per_broker), "--output", "json",
                                "--bootstrap-server", cl.brokers[via].bootstrap)
    assert rc == 0, out + err
    got = {e["name"]: (e["value"], e["source"]) for e in json.loads(out)["configs"]}
    assert got.get("message.max.bytes") == ("60000", "DYNAMIC_BROKER_CONFIG"), got
    assert got.get("log.retention.ms") == ("123456789", "DYNAMIC_DEFAULT_BROKER_CONFIG"), got

    rcs = cl.stop_all()
    assert all(v in (0, True) for v in rcs.values()), rcs
    cl.start()
    check_dynamic_state(cl, topic, per_broker)

    # Back to the static configs (the module's other tests start from them).
    assert alter(port_of(cl, via), BROKER, "", [("message.max.bytes", a.DELETE, None),
                                                ("log.retention.ms", a.DELETE, None)])[0] == a.NONE
    rc, out, err = spool_config("alter", "--broker", str(per_broker), "--delete-config", "message.max.bytes",
                                "--bootstrap-server", cl.brokers[via].bootstrap)
    assert rc == 0, out + err
    wait(lambda: all(value_source(port_of(cl, i), BROKER, str(i), "message.max.bytes")[1] != DYNAMIC_BROKER and
                     describe(port_of(cl, i), BROKER, "")["configs"].get("message.max.bytes") is None for i in ids)
         or "not yet", "the dynamic configs removed everywhere")


def snapshot(c):
    """What bad input must not change: every broker's view of its own and the default entity."""
    keys = ["message.max.bytes", "log.retention.ms", "log.dirs", "num.replica.fetchers", "leader.replication.throttled.rate"]
    out = {}
    for b in c.brokers:
        for name in (str(b.id), ""):
            r = describe(b.port, BROKER, name, keys)
            out[(b.id, name)] = {k: (v["value"], v["source"]) for k, v in r["configs"].items()}
    return out


def test_bad_input_changes_nothing(cl):
    rng = seeded()
    ids = sorted(b.id for b in cl.brokers)
    target = rng.choice(ids)
    other = rng.choice([i for i in ids if i != target])
    port = port_of(cl, target)
    before = snapshot(cl)

    err, msg = alter(port, BROKER, "", [("log.dirs", a.SET, "/elsewhere")])
    assert err == a.INVALID_REQUEST and "log.dirs" in msg and "Cannot update these configs dynamically" in msg, msg
    # One read-only key refuses the whole resource, the valid key with it.
    err, msg = alter(port, BROKER, str(target), [("log.dirs", a.SET, "/elsewhere"),
                                                 ("message.max.bytes", a.SET, "7000")])
    assert err == a.INVALID_REQUEST and "log.dirs" in msg, msg
    err, msg = alter(port, BROKER, "", [("message.max.bytes", a.SET, "lots")])
    if PEER:
        assert err == a.INVALID_REQUEST, (err, msg)  # Kafka: KAFKA-13609
    else:
        assert err == a.INVALID_CONFIG and "message.max.bytes" in msg, (err, msg)  # Spool only
    # A throttle of -5 (issue 15's bad input): refused, as a CLI argument too.
    err, msg = alter(port, BROKER, str(target), [("leader.replication.throttled.rate", a.SET, "-5")])
    if PEER:
        assert err in (a.INVALID_REQUEST, a.INVALID_CONFIG), (err, msg)
    else:
        assert err == a.INVALID_CONFIG and "leader.replication.throttled.rate" in msg, (err, msg)
    print(f"  throttle -5: error {err} ({msg})")
    plan = json.dumps({"version": 1, "partitions": [{"topic": "t", "partition": 0, "replicas": [target]}]})
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        f.write(plan)
        f.flush()
        r = subprocess.run([spool_bin(), "topic", "reassign", "--execute", "--reassignment-json-file", f.name,
                            "--throttle", "-5", "--bootstrap-server", cl.brokers[0].bootstrap],
                           capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "--throttle" in r.stderr + r.stdout, (r.returncode, r.stdout, r.stderr)
    err, msg = alter(port, BROKER, str(other), [("message.max.bytes", a.SET, "7000")])
    assert err == a.INVALID_REQUEST and f"expected {target}" in msg, (err, msg)
    assert alter(port, BROKER, "", [("log.retention.ms", a.SET, "1")], validate_only=True)[0] == a.NONE
    if not PEER:
        # Spool only: a key Kafka updates live but Spool reads only at start.
        err, msg = alter(port, BROKER, "", [("num.replica.fetchers", a.SET, "4")])
        assert err == a.INVALID_REQUEST and "num.replica.fetchers" in msg and "only at start" in msg, msg
    time.sleep(2)  # a change would have reached every broker by now
    assert snapshot(cl) == before


def test_unclean_default_turned_on_elects_the_stale_replica(cl):
    """unclean.leader.election.enable reaches the controller: a partition
    whose only in-sync replica died stays offline until the dynamic default
    turns unclean election on, then its stale replica leads."""
    rng = seeded()
    ids = sorted(b.id for b in cl.brokers)
    leader, follower = rng.sample(ids, 2)
    other = next(i for i in ids if i not in (leader, follower))
    print(f"  leader {leader}, stale follower {follower}, change sent to {other}")
    topic = "dyn-unclean"
    create_topic(cl, topic, [[leader, follower]])
    wait(lambda: leaders(cl, topic) == {0: leader} or leaders(cl, topic), f"{leader} leads {topic}")

    def isr():
        return sorted(cl.metadata(other, [topic])["Topics"][0]["Partitions"][0]["IsrNodes"])
    wait(lambda: isr() == sorted([leader, follower]) or isr(), "a full ISR")
    cl.kill9(follower)
    wait(lambda: isr() == [leader] or isr(), "the ISR shrunk to the leader")
    assert produce(port_of(cl, leader), topic, 0, 100) == a.NONE
    cl.kill9(leader)
    cl.start_broker(follower)
    time.sleep(8)  # the dead leader is gone everywhere; a clean election had its chance
    assert cl.leader_of(topic, 0, other) == -1, "unclean election is off: the partition must stay offline"

    assert alter(port_of(cl, other), BROKER, "", [("unclean.leader.election.enable", a.SET, "true")])[0] == a.NONE
    wait(lambda: cl.leader_of(topic, 0, other) == follower or cl.leader_of(topic, 0, other),
         f"broker {follower} elected uncleanly")
    assert alter(port_of(cl, other), BROKER, "", [("unclean.leader.election.enable", a.DELETE, None)])[0] == a.NONE
    cl.start_broker(leader)
    wait(lambda: describe(port_of(cl, other), BROKER, "")["configs"].get("unclean.leader.election.enable") is None
         or "not yet", "the default removed")


def test_broker_logger_levels(cl):
    b = cl.brokers[seeded().randrange(len(cl.brokers))]
    r = describe(b.port, BROKER_LOGGER, str(b.id))
    assert r["error"] == a.NONE, r
    root = r["configs"]["root"]
    assert root["value"] in ("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"), root
    assert root["source"] == 6 and root["read_only"] is False, root
    original = root["value"]
    target = "DEBUG" if original != "DEBUG" else "WARN"
    assert alter(b.port, BROKER_LOGGER, str(b.id), [("root", a.SET, target)]) == (a.NONE, None)
    assert config(b.port, BROKER_LOGGER, str(b.id), "root")["value"] == target
    err, msg = alter(b.port, BROKER_LOGGER, str(b.id), [("root", a.SET, "LOUD")])
    assert err == a.INVALID_CONFIG and "LOUD" in msg, (err, msg)
    err, msg = alter(b.port, BROKER_LOGGER, str(b.id), [("root", a.DELETE, None)])
    assert err == a.INVALID_REQUEST, (err, msg)
    assert config(b.port, BROKER_LOGGER, str(b.id), "root")["value"] == target
    assert alter(b.port, BROKER_LOGGER, str(b.id), [("root", a.SET, original)]) == (a.NONE, None)
    assert config(b.port, BROKER_LOGGER, str(b.id), "root")["value"] == original
    assert describe(b.port, BROKER_LOGGER, "")["error"] == a.INVALID_REQUEST


def test_single_node_configs_apply_and_survive_a_restart(cluster_factory):
    c = cluster_factory(n=1, zookeeper=False)
    b = c.brokers[0]
    topic = "dyn-single"
    create_topic(c, topic, [[b.id]])
    rc, out, err = spool_config("alter", "--broker-defaults", "--add-config", "message.max.bytes=20000",
                                "--bootstrap-server", b.bootstrap)
    assert rc == 0 and out == "Completed updating default config for brokers in the cluster.\n", out + err
    assert alter(b.port, BROKER, str(b.id), [("log.retention.ms", a.SET, "99999")])[0] == a.NONE

    def applied():
        got = (value_source(b.port, TOPIC, topic, "retention.ms"), value_source(b.port, TOPIC, topic, "max.message.bytes"))
        return got == (("99999", DYNAMIC_BROKER), ("20000", DYNAMIC_DEFAULT)) or got

    for start in (1, 2):
        wait(applied, f"the single node's dynamic configs (start {start})")
        check_limits(c, topic, lambda leader: 20000, f"message.max.bytes on the single node (start {start})")
        if start == 1:
            assert all(v in (0, True) for v in c.stop_all().values())
            c.start()
