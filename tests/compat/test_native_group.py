"""Spool's native consumer and the Java client 4.4 in one consumer group
(issue 18, "a group of 3 native consumers and 2 Java consumers through
joins, leaves and a crash, with each partition owned once"), on a real
broker: Spool, or Apache Kafka 4.4 with SPOOL_TEST_PEER=kafka.

Members are child processes printing the same JSON events
(tests/compat/group_events.py): tests/compat/native/group_member.cc
(NATIVE_GROUP_MEMBER) and the Java client's GroupMember (tests/compat/java),
both on the classic protocol with auto commit off, committing what they read
after each poll and in their revoke callback. A librdkafka producer writes
to every partition all along.

Steps, each followed by a wait until the group is stable again (every live
member holds partitions, together all of them, and has committed since its
last assignment change):
  1. joins: 3 native members, then 2 Java members;
  2. a leave: one Java member is stopped (SIGTERM: it commits, revokes and
     sends LeaveGroup);
  3. a crash: one native member is killed with SIGKILL, so the coordinator
     only learns of it when its session (6 s) expires;
  4. a join: a new native member replaces it.
Then the producer stops, the group must commit the end of every partition,
and every member left must exit 0 on SIGTERM. group_events.judge checks the
events: no partition owned by two members at once, each ownership starting
at the committed offset, contiguous offsets, every record read.

Run twice: with the assignors' defaults (both clients offer range first, so
the group runs eager range) and with cooperative-sticky only on every member
(incremental rebalances: only moved partitions are revoked).
NATIVE_GROUP_SEED replays the random choices (which members leave and die).
"""

import json
import os
import random
import sys
import tempfile
import time

import pytest

from group_events import Member, Producer, committed, judge, wait_stable
from group_util import create_topic
from harness import java_client_argv, missing_tool

BROKER_OVERRIDES = {"group.initial.rebalance.delay.ms": "0"}
SEED = int(os.environ.get("NATIVE_GROUP_SEED") or random.SystemRandom().randrange(1 << 31))
NPARTS = 10
print(f"\ntest_native_group: NATIVE_GROUP_SEED={SEED}", file=sys.stderr)


@pytest.fixture(scope="module")
def launchers():
    native = os.environ.get("NATIVE_GROUP_MEMBER")
    if not native or not os.access(native, os.X_OK):
        missing_tool("native_group_member (NATIVE_GROUP_MEMBER)")
    java = java_client_argv("dev.spool.compat.GroupMember", "-Xmx160m", "-XX:TieredStopAtLevel=1")
    return {"native": [native], "java": java}


@pytest.mark.parametrize("assignors", [None, "cooperative-sticky"], ids=["default", "cooperative"])
def test_native_and_java_members_share_a_group(bootstrap, topic, launchers, assignors):
    rng = random.Random(f"{SEED}-{assignors}")
    create_topic(bootstrap, topic, NPARTS)
    group = f"{topic}-g"
    members, live = [], []
    extra = [assignors] if assignors else []

    def start(kind):
        m = Member(launchers[kind], bootstrap, group, topic, f"{kind}-{len(members)}", extra)
        members.append(m)
        live.append(m)
        return m

    def settle(what):
        took = wait_stable({"group": live}, since, what, len(live), NPARTS, SEED)["group"]
        print(f"  {what}: stable after {took:.2f} s with {[m.name for m in live]}")

    producer = Producer(bootstrap, topic, NPARTS)
    ends, final = {}, {}
    try:
        since = time.time()
        for _ in range(3):
            start("native")
        settle("3 native members joined")
        since = time.time()
        for _ in range(2):
            start("java")
        settle("2 Java members joined")
        leaving = rng.choice([m for m in live if m.name.startswith("java")])
        since = time.time()
        live.remove(leaving)
        rc = leaving.terminate()
        assert rc == 0, f"{leaving.name} exited {rc}\n{leaving.output()}"
        settle(f"{leaving.name} left")
        victim = rng.choice([m for m in live if m.name.startswith("native")])
        time.sleep(rng.uniform(0.0, 1.0))
        since = time.time()
        live.remove(victim)
        victim.kill9()
        settle(f"{victim.name} was killed")
        since = time.time()
        start("native")
        settle("a new native member joined")
        ends = producer.finish()
        deadline = time.monotonic() + 90
        while True:
            final = committed(bootstrap, group, topic, NPARTS)
            if all(final.get(p) == ends.get(p, 0) for p in range(NPARTS)):
                break
            assert time.monotonic() < deadline, f"committed {final} never reached the end {ends} (seed {SEED})"
            time.sleep(0.3)
        for m in list(live):
            rc = m.terminate()
            assert rc == 0, f"{m.name} exited {rc}\n{m.output()}"
    except AssertionError as e:
        raise AssertionError(f"{e}\n{dump_events(members)}") from None
    finally:
        producer.stop.set()
        for m in members:
            m.kill9()
    problems = judge("native+java", members, ends, final, NPARTS)
    assert not problems, "\n".join(problems[:40]) + f"\n(seed {SEED})\n{dump_events(members)}"


def dump_events(members):
    """Every member's events, in a file for a failure to be read afterwards."""
    fd, path = tempfile.mkstemp(prefix="native-group-", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump({m.name: {"events": m.snapshot(), "output": m.output(10 ** 6)} for m in members}, f)
    return f"members' events in {path}\n" + "\n".join(m.output(15) for m in members)
