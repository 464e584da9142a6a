"""Mixed-client consumer groups: librdkafka, kafka-python and kafkajs members
in one group offer different assignor lists, and the coordinator must pick
the protocol Kafka's vote picks (each member votes for its most preferred
protocol among those every member supports; most votes wins). A member with
no protocol in common with the group is refused with
INCONSISTENT_GROUP_PROTOCOL and the group is left alone.

The chosen protocol is read back with DescribeGroups (kafka-python's
KafkaAdminClient; confluent-kafka-python 1.7 has no describe_consumer_groups).
"""

import time
import uuid

import pytest
from confluent_kafka import KafkaError
from kafka.coordinator.assignors.range import RangePartitionAssignor
from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor

from harness import missing_tool
from group_util import (FAST_GROUPS, CkMember, JsMember, KpMember, create_topic, describe_group,
                        describe_split, node_available, split_ok, stop_all, wait_until)

BROKER_OVERRIDES = dict(FAST_GROUPS)
NPARTS = 6
RANGE_FIRST = {"partition.assignment.strategy": "range,roundrobin"}
RR_FIRST = {"partition_assignment_strategy": [RoundRobinPartitionAssignor, RangePartitionAssignor]}


def group_name(tag):
    return f"{tag}-{uuid.uuid4().hex[:8]}"


def settled(bootstrap, group, members, topic, protocol):
    """The group is Stable with all `members`, their assignments split the
    topic, and DescribeGroups names `protocol`."""
    if not split_ok(members, topic, NPARTS):
        return False
    d = describe_group(bootstrap, group)
    return d.state == "Stable" and len(d.members) == len(members) and d.protocol == protocol


def describe_state(bootstrap, group, members):
    try:
        d = describe_group(bootstrap, group)
        desc = (d.state, d.protocol_type, d.protocol, [(m.member_id, m.client_id) for m in d.members])
    except Exception as e:  # report, not hide, a failing DescribeGroups
        desc = f"DescribeGroups failed: {e!r}"
    return {"describe": desc, "split": describe_split(members),
            "errors": {m.name: getattr(m, "errors", None) for m in members}}


def test_vote_range_wins(broker, bootstrap, topic):
    """2 librdkafka members prefer range, 1 kafka-python member prefers
    roundrobin: range gets 2 votes of 3."""
    create_topic(bootstrap, topic, NPARTS)
    group = group_name("mix-range")
    members = [CkMember("ck-a", bootstrap, group, [topic], **RANGE_FIRST).start(),
               CkMember("ck-b", bootstrap, group, [topic], **RANGE_FIRST).start(),
               KpMember("kp-a", bootstrap, group, [topic], **RR_FIRST).start()]
    try:
        wait_until(lambda: settled(bootstrap, group, members, topic, "range"),
                   what="Stable group of 3 on protocol 'range'",
                   state=lambda: describe_state(bootstrap, group, members), interval=0.5)
        d = describe_group(bootstrap, group)
        assert d.protocol_type == "consumer"
        assert sorted(m.client_id for m in d.members) == ["ck-a", "ck-b", "kp-a"]
        # Range over one topic gives contiguous blocks of 2.
        for m in members:
            ps = sorted(p for _, p in m.assignment())
            assert len(ps) == 2 and ps[1] == ps[0] + 1, f"not a range split: {describe_split(members)}"
    finally:
        errs = stop_all(members)
    assert not errs, errs


def test_vote_changes_with_members_and_kafkajs_joins(broker, bootstrap, topic):
    """A librdkafka member alone runs 'range'; two kafka-python members that
    prefer roundrobin join and the next generation's vote is roundrobin 2:1;
    a kafkajs member offering only 'roundrobin' then joins too."""
    create_topic(bootstrap, topic, NPARTS)
    group = group_name("mix-rr")
    ck = CkMember("ck-a", bootstrap, group, [topic], **RANGE_FIRST).start()
    members = [ck]
    try:
        wait_until(lambda: settled(bootstrap, group, members, topic, "range"),
                   what="single librdkafka member on 'range'",
                   state=lambda: describe_state(bootstrap, group, members), interval=0.5)
        members += [KpMember(f"kp-{i}", bootstrap, group, [topic], **RR_FIRST).start()
                    for i in range(2)]
        wait_until(lambda: settled(bootstrap, group, members, topic, "roundrobin"),
                   what="Stable group of 3 on protocol 'roundrobin'",
                   state=lambda: describe_state(bootstrap, group, members), interval=0.5)
        if not node_available():
            missing_tool("node or tests/compat/js/node_modules/kafkajs (npm ci)")
        js = JsMember("js-a", bootstrap, group, [topic])
        members.append(js)
        wait_until(lambda: settled(bootstrap, group, members, topic, "roundrobin"),
                   what="Stable group of 4 (with kafkajs) on 'roundrobin'",
                   state=lambda: (describe_state(bootstrap, group, members), js.output()),
                   interval=0.5)
        assert all(len(m.assignment()) in (1, 2) for m in members), describe_split(members)
    finally:
        errs = stop_all(members)
    assert not errs, errs


def test_no_common_protocol_is_refused(broker, bootstrap, topic):
    """kafka-python members on 'range' only; a librdkafka member offering
    only 'cooperative-sticky' is refused with INCONSISTENT_GROUP_PROTOCOL
    and the group keeps its members and assignments."""
    create_topic(bootstrap, topic, NPARTS)
    group = group_name("mix-bad")
    only_range = {"partition_assignment_strategy": [RangePartitionAssignor]}
    kps = [KpMember(f"kp-{i}", bootstrap, group, [topic], **only_range).start() for i in range(2)]
    members = list(kps)
    try:
        wait_until(lambda: settled(bootstrap, group, kps, topic, "range"),
                   what="2 kafka-python members on 'range'",
                   state=lambda: describe_state(bootstrap, group, kps), interval=0.5)
        before = {m.name: (m.revoke_count, m.assign_count, m.assignment()) for m in kps}
        coop = CkMember("ck-coop", bootstrap, group, [topic],
                        **{"partition.assignment.strategy": "cooperative-sticky"}).start()
        members.append(coop)

        def refused():
            return any(code == KafkaError.INCONSISTENT_GROUP_PROTOCOL or
                       "INCONSISTENT_GROUP_PROTOCOL" in msg.upper().replace(" ", "_")
                       for code, msg in coop.errors)
        wait_until(refused, what="INCONSISTENT_GROUP_PROTOCOL reported to the cooperative member",
                   state=lambda: describe_state(bootstrap, group, members))
        assert not coop.assignment(), f"refused member got partitions: {coop.assignment()}"
        time.sleep(3.5)  # a few heartbeats: a (wrong) rebalance would show up now
        after = {m.name: (m.revoke_count, m.assign_count, m.assignment()) for m in kps}
        assert after == before, f"group disturbed by the refused member: {before} -> {after}"
        d = describe_group(bootstrap, group)
        assert d.state == "Stable" and d.protocol == "range"
        assert sorted(m.client_id for m in d.members) == ["kp-0", "kp-1"]
    finally:
        errs = stop_all(members)
    assert not errs, errs
