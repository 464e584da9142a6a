"""The admin listener's probes and views in a ZooKeeper cluster (issue 19,
Tests: "the health and readiness endpoints flip at the right moments (start,
load, partition offline, shutdown)" and "the admin JSON matches Metadata";
test_admin_api.py covers a single broker). Every broker has admin.listener
on its own free port; /v1/health and /v1/ready are polled from before the
moment that matters, over fresh HTTP connections (refused = listener down).

1. test_ready_only_once_registered: a fresh 3-broker cluster polled from
   before its processes start: health is 200 {"status": "live"} whenever the
   listener answers; ready is never 200 before the broker's /brokers/ids/N
   exists in ZooKeeper, and is 200 in the end. Then, deterministically: a
   broker's id is held in ZooKeeper by the test's own session (a copy of the
   broker's registration) while it restarts; the registrar waits for it
   (broker_registrar.cc), and meanwhile the listener answers health 200 and
   ready 503 "starting: not yet accepting Kafka clients"; the id is released
   and only then ready turns 200, with /brokers/ids/N owned by the broker's
   session, and the cluster converges.
2. test_ready_waits_for_zookeeper_and_the_controllers_metadata: a broker
   (not the controller) restarted with the controller frozen (SIGSTOP) and
   ZooKeeper frozen too: its listener answers before the ZooKeeper session
   exists, health 200 and ready 503 "starting: connecting to ZooKeeper"
   (20 polls in a row). ZooKeeper thawed, the broker registers and accepts
   Kafka clients, but no UpdateMetadata comes from the frozen controller: its
   Metadata lists no broker, and ready answers 503 "starting: waiting for
   the controller's metadata" (20 polls in a row; Kafka's ZooKeeper mode
   would serve such a broker). The controller thawed, ready turns 200 and
   the broker's Metadata lists it.
3. test_ready_flips_when_a_led_partition_goes_offline: broker 2 (not the
   controller) leads a 6-partition RF=3 topic over two log dirs, one on a
   FailingDisk (disks.py, root). With the controller frozen, the dir fails
   (a write, then its fsync): ready turns 503 "partition jbod-P led here is
   offline" naming a partition of the failed dir, health stays 200, and
   /v1/topics marks exactly the failed dir's partitions offline. The
   controller thawed, it moves their leaders away and sends StopReplica to
   the offline replica, which makes it a follower (replica_state_machine.cc,
   replica_manager_cluster.cc): no partition *led here* is offline any more,
   so ready is 200 again while broker 2 leads the other dir's partitions.
4. test_shutdown_says_not_ready_until_the_listener_goes: SIGTERM to a broker
   that leads partitions and is not the controller, the controller frozen
   first so the controlled shutdown cannot finish: ready answers 503
   "shutting down" (health 200) for as long as it waits; the controller
   thawed, the broker finishes and exits 0. Every answer polled (every ~20 ms
   from the signal) is 200 ready before the first "shutting down", then
   only 503 "shutting down", then the listener is gone for good.
5. test_cluster_views_match_metadata: on every broker, /v1/cluster (cluster
   id, controller, brokers with their endpoint) and /v1/topics (leader,
   leader epoch, replicas, ISR, offline replicas of each partition, which
   replicas are local, high watermark only where led) equal that broker's
   Metadata v7 answer; after a kill -9 of one broker (picked by the seed) and
   its partitions' new leaders, the same on the survivors. The views may
   trail each other for a moment: each comparison waits (bounded) until they
   agree, then compares exactly once more.

The probes, the poller and the admin_cluster fixture are in admin_probing.py.
The random choices print their seed (SPOOL_PROBES_SEED=N repeats them).
Spool only (Kafka has no admin HTTP API).
  cd tests/system && /usr/bin/python3 -m pytest -q -s test_admin_probes.py
"""

import os
import random
import signal
import time

import pytest

import admin_wire as aw
import kafka_wire as kw
from admin_probing import (CONNECTING, GONE, NOT_REGISTERED, SESSION_TIMEOUT_MS, SHUTTING_DOWN,  # noqa: F401
                           WAITING_FOR_METADATA, Frozen, Poller, admin_cluster, check_health_whenever_answered,
                           create_topic, is_live, is_ready, metadata, not_ready_reason, partitions_of, probe)
from cluster_fixtures import wait_until
from disks import failing_disk  # noqa: F401 (a fixture)

STORAGE_ERROR = 56  # KAFKA_STORAGE_ERROR

SEED = int(os.environ.get("SPOOL_PROBES_SEED", random.randrange(1 << 30)))


@pytest.fixture
def seed():
    """The module's seed, printed by every test that uses it (in its output on failure)."""
    print(f"\n  seed {SEED} (SPOOL_PROBES_SEED={SEED} repeats the choices)")
    return SEED


# -- 1. start ---------------------------------------------------------------------

def test_ready_only_once_registered(admin_cluster, seed):
    c = admin_cluster(start=False)
    # c.start() brings ZooKeeper up and makes the chroot before any broker.
    registered_checks = {}

    def registered_check(i):
        def check():
            try:
                with c.zk.session() as s:
                    return s.exists(c.broker_znode(i)) is not None
            except Exception as e:  # noqa: BLE001 - kept and shown
                return repr(e)
        return check

    pollers = [Poller(b.admin_port, on_ready_200=registered_check(b.id)).start() for b in c.brokers]
    try:
        c.start()
        for p, b in zip(pollers, c.brokers):
            p.wait_for(lambda s, i=b.id: is_ready(s[2], i), f"broker {b.id} ready", 30)
    finally:
        for p in pollers:
            p.stop()
    for p, b in zip(pollers, c.brokers):
        answered = p.answered()
        assert answered, f"broker {b.id}'s listener never answered"
        check_health_whenever_answered(p.samples, b.id)
        first = next(k for k, s in enumerate(p.samples) if s[2][0] == 200)
        for t, _, ready in p.samples[:first]:
            if ready[0] not in GONE:
                assert not_ready_reason(ready, b.id) != SHUTTING_DOWN, (b.id, ready)
        for t, _, ready in p.samples[first:]:
            assert is_ready(ready, b.id), (b.id, t, ready)  # nothing goes offline or stops here
        registered_checks[b.id] = p.first_200_check
        print(f"  broker {b.id}: {len(answered)} answered polls, "
              f"{sum(1 for s in answered if s[2][0] == 503)} of them 503 before the first ready 200")
    # Right after its first ready 200, each broker's /brokers/ids/N existed.
    assert registered_checks == {b.id: True for b in c.brokers}, registered_checks

    # Deterministic: the broker's id held by our own ZooKeeper session while it restarts.
    controller = c.controller()
    victim = random.Random(seed).choice([b.id for b in c.brokers if b.id != controller])
    b = c.brokers[victim]
    znode = c.broker_znode(victim)
    with c.zk.session() as s:
        registration, _ = s.get_data(znode)
    c.stop(victim)
    poller = Poller(b.admin_port)
    try:
        with c.zk.session(timeout_ms=SESSION_TIMEOUT_MS) as squat:
            wait_until(lambda: squat.exists(znode) is None, f"{znode} gone after a clean stop", 15)
            squat.create(znode, registration, ephemeral=True)
            assert squat.exists(znode)["ephemeral_owner"] == squat.session_id
            print(f"  broker {victim} restarts while our session {squat.session_id:#x} holds {znode}")
            poller.start()
            b.spawn()
            deadline = time.monotonic() + 30
            # The listener answers from before ZooKeeper and log recovery;
            # once the logs are loaded the broker waits for the id.
            while not any(ready[0] == 503 and ready[1]["reason"] == NOT_REGISTERED
                          for _, _, ready in list(poller.samples)):
                assert b.alive(), f"broker {victim} exited:\n{b.log()[-3000:]}"
                assert time.monotonic() < deadline, \
                    f"broker {victim}'s admin listener never said {NOT_REGISTERED!r}: {poller.samples[-3:]}"
                squat.ping()
                time.sleep(0.05)
            # Hold the id for a second and 20 more polls at least: not ready all along.
            held_from = len(poller.samples)
            hold_until = time.monotonic() + 1.0
            while time.monotonic() < hold_until or len(poller.samples) < held_from + 20:
                assert poller.error is None, poller.error
                squat.ping()
                time.sleep(0.05)
            assert squat.exists(znode)["ephemeral_owner"] == squat.session_id, "the broker took the id early"
            assert b.alive(), b.log()[-3000:]
            held = [s for s in poller.samples[held_from:] if s[2][0] not in GONE]
            assert len(held) >= 20, poller.samples[held_from:]
            for t, health, ready in held:
                assert is_live(health, victim), (t, health)
                assert not_ready_reason(ready, victim) == NOT_REGISTERED, (t, ready)
            released_at = time.monotonic()
            squat.delete(znode)
            squatter = squat.session_id
        poller.wait_for(lambda s: is_ready(s[2], victim), f"broker {victim} ready after the release", 30)
    finally:
        poller.stop()
    check_health_whenever_answered(poller.samples, victim)
    early = [s for s in poller.samples if s[2][0] == 200 and s[0] < released_at]
    assert not early, f"ready 200 while our session held {znode}: {early[:3]}"
    with c.zk.session() as s:
        st = s.exists(znode)
    assert st is not None and st["ephemeral_owner"] not in (0, squatter), st
    assert "waiting up to" in b.log(), "the broker did not log its wait for the other session"
    c.wait_ready()  # every broker's Metadata lists all three again
    print(f"  broker {victim}: {len(held)} polls answered 503 {NOT_REGISTERED!r} while the id was held, "
          f"ready only after its release")


# -- 2. ZooKeeper, then the controller's metadata ----------------------------------

def polls_saying(b, broker_id, reason, n=20, timeout=10):
    """Polls health and ready until n answers in a row gave health live and
    ready 503 `reason` (the first answers may still be earlier phases or
    the listener down); -> how many polls that took."""
    deadline, streak, polls = time.monotonic() + timeout, 0, 0
    while streak < n:
        assert b.alive() and time.monotonic() < deadline, \
            f"broker {broker_id}: no {n} answers in a row of {reason!r} within {timeout} s:\n{b.log()[-3000:]}"
        health, ready = probe(b.admin_port, "/v1/health"), probe(b.admin_port, "/v1/ready")
        polls += 1
        if ready[0] in GONE or health[0] in GONE:  # the listener not up yet (it comes up between the two)
            assert streak == 0, (broker_id, reason, health, ready)
            continue
        assert is_live(health, broker_id), (broker_id, health)
        if not_ready_reason(ready, broker_id) == reason:
            streak += 1
        else:
            assert streak == 0, f"broker {broker_id}: {ready} after {streak} answers of {reason!r}"
        time.sleep(0.01)
    return polls


def test_ready_waits_for_zookeeper_and_the_controllers_metadata(admin_cluster, seed):
    c = admin_cluster()
    controller = c.controller()
    victim = random.Random(seed + 1).choice([b.id for b in c.brokers if b.id != controller])
    b = c.brokers[victim]
    c.stop(victim)
    zk_pid = c.zk._pid()
    assert zk_pid, "no ZooKeeper pid"
    with Frozen(c, controller):
        os.kill(zk_pid, signal.SIGSTOP)
        try:
            b.spawn()
            n = polls_saying(b, victim, CONNECTING)
        finally:
            os.kill(zk_pid, signal.SIGCONT)
        print(f"  broker {victim}: {n} polls until 20 in a row said {CONNECTING!r} (ZooKeeper frozen)")
        # Registered in ZooKeeper, accepting Kafka clients, but the frozen
        # controller sent no UpdateMetadata: not ready, and indeed its
        # Metadata lists no broker yet.
        n = polls_saying(b, victim, WAITING_FOR_METADATA, timeout=SESSION_TIMEOUT_MS / 2000)
        seen = metadata(c, victim)
        assert victim not in [x["NodeId"] for x in seen["Brokers"]], seen["Brokers"]
        with c.zk.session() as s:
            assert s.exists(c.broker_znode(victim)) is not None, f"{c.broker_znode(victim)} missing"
        assert not_ready_reason(probe(b.admin_port, "/v1/ready"), victim) == WAITING_FOR_METADATA
        print(f"  broker {victim}: registered, {n} polls until 20 in a row said {WAITING_FOR_METADATA!r}; "
              f"its Metadata lists brokers {[x['NodeId'] for x in seen['Brokers']]}")
    # The controller thawed: UpdateMetadata comes, ready turns 200, and the
    # broker's Metadata lists it.
    deadline = time.monotonic() + 30
    while not is_ready(probe(b.admin_port, "/v1/ready"), victim):
        assert time.monotonic() < deadline, f"broker {victim} not ready 30 s after the thaw:\n{b.log()[-3000:]}"
        time.sleep(0.02)
    assert victim in [x["NodeId"] for x in metadata(c, victim)["Brokers"]]
    c.wait_ready()


# -- 3. a partition led here goes offline -------------------------------------------

def log_dirs(port):
    with kw.connect(port, timeout=10) as s:
        _, dirs = aw.parse_describe_log_dirs(kw.roundtrip(s, aw.describe_log_dirs(7, 3, None)), 7, 3)
    return dirs


def topic_view(b, topic):
    status, body = probe(b.admin_port, "/v1/topics")
    assert status == 200, (status, body)
    (t,) = [t for t in body["topics"] if t["name"] == topic]
    return {p["partition"]: p for p in t["partitions"]}


def test_ready_flips_when_a_led_partition_goes_offline(failing_disk, admin_cluster, tmp_path):
    from confluent_kafka import Producer
    jbod = 2
    bad_dir = failing_disk.path + "/data"
    c = admin_cluster(overrides={"min.insync.replicas": "2", "auto.leader.rebalance.enable": "false",
                                 "offsets.topic.replication.factor": "3"},
                      broker_overrides={jbod: {"log.dirs": f"{tmp_path}/b{jbod}-good,{bad_dir}"}})
    if c.controller() == jbod:  # the controller must be another broker: it gets frozen
        c.restart(jbod)
    controller = c.controller()
    assert controller != jbod, controller
    b = c.brokers[jbod]
    topic, n = "jbod", 6
    create_topic(c, topic, n, [[jbod, (jbod + 1) % 3, (jbod + 2) % 3] for _ in range(n)])
    dirs = log_dirs(b.port)
    on_bad = sorted(p for (t, p) in dirs[bad_dir]["partitions"] if t == topic)
    on_good = sorted(set(range(n)) - set(on_bad))
    assert on_bad and on_good, f"both dirs should hold some of {topic}: {dirs}"
    print(f"  broker {jbod} leads {topic}; on the failing dir {on_bad}, on the other {on_good}; "
          f"controller {controller}")
    assert is_ready(probe(b.admin_port, "/v1/ready"), jbod)

    with Frozen(c, controller):
        failing_disk.fail()
        p = Producer({"bootstrap.servers": b.bootstrap, "acks": 1, "linger.ms": 0, "message.timeout.ms": 5000})
        for part in on_bad:  # a write into the dir; its fsync fails
            p.produce(topic, b"into the failing dir", partition=part)
        p.flush(10)
        # Bounded well within the frozen controller's session (SESSION_TIMEOUT_MS).
        wait_until(lambda: log_dirs(b.port)[bad_dir]["error"] == STORAGE_ERROR,
                   "the failed dir reported (KAFKA_STORAGE_ERROR)", 4, poll=0.05)
        wait_until(lambda: probe(b.admin_port, "/v1/ready")[0] == 503, "ready 503", 2, poll=0.02)
        # The controller cannot act: the offline partitions stay led here; so does the answer.
        answers = []
        for _ in range(20):
            answers.append((probe(b.admin_port, "/v1/health"), probe(b.admin_port, "/v1/ready")))
            time.sleep(0.02)
        view = topic_view(b, topic)
    named = set()
    for health, ready in answers:
        assert is_live(health, jbod), health
        reason = not_ready_reason(ready, jbod)
        prefix, suffix = "partition " + topic + "-", " led here is offline"
        assert reason.startswith(prefix) and reason.endswith(suffix), reason
        named.add(int(reason[len(prefix):-len(suffix)]))
    assert named and named <= set(on_bad), (named, on_bad)
    assert sorted(p for p, v in view.items() if v["local"]["offline"]) == on_bad, view
    assert all(v["leader"] == jbod for v in view.values()), view  # nobody moved them yet
    print(f"  controller frozen: {len(answers)} polls answered 503 naming {sorted(named)}, health 200")

    # Thawed, the controller moves the failed dir's leaders away and stops the offline replicas.
    def moved():
        md = metadata(c, (jbod + 1) % 3)
        ps = partitions_of(md, topic)
        return all(ps[p]["LeaderId"] not in (jbod, -1) and jbod in ps[p]["OfflineReplicas"] for p in on_bad) \
            or {p: (ps[p]["LeaderId"], ps[p]["OfflineReplicas"]) for p in on_bad}
    wait_until(moved, "the failed dir's partitions led elsewhere", 45)
    wait_until(lambda: is_ready(probe(b.admin_port, "/v1/ready"), jbod) or probe(b.admin_port, "/v1/ready"),
               f"broker {jbod} ready again", 30)
    assert is_live(probe(b.admin_port, "/v1/health"), jbod)
    view = topic_view(b, topic)
    for part in on_bad:
        assert view[part]["leader"] != jbod and jbod in view[part]["offline_replicas"], view[part]
        assert view[part]["local"]["offline"] is True and "high_watermark" not in view[part]["local"], view[part]
    for part in on_good:
        assert view[part]["leader"] == jbod and not view[part]["offline_replicas"], view[part]
        assert view[part]["local"]["offline"] is False and "high_watermark" in view[part]["local"], view[part]
    assert b.alive(), b.log()[-3000:]
    print(f"  after the move: ready 200, broker {jbod} still leads {on_good}")
    c.stop(jbod)  # before the disk goes away (exit 0)


# -- 4. shutdown ------------------------------------------------------------------

def test_shutdown_says_not_ready_until_the_listener_goes(admin_cluster, seed):
    c = admin_cluster(overrides={"auto.leader.rebalance.enable": "false"})
    topic, n = "stopping", 6
    create_topic(c, topic, n)
    controller = c.controller()
    ps = partitions_of(metadata(c, controller), topic)
    leaders = sorted({p["LeaderId"] for p in ps.values()} - {controller})
    assert leaders, ps
    victim = random.Random(seed + 2).choice(leaders)
    b = c.brokers[victim]
    led = sorted(p for p, v in ps.items() if v["LeaderId"] == victim)
    print(f"  SIGTERM to broker {victim} (leads {topic} {led}), controller {controller} frozen meanwhile")
    assert is_ready(probe(b.admin_port, "/v1/ready"), victim)
    poller = Poller(b.admin_port, interval=0.02)
    try:
        with Frozen(c, controller):
            b.proc.send_signal(signal.SIGTERM)
            poller.start()
            # The controlled shutdown waits for the frozen controller: the
            # listener keeps answering, not ready.
            poller.wait_for(lambda s: s[2][0] == 503, "a 503", 10)
            from_first = next(k for k, s in enumerate(poller.samples) if s[2][0] == 503)
            while len(poller.samples) < from_first + 20:
                assert poller.error is None
                time.sleep(0.02)
            assert b.alive(), f"broker {victim} exited with the controller frozen:\n{b.log()[-3000:]}"
        rc = b.proc.wait(60)
        # The listener has gone with the process; a few more polls see it gone.
        k = len(poller.samples)
        wait_until(lambda: len(poller.samples) >= k + 5, "polls after the exit", 10, poll=0.02)
    finally:
        poller.stop()
    assert rc == 0, b.log()[-3000:]
    samples = poller.samples
    check_health_whenever_answered(samples, victim)
    states = []
    for t, health, ready in samples:
        if ready[0] == 200:
            assert is_ready(ready, victim), ready
            state = "ready"
        elif ready[0] in GONE:
            state = "gone"
        else:
            assert not_ready_reason(ready, victim) == SHUTTING_DOWN, ready
            # Asked just before ready, which answered: the listener was there.
            assert is_live(health, victim), (t, health, ready)
            state = "stopping"
        if not states or states[-1][0] != state:
            states.append([state, 0])
        states[-1][1] += 1
    order = [s for s, _ in states]
    assert order in (["stopping", "gone"], ["ready", "stopping", "gone"]), states
    assert dict((s, k) for s, k in states)["stopping"] >= 20, states
    assert "controlled shutdown" in b.log().lower(), b.log()[-3000:]
    print(f"  polls from the signal: {states}")
    c.wait_ready()  # the two others carry on


# -- 5. the JSON views against Metadata ------------------------------------------

def diff_views(c, i):
    """[] when broker i's /v1/cluster and /v1/topics say what its Metadata
    says, else the differences."""
    b = c.brokers[i]
    md = metadata(c, i)
    s1, cluster = probe(b.admin_port, "/v1/cluster")
    s2, topics = probe(b.admin_port, "/v1/topics")
    assert (s1, s2) == (200, 200), (s1, cluster, s2, topics)
    out = []

    def same(what, got, want):
        if got != want:
            out.append((what, got, want))

    same("cluster_id", cluster["cluster_id"], md["ClusterId"])
    same("broker_id", cluster["broker_id"], i)
    same("mode", cluster["mode"], "zookeeper")
    same("controller_id", cluster["controller_id"], md["ControllerId"])
    same("brokers", sorted((x["id"], x["rack"], [(e["listener"], e["host"], e["port"], e["security_protocol"])
                                                  for e in x["endpoints"]]) for x in cluster["brokers"]),
         sorted((x["NodeId"], x["Rack"], [("PLAINTEXT", x["Host"], x["Port"], "PLAINTEXT")]) for x in md["Brokers"]))
    view = {t["name"]: t for t in topics["topics"]}
    same("topics", sorted(view), sorted(t["Name"] for t in md["Topics"]))
    for t in md["Topics"]:
        if t["Name"] not in view:
            continue
        v = view[t["Name"]]
        same(f"{t['Name']} error", t["ErrorCode"], 0)
        same(f"{t['Name']} internal", v["internal"], t["IsInternal"])
        vp = {p["partition"]: p for p in v["partitions"]}
        same(f"{t['Name']} partitions", sorted(vp), sorted(p["PartitionIndex"] for p in t["Partitions"]))
        for p in t["Partitions"]:
            q = vp.get(p["PartitionIndex"])
            if q is None:
                continue
            same(f"{t['Name']}-{p['PartitionIndex']}",
                 (q["leader"], q["leader_epoch"], q["replicas"], q["isr"], q["offline_replicas"]),
                 (p["LeaderId"], p["LeaderEpoch"], p["ReplicaNodes"], p["IsrNodes"], p["OfflineReplicas"]))
            local = q["local"]
            same(f"{t['Name']}-{p['PartitionIndex']} hosted here", local is not None, i in p["ReplicaNodes"])
            if local is not None:
                same(f"{t['Name']}-{p['PartitionIndex']} high watermark shown",
                     "high_watermark" in local, p["LeaderId"] == i)
                same(f"{t['Name']}-{p['PartitionIndex']} offline", local["offline"], False)
    return out


def views_agree(c, i, timeout=20):
    """Until broker i's views and Metadata agree (bounded), then exactly once more."""
    wait_until(lambda: diff_views(c, i) == [] or diff_views(c, i), f"broker {i}'s views = its Metadata", timeout)
    assert diff_views(c, i) == []


def test_cluster_views_match_metadata(admin_cluster, seed):
    c = admin_cluster(overrides={"auto.leader.rebalance.enable": "false", "offsets.topic.replication.factor": "3"},
                      session_timeout_ms=3000)
    topic, n = "mirrored", 6
    create_topic(c, topic, n)
    controller = c.controller()
    for b in c.brokers:
        views_agree(c, b.id)
        md = metadata(c, b.id)
        assert md["ControllerId"] == controller and sorted(x["NodeId"] for x in md["Brokers"]) == [0, 1, 2], md
        assert len(partitions_of(md, topic)) == n
    print(f"  3 brokers: /v1/cluster and /v1/topics = Metadata on each (controller {controller})")

    victim = random.Random(seed + 3).randrange(3)
    before = partitions_of(metadata(c, controller), topic)
    led = sorted(p for p, v in before.items() if v["LeaderId"] == victim)
    survivors = [b.id for b in c.brokers if b.id != victim]
    print(f"  kill -9 broker {victim} (leads {topic} {led}{', the controller' if victim == controller else ''})")
    c.kill9(victim)

    def new_leaders(i):
        md = metadata(c, i)
        ps = partitions_of(md, topic)
        return (sorted(x["NodeId"] for x in md["Brokers"]) == survivors and md["ControllerId"] in survivors
                and all(p["LeaderId"] in survivors and victim not in p["IsrNodes"] for p in ps.values())) \
            or (md["ControllerId"], {k: (p["LeaderId"], p["IsrNodes"]) for k, p in ps.items()})
    for i in survivors:
        wait_until(lambda i=i: new_leaders(i), f"broker {i}'s Metadata without broker {victim}", 45)
    for i in survivors:
        views_agree(c, i)
    mds = {i: metadata(c, i) for i in survivors}
    assert len({md["ControllerId"] for md in mds.values()}) == 1, {i: md["ControllerId"] for i, md in mds.items()}
    for i in survivors:
        view = topic_view(c.brokers[i], topic)
        for part in led:
            assert view[part]["leader"] in survivors and view[part]["leader_epoch"] > before[part]["LeaderEpoch"], \
                (i, part, view[part])
    print(f"  after the kill: brokers {survivors} agree with their Metadata; controller "
          f"{mds[survivors[0]]['ControllerId']}")
