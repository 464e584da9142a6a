"""`spool group` (the kafka-consumer-groups.sh equivalent) against a real
broker, with groups made by a real client (confluent-kafka / librdkafka):
list, describe (lag, members, state), reset-offsets (dry run and --execute
for every spec, clamping), delete-offsets, delete, and the refusals while a
consumer is active. Committed offsets are checked through librdkafka's own
OffsetFetch (Consumer.committed), not only through the CLI."""

import json
import subprocess
import time
from datetime import datetime, timezone

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

import ck_util
from harness import spool_bin

TIMEOUT_S = 30
PARTITIONS = 3
TOTAL = 100
CONSUMED = 60  # 20 per partition
OFFSET_INVALID = -1001  # librdkafka: no committed offset


def spool(*args, bootstrap=None):
    cmd = [spool_bin(), *args]
    if bootstrap:
        cmd += ["--bootstrap-server", bootstrap]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def ok(r):
    assert r.returncode == 0, f"exit {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    return r


def create_topic(bootstrap, topic, partitions=PARTITIONS):
    a = AdminClient({"bootstrap.servers": bootstrap})
    fs = a.create_topics([NewTopic(topic, partitions, 1)], operation_timeout=10)
    fs[topic].result(timeout=TIMEOUT_S)


def produce(bootstrap, topic):
    """100 messages round-robin over the partitions: the first half ten
    minutes old, the second half five minutes old. Returns (log end per
    partition, first-half count per partition, a time between the halves)."""
    now_ms = int(time.time() * 1000)
    p = ck_util.producer(bootstrap)
    ends = [0] * PARTITIONS
    first_half = [0] * PARTITIONS
    for part in range(PARTITIONS):
        msgs = []
        for i in range(part, TOTAL, PARTITIONS):
            ts = now_ms - (600_000 if i < TOTAL // 2 else 300_000)
            msgs.append({"value": b"v%d" % i, "timestamp": ts})
            first_half[part] += i < TOTAL // 2
        reports = ck_util.produce_all(p, topic, msgs, partition=part)
        assert all(err is None for err, _, _ in reports), reports
        ends[part] = len(msgs)
    between = datetime.fromtimestamp((now_ms - 450_000) / 1000, tz=timezone.utc)
    return ends, first_half, between.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def group_consumer(bootstrap, group, **conf):
    c = {"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False,
         "auto.offset.reset": "earliest", "session.timeout.ms": 30000, "socket.timeout.ms": 10000}
    c.update(conf)
    return Consumer(c)


def consume_and_commit(bootstrap, topic, group, per_partition):
    """Subscribes as a member of `group`, reads until every partition gave at
    least `per_partition` messages, then commits exactly `per_partition` on
    each (which partitions a subscriber drains first is up to librdkafka)."""
    c = group_consumer(bootstrap, group)
    try:
        c.subscribe([topic])
        got = [0] * PARTITIONS
        deadline = time.monotonic() + TIMEOUT_S
        while min(got) < per_partition:
            assert time.monotonic() < deadline, f"consumed only {got}"
            m = c.poll(0.5)
            if m is None:
                continue
            assert not m.error(), m.error()
            got[m.partition()] += 1
        c.commit(offsets=[TopicPartition(topic, p, per_partition) for p in range(PARTITIONS)],
                 asynchronous=False)
    finally:
        c.close()


def committed(bootstrap, topic, group):
    """The group's committed offsets as librdkafka's OffsetFetch sees them."""
    c = group_consumer(bootstrap, group)
    try:
        tps = c.committed([TopicPartition(topic, p) for p in range(PARTITIONS)], timeout=TIMEOUT_S)
        return [tp.offset for tp in sorted(tps, key=lambda tp: tp.partition)]
    finally:
        c.close()


def describe_json(bootstrap, group):
    r = ok(spool("group", "describe", group, "-o", "json", bootstrap=bootstrap))
    groups = json.loads(r.stdout)
    assert len(groups) == 1 and groups[0]["group"] == group, groups
    return groups[0]


def reset(bootstrap, group, topic, *spec, execute=True):
    args = ["group", "reset-offsets", group, "--topic", topic, *spec, "-o", "json"]
    if execute:
        args.append("--execute")
    r = ok(spool(*args, bootstrap=bootstrap))
    plan = json.loads(r.stdout)
    return [row["new_offset"] for row in sorted(plan, key=lambda row: row["partition"])]


@pytest.fixture
def group_setup(bootstrap, topic):
    group = "g-" + topic
    create_topic(bootstrap, topic)
    ends, first_half, between = produce(bootstrap, topic)
    consume_and_commit(bootstrap, topic, group, CONSUMED // PARTITIONS)
    return group, ends, first_half, between


def test_list_and_describe_inactive_group(bootstrap, topic, group_setup):
    group, ends, _, _ = group_setup
    r = ok(spool("group", "list", bootstrap=bootstrap))
    rows = [line.split() for line in r.stdout.splitlines()]
    assert rows[0] == ["GROUP", "STATE", "PROTOCOL-TYPE"]
    assert [group, "Empty", "consumer"] in rows, r.stdout
    listed = json.loads(ok(spool("group", "list", "--state", "empty", "-o", "json", bootstrap=bootstrap)).stdout)
    assert {"group": group, "state": "Empty", "protocol_type": "consumer"} in listed
    listed = json.loads(ok(spool("group", "list", "--state", "Stable", "-o", "json", bootstrap=bootstrap)).stdout)
    assert group not in [g["group"] for g in listed]

    d = describe_json(bootstrap, group)
    assert d["state"] == "Empty" and d["members"] == []
    offsets = sorted(d["offsets"], key=lambda o: o["partition"])
    assert [o["partition"] for o in offsets] == list(range(PARTITIONS))
    assert [o["log_end_offset"] for o in offsets] == ends
    assert sum(o["current_offset"] for o in offsets) == CONSUMED
    assert sum(o["lag"] for o in offsets) == TOTAL - CONSUMED
    assert all(o["consumer_id"] is None for o in offsets)
    assert [o["current_offset"] for o in offsets] == committed(bootstrap, topic, group)

    r = ok(spool("group", "describe", group, bootstrap=bootstrap))
    assert f"Consumer group '{group}' has no active members." in r.stdout
    table = [line.split() for line in r.stdout.splitlines() if line.startswith(group)]
    assert len(table) == PARTITIONS and sum(int(row[5]) for row in table) == TOTAL - CONSUMED, r.stdout
    assert all(row[6:] == ["-", "-", "-"] for row in table), r.stdout

    every = json.loads(ok(spool("group", "describe", "--all-groups", "-o", "json", bootstrap=bootstrap)).stdout)
    assert [g for g in every if g["group"] == group] == [d]

    r = ok(spool("group", "describe", group, "--state", bootstrap=bootstrap))
    assert "Empty" in r.stdout and "COORDINATOR (ID)" in r.stdout

    r = spool("group", "describe", "no-such-group-" + topic, bootstrap=bootstrap)
    assert r.returncode == 1 and "does not exist" in r.stderr, (r.stdout, r.stderr)


def test_reset_offsets_specs(bootstrap, topic, group_setup):
    group, ends, first_half, between = group_setup
    before = committed(bootstrap, topic, group)
    assert sum(before) == CONSUMED

    # Dry run (the default): the plan says 0, nothing changes.
    r = ok(spool("group", "reset-offsets", group, "--topic", topic, "--to-earliest", bootstrap=bootstrap))
    plan = [line.split() for line in r.stdout.splitlines()]
    assert plan[0] == ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"]
    assert sorted(plan[1:]) == [[group, topic, str(p), "0"] for p in range(PARTITIONS)]
    assert "no offsets were changed" in r.stderr
    assert committed(bootstrap, topic, group) == before

    assert reset(bootstrap, group, topic, "--to-earliest") == [0] * PARTITIONS
    assert committed(bootstrap, topic, group) == [0] * PARTITIONS
    assert reset(bootstrap, group, topic, "--shift-by", "-5") == [0] * PARTITIONS  # clamped at log start
    assert committed(bootstrap, topic, group) == [0] * PARTITIONS
    assert reset(bootstrap, group, topic, "--to-offset", "10") == [10] * PARTITIONS
    assert reset(bootstrap, group, topic, "--shift-by=-4") == [6] * PARTITIONS
    assert committed(bootstrap, topic, group) == [6] * PARTITIONS
    assert reset(bootstrap, group, topic, "--to-offset", "1000") == ends  # clamped at log end
    assert reset(bootstrap, group, topic, "--to-earliest") == [0] * PARTITIONS
    assert reset(bootstrap, group, topic, "--to-latest") == ends
    assert committed(bootstrap, topic, group) == ends
    assert sum(o["lag"] for o in describe_json(bootstrap, group)["offsets"]) == 0

    assert reset(bootstrap, group, topic, "--to-datetime", between) == first_half
    assert committed(bootstrap, topic, group) == first_half
    assert reset(bootstrap, group, topic, "--to-datetime", "2000-01-01T00:00:00Z") == [0] * PARTITIONS
    assert reset(bootstrap, group, topic, "--to-datetime", "2999-01-01T00:00:00+01:00") == ends

    # One partition only; the others keep their offsets.
    reset(bootstrap, group, topic, "--to-earliest")
    r = ok(spool("group", "reset-offsets", group, "--topic", f"{topic}:1", "--to-latest", "--execute",
                 bootstrap=bootstrap))
    assert committed(bootstrap, topic, group) == [0, ends[1], 0]

    # --all-topics: every topic with a committed offset.
    r = ok(spool("group", "reset-offsets", group, "--all-topics", "--to-offset", "2", "--execute", "-o", "json",
                 bootstrap=bootstrap))
    assert len(json.loads(r.stdout)) == PARTITIONS
    assert committed(bootstrap, topic, group) == [2] * PARTITIONS


def test_reset_offsets_bad_input(bootstrap, topic, group_setup):
    group = group_setup[0]
    r = spool("group", "reset-offsets", group, "--topic", topic, "--to-datetime", "01/02/2024",
              bootstrap=bootstrap)
    assert r.returncode == 2 and "bad date-time" in r.stderr, (r.stdout, r.stderr)
    r = spool("group", "reset-offsets", group, "--topic", topic, "--to-earliest", "--to-latest",
              bootstrap=bootstrap)
    assert r.returncode == 2 and "only one reset spec" in r.stderr, (r.stdout, r.stderr)
    r = spool("group", "reset-offsets", group, "--topic", f"{topic}:7", "--to-earliest", bootstrap=bootstrap)
    assert r.returncode == 1 and "no partition 7" in r.stderr, (r.stdout, r.stderr)
    r = spool("group", "reset-offsets", group, "--topic", "missing-" + topic, "--to-earliest", bootstrap=bootstrap)
    assert r.returncode == 1 and "UNKNOWN_TOPIC_OR_PARTITION" in r.stderr, (r.stdout, r.stderr)


def test_delete_offsets_and_group(bootstrap, topic, group_setup):
    group = group_setup[0]
    before = committed(bootstrap, topic, group)
    r = ok(spool("group", "delete-offsets", group, "--topic", f"{topic}:0", bootstrap=bootstrap))
    assert "Successful" in r.stdout
    assert committed(bootstrap, topic, group) == [OFFSET_INVALID, before[1], before[2]]
    d = describe_json(bootstrap, group)
    assert sorted(o["partition"] for o in d["offsets"]) == [1, 2]

    r = ok(spool("group", "delete", group, bootstrap=bootstrap))
    assert f"Deletion of requested consumer groups ('{group}') was successful." in r.stdout
    listed = json.loads(ok(spool("group", "list", "-o", "json", bootstrap=bootstrap)).stdout)
    assert group not in [g["group"] for g in listed]
    assert committed(bootstrap, topic, group) == [OFFSET_INVALID] * PARTITIONS
    r = spool("group", "delete", group, bootstrap=bootstrap)
    assert r.returncode == 1 and "GROUP_ID_NOT_FOUND" in r.stderr, (r.stdout, r.stderr)


def test_active_group_is_refused(bootstrap, topic, group_setup):
    group = group_setup[0]
    c = group_consumer(bootstrap, group)
    try:
        c.subscribe([topic])
        deadline = time.monotonic() + TIMEOUT_S
        while not c.assignment():
            assert time.monotonic() < deadline, "no assignment"
            c.poll(0.2)
        # Wait until the coordinator reports the group Stable with this member.
        while True:
            d = describe_json(bootstrap, group)
            if d["state"] == "Stable" and d["members"]:
                break
            assert time.monotonic() < deadline, d
            c.poll(0.2)
        assert len(d["members"]) == 1 and d["members"][0]["partitions"] == PARTITIONS
        member = d["members"][0]["consumer_id"]
        assert all(o["consumer_id"] == member for o in d["offsets"]), d["offsets"]

        r = ok(spool("group", "describe", group, "--members", bootstrap=bootstrap))
        assert member in r.stdout and "#PARTITIONS" in r.stdout

        before = committed(bootstrap, topic, group)
        r = spool("group", "reset-offsets", group, "--topic", topic, "--to-earliest", "--execute",
                  bootstrap=bootstrap)
        assert r.returncode == 1 and "inactive" in r.stderr and "Stable" in r.stderr, (r.stdout, r.stderr)
        assert committed(bootstrap, topic, group) == before

        r = spool("group", "delete", group, bootstrap=bootstrap)
        assert r.returncode == 1 and "NON_EMPTY_GROUP" in r.stderr and "active members" in r.stderr, \
            (r.stdout, r.stderr)
        listed = json.loads(ok(spool("group", "list", "-o", "json", bootstrap=bootstrap)).stdout)
        assert {"group": group, "state": "Stable", "protocol_type": "consumer"} in listed
    finally:
        c.close()
