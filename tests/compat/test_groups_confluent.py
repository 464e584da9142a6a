"""Consumer groups with confluent-kafka-python (librdkafka 2.0.x) against a
real spool broker: partition split and rebalances, a member dying without
LeaveGroup, committed offsets across a broker restart, static membership
(KIP-345) and the default initial rebalance delay.

Assignments are tracked from librdkafka's on_assign/on_revoke callbacks;
every wait has a generous deadline and no test asserts on durations."""

import time
import uuid

import pytest

from group_util import (FAST_GROUPS, WAIT_S, CkMember, ProcMember, check_partition_split,
                        create_topic, describe_group, describe_split, produce_numbered, split_ok, stop_all,
                        wait_until)
from harness import external_bootstrap

BROKER_OVERRIDES = dict(FAST_GROUPS)


def group_name(tag):
    return f"{tag}-{uuid.uuid4().hex[:8]}"


def test_split_rebalance_and_dead_member(broker, bootstrap, topic):
    """3 members own 2 of 6 partitions each; a 4th (child process) joins and
    the 6 are re-split with no partition owned twice or orphaned; SIGKILL of
    the 4th (no LeaveGroup) hands its partitions back to the 3 survivors once
    its session times out."""
    create_topic(bootstrap, topic, 6)
    group = group_name("ck-split")
    members = [CkMember(f"ck{i}", bootstrap, group, [topic]).start() for i in range(3)]
    try:
        wait_until(lambda: split_ok(members, topic, 6) and
                   all(len(m.assignment()) == 2 for m in members),
                   what="3 members x 2 partitions", state=lambda: describe_split(members))

        fourth = ProcMember("ck3-proc", bootstrap, group, [topic],
                            **{"session.timeout.ms": 6000, "heartbeat.interval.ms": 1000})
        members.append(fourth)
        wait_until(lambda: split_ok(members, topic, 6),
                   what="6 partitions split over 4 members",
                   state=lambda: (describe_split(members), fourth.output()))
        sizes = sorted(len(m.assignment()) for m in members)
        assert sizes == [1, 1, 2, 2], f"uneven split: {describe_split(members)}"
        moved = fourth.assignment()
        assert moved, "the 4th member owns nothing"

        survivors = members[:3]
        fourth.kill9()
        members.remove(fourth)
        wait_until(lambda: split_ok(survivors, topic, 6) and
                   all(len(m.assignment()) == 2 for m in survivors),
                   what="survivors take over the killed member's partitions "
                        "(needs session-timeout expiry on the broker)",
                   state=lambda: describe_split(survivors))
        owned = set().union(*(m.assignment() for m in survivors))
        assert moved <= owned
    finally:
        errs = stop_all(members)
    assert not errs, errs


def _consume_until(member, topic, count, what):
    wait_until(lambda: len(member.consumed(topic)) >= count, what=what,
               state=lambda: (len(member.consumed(topic)), member.assignment(), member.errors))
    return member.consumed(topic)


def test_committed_offsets_survive_restart(broker, bootstrap, topic):
    """Commit part of what was consumed, restart the broker, and a new member
    of the same group reads exactly the rest: nothing lost, nothing below the
    committed offsets replayed."""
    if external_bootstrap():
        pytest.skip("restarts the broker")
    nparts, n = 6, 300
    create_topic(bootstrap, topic, nparts)
    produced = produce_numbered(bootstrap, topic, nparts, n)
    group = group_name("ck-restart")

    m = CkMember("ck-first", bootstrap, group, [topic]).start()
    try:
        got = _consume_until(m, topic, n, f"all {n} messages")
        assert len(got) == n, f"consumed {len(got)} messages, expected {n} (duplicates?)"
        assert {(p, o): v for _, p, o, _, v in got} == produced
        # Commit a different point per partition, 0 for partition 0 (empty
        # commit = read it all) and the end for the last.
        per_part = n // nparts
        commit = {(topic, p): (p * per_part) // (nparts - 1) for p in range(nparts)}
        m.commit(commit)
        assert m.committed(list(commit)) == commit
    finally:
        m.stop()

    broker.restart()

    m2 = CkMember("ck-second", bootstrap, group, [topic]).start()
    try:
        # committed() right after the restart: the coordinator reloaded them.
        wait_until(lambda: m2.assignment(), what="assignment after restart",
                   state=lambda: (m2.errors,))
        assert m2.committed(list(commit)) == commit
        expect = {(p, o): v for (p, o), v in produced.items() if o >= commit[(topic, p)]}
        got2 = _consume_until(m2, topic, len(expect), f"the {len(expect)} uncommitted messages")
        below = [(p, o) for _, p, o, _, _ in got2 if o < commit[(topic, p)]]
        assert not below, f"replayed committed messages: {below[:10]}"
        # Let a little more arrive if the broker wrongly had more to give.
        time.sleep(1.0)
        got2 = m2.consumed(topic)
        assert len(got2) == len(expect), f"read {len(got2)}, expected {len(expect)}"
        assert {(p, o): v for _, p, o, _, v in got2} == expect
    finally:
        m2.stop()


def _stable_with(bootstrap, group, n):
    d = describe_group(bootstrap, group)
    return d.state == "Stable" and len(d.members) == n


def test_static_member_restart_keeps_partitions(broker, bootstrap, topic):
    """KIP-345: a member with group.instance.id killed and restarted within
    its session timeout gets the same partitions back, and the other members
    are not revoked (no rebalance)."""
    create_topic(bootstrap, topic, 6)
    group = group_name("ck-static")
    static = {"session.timeout.ms": 30000, "heartbeat.interval.ms": 1000}
    others = [CkMember(f"ck-static{i}", bootstrap, group, [topic],
                       **{"group.instance.id": f"inst-{i}"}, **static).start() for i in range(2)]
    proc = ProcMember("ck-static-proc", bootstrap, group, [topic],
                      **{"group.instance.id": "inst-proc"}, **static)
    members = others + [proc]
    try:
        # The child process starts last, so it is not the group leader (the
        # first member to join leads): the restart below is a follower's.
        wait_until(lambda: split_ok(members, topic, 6) and
                   all(len(m.assignment()) == 2 for m in members) and
                   _stable_with(bootstrap, group, 3),
                   what="3 static members x 2 partitions, group Stable",
                   state=lambda: (describe_split(members), proc.output()), interval=0.5)
        before = proc.assignment()
        revokes = [m.revoke_count for m in others]
        assigns = [m.assign_count for m in others]

        proc.kill9()
        members.remove(proc)
        proc2 = ProcMember("ck-static-proc2", bootstrap, group, [topic],
                           **{"group.instance.id": "inst-proc"}, **static)
        members.append(proc2)
        wait_until(lambda: proc2.assignment(), what="restarted static member's assignment",
                   state=lambda: (describe_split(members), proc2.output()))
        assert proc2.assignment() == before, \
            f"static member got {sorted(proc2.assignment())}, had {sorted(before)}"
        # Give the others a few heartbeats to notice a rebalance, were one
        # (wrongly) started by the rejoin.
        time.sleep(3.5)
        assert [m.revoke_count for m in others] == revokes, \
            f"others were revoked: {[m.events for m in others]}"
        assert [m.assign_count for m in others] == assigns, \
            f"others were reassigned: {[m.events for m in others]}"
        assert check_partition_split(members, topic, 6) is None, describe_split(members)
    finally:
        errs = stop_all(members)
    assert not errs, errs


def test_default_initial_rebalance_delay_completes(broker_factory, topic):
    """With the broker's default group.initial.rebalance.delay.ms (3000) a
    new group still forms: 2 members split 4 partitions."""
    b = broker_factory()
    create_topic(b.bootstrap, topic, 4)
    group = group_name("ck-delay")
    members = [CkMember(f"ck-delay{i}", b.bootstrap, group, [topic]).start() for i in range(2)]
    try:
        wait_until(lambda: split_ok(members, topic, 4) and
                   all(len(m.assignment()) == 2 for m in members),
                   what="2 members x 2 partitions with the default delay",
                   state=lambda: (describe_split(members), b.log()[-3000:]))
    finally:
        errs = stop_all(members)
    assert not errs, errs
