"""Consumer groups with kafka-python 2.0.2 against a real spool broker: two
members split a topic, each commits part of what it read, the broker
restarts and a new member resumes exactly after the committed offsets; a
member leaving (LeaveGroup on close) hands everything to the other.

kafka-python fixes its request versions from a guessed broker version, so
this also covers the older JoinGroup/SyncGroup/OffsetCommit versions."""

import time
import uuid

import pytest

from group_util import (FAST_GROUPS, KpMember, create_topic, describe_split, produce_numbered,
                        split_ok, stop_all, wait_until)
from harness import external_bootstrap

BROKER_OVERRIDES = dict(FAST_GROUPS)
NPARTS = 4


def group_name(tag):
    return f"{tag}-{uuid.uuid4().hex[:8]}"


def test_two_members_commit_restart_resume(broker, bootstrap, topic):
    if external_bootstrap():
        pytest.skip("restarts the broker")
    create_topic(bootstrap, topic, NPARTS)
    group = group_name("kp-split")
    members = [KpMember(f"kp{i}", bootstrap, group, [topic]).start() for i in range(2)]
    try:
        wait_until(lambda: split_ok(members, topic, NPARTS) and
                   all(len(m.assignment()) == NPARTS // 2 for m in members),
                   what="2 members x 2 partitions", state=lambda: describe_split(members))
        # Produce only once the group is stable, so no rebalance can make a
        # member re-read what the other already consumed.
        n = 200
        produced = produce_numbered(bootstrap, topic, NPARTS, n)
        wait_until(lambda: sum(len(m.consumed(topic)) for m in members) >= n,
                   what=f"{n} messages over both members",
                   state=lambda: {m.name: (len(m.consumed(topic)), m.errors) for m in members})
        got = [x for m in members for x in m.consumed(topic)]
        assert len(got) == n, f"{len(got)} consumed, {n} produced (duplicates?)"
        assert {(p, o): v for _, p, o, _, v in got} == produced
        for m in members:  # each member read only its own partitions
            mine = {p for _, p in m.assignment()}
            assert {p for _, p, _, _, _ in m.consumed(topic)} <= mine, m.name

        per_part = n // NPARTS
        commit = {}
        for m in members:
            own = {tp: (tp[1] + 1) * per_part // (NPARTS + 1) for tp in m.assignment()}
            m.commit(own)
            commit.update(own)
        for m in members:
            got_c = m.committed(list(commit))
            assert got_c == commit, f"{m.name}: committed() = {got_c}, expected {commit}"
    finally:
        errs = stop_all(members)
    assert not errs, errs

    broker.restart()

    m = KpMember("kp-after", bootstrap, group, [topic]).start()
    try:
        expect = {(p, o): v for (p, o), v in produced.items() if o >= commit[(topic, p)]}
        wait_until(lambda: len(m.consumed(topic)) >= len(expect),
                   what=f"the {len(expect)} uncommitted messages after restart",
                   state=lambda: (len(m.consumed(topic)), m.assignment(), m.errors))
        got = m.consumed(topic)
        below = [(p, o) for _, p, o, _, _ in got if o < commit[(topic, p)]]
        assert not below, f"replayed committed messages: {below[:10]}"
        time.sleep(1.0)  # room for extra (wrong) records to show up
        got = m.consumed(topic)
        assert {(p, o): v for _, p, o, _, v in got} == expect
        assert len(got) == len(expect)
        assert m.committed(list(commit)) == commit
    finally:
        m.stop()


def test_leave_hands_partitions_to_remaining(broker, bootstrap, topic):
    create_topic(bootstrap, topic, NPARTS)
    group = group_name("kp-leave")
    a = KpMember("kp-a", bootstrap, group, [topic]).start()
    b = KpMember("kp-b", bootstrap, group, [topic]).start()
    try:
        wait_until(lambda: split_ok([a, b], topic, NPARTS),
                   what="2 members split 4 partitions", state=lambda: describe_split([a, b]))
        revokes = a.revoke_count
        b.stop()  # close() sends LeaveGroup
        wait_until(lambda: a.assignment() == {(topic, p) for p in range(NPARTS)},
                   what="remaining member owns all partitions after LeaveGroup",
                   state=lambda: (describe_split([a]), a.events, a.errors))
        assert a.revoke_count > revokes, "no rebalance seen by the remaining member"
        # It consumes from every partition now.
        produced = produce_numbered(bootstrap, topic, NPARTS, 40)
        wait_until(lambda: len(a.consumed(topic)) >= 40, what="40 messages on the remaining member",
                   state=lambda: (len(a.consumed(topic)), a.errors))
        assert {(p, o): v for _, p, o, _, v in a.consumed(topic)} == produced
    finally:
        errs = stop_all([a, b])
    assert not errs, errs
