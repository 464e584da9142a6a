"""The transaction coordinator by raw frames: FindCoordinator(TRANSACTION),
InitProducerId with a transactional id (epoch bumps, fencing), AddPartitionsToTxn
(unknown topics, KIP-588 error mapping by version), AddOffsetsToTxn, EndTxn
(state errors, a COMMIT marker in the partition), Describe/ListTransactions,
and the state rebuilt from __transaction_state after a restart."""

import json
import os
import re
import subprocess
import time

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

import kafka_wire as w
from harness import spool_bin

NONE = 0
UNKNOWN_TOPIC_OR_PARTITION = 3
NOT_COORDINATOR = 16
INVALID_REQUEST = 42
INVALID_PRODUCER_EPOCH = 47
INVALID_TXN_STATE = 48
INVALID_PRODUCER_ID_MAPPING = 49
CONCURRENT_TRANSACTIONS = 51
OPERATION_NOT_ATTEMPTED = 55
PRODUCER_FENCED = 90
TRANSACTIONAL_ID_NOT_FOUND = 105

WAIT_S = 30
BROKER_OVERRIDES = {"transaction.state.log.num.partitions": "5"}


def create_topic(bootstrap, name, partitions=2):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    fut = admin.create_topics([NewTopic(name, partitions, 1)], operation_timeout=30)[name]
    fut.result(timeout=30)


@pytest.fixture
def tid(request):
    return re.sub(r"[^A-Za-z0-9._-]", "_", request.node.name)[:40] + "-" + os.urandom(3).hex()


@pytest.fixture
def topic_name(request):
    return re.sub(r"[^A-Za-z0-9._-]", "_", request.node.name)[:40] + "-t-" + os.urandom(3).hex()


def find_txn_coordinator(s, tid, corr=1):
    return w.parse_find_coordinator(w.roundtrip(s, w.find_coordinator(corr, tid, key_type=1)))


def init(s, tid, version=1, corr=2, timeout_ms=60000, producer_id=-1, producer_epoch=-1):
    frame = w.roundtrip(s, w.init_producer_id(corr, version, transactional_id=tid, timeout_ms=timeout_ms,
                                              producer_id=producer_id, producer_epoch=producer_epoch))
    _, err, pid, epoch = w.parse_init_producer_id(frame, version)
    return err, pid, epoch


def init_ok(s, tid, **kw):
    """InitProducerId, retried while the coordinator answers CONCURRENT_TRANSACTIONS
    (an open transaction is being aborted first)."""
    deadline = time.time() + WAIT_S
    while True:
        err, pid, epoch = init(s, tid, **kw)
        if err != CONCURRENT_TRANSACTIONS or time.time() > deadline:
            break
        time.sleep(0.05)
    assert err == NONE, err
    return pid, epoch


def add_parts(s, tid, pid, epoch, topics, version=0):
    return w.parse_add_partitions_to_txn(w.roundtrip(s, w.add_partitions_to_txn(5, tid, pid, epoch, topics, version)))


def end(s, tid, pid, epoch, commit, version=0):
    return w.parse_error_only(w.roundtrip(s, w.end_txn(6, tid, pid, epoch, commit, version)))


def describe(s, tid):
    (d,) = w.parse_describe_transactions(w.roundtrip(s, w.describe_transactions(8, [tid])))
    return d


def wait_state(s, tid, states):
    deadline = time.time() + WAIT_S
    d = describe(s, tid)
    while d["state"] not in states and time.time() < deadline:
        time.sleep(0.05)
        d = describe(s, tid)
    return d


def markers_written(s, tid):
    """The coordinator's markers are written (txn_markers.cc): the
    transaction reaches CompleteCommit/CompleteAbort, never staying in
    PrepareX."""
    d = wait_state(s, tid, ("CompleteCommit", "CompleteAbort"))
    assert d["state"] in ("CompleteCommit", "CompleteAbort"), f"markers not written: still {d['state']}"
    return d


def test_find_coordinator_transaction_is_this_broker(broker, tid):
    with w.connect(broker.port) as s:
        for v in (1, 2):
            r = w.parse_find_coordinator(w.roundtrip(s, w.find_coordinator(3, tid, key_type=1, version=v)), v)
            assert r["error"] == NONE, r
            assert r["port"] == broker.port
            assert r["node_id"] >= 0
        r = find_txn_coordinator(s, "")
        assert (r["error"], r["node_id"], r["port"]) == (INVALID_REQUEST, -1, -1)
        r = w.parse_find_coordinator(w.roundtrip(s, w.find_coordinator(4, tid, key_type=7)))
        assert r["error"] == INVALID_REQUEST


def test_init_producer_id_bumps_the_epoch(broker, tid):
    with w.connect(broker.port) as s:
        assert find_txn_coordinator(s, tid)["error"] == NONE
        pid, epoch = init_ok(s, tid)
        assert pid >= 0 and epoch == 0
        for v in (2, 3, 4):
            pid2, epoch2 = init_ok(s, tid, version=v)
            assert pid2 == pid and epoch2 == epoch + 1, v
            epoch = epoch2
        # KIP-360: an unrelated producer id is fenced (v3: the old code).
        err, _, _ = init(s, tid, version=4, producer_id=pid + 12345, producer_epoch=0)
        assert err == PRODUCER_FENCED
        err, _, _ = init(s, tid, version=3, producer_id=pid + 12345, producer_epoch=0)
        assert err == INVALID_PRODUCER_EPOCH
        d = describe(s, tid)
        assert (d["error"], d["state"], d["producer_id"], d["producer_epoch"]) == (NONE, "Empty", pid, epoch)


def test_add_partitions_unknown_topic_and_errors(broker, tid, topic_name):
    create_topic(broker.bootstrap, topic_name)
    with w.connect(broker.port) as s:
        find_txn_coordinator(s, tid)
        pid, epoch = init_ok(s, tid)
        r = add_parts(s, tid, pid, epoch, {topic_name: [0, 1], "no-such-topic-" + tid: [0]})
        assert r == {(topic_name, 0): OPERATION_NOT_ATTEMPTED, (topic_name, 1): OPERATION_NOT_ATTEMPTED,
                     ("no-such-topic-" + tid, 0): UNKNOWN_TOPIC_OR_PARTITION}
        r = add_parts(s, tid, pid, epoch, {topic_name: [0, 7]})
        assert r[(topic_name, 7)] == UNKNOWN_TOPIC_OR_PARTITION
        assert describe(s, tid)["state"] == "Empty"
        assert add_parts(s, tid, pid + 1, epoch, {topic_name: [0]}) == {(topic_name, 0): INVALID_PRODUCER_ID_MAPPING}
        assert add_parts(s, "unknown-" + tid, pid, epoch, {topic_name: [0]}) == {
            (topic_name, 0): INVALID_PRODUCER_ID_MAPPING}
        assert end(s, tid, pid, epoch, True) == INVALID_TXN_STATE  # Empty: nothing to end
        assert end(s, "unknown-" + tid, pid, epoch, True) == INVALID_PRODUCER_ID_MAPPING
        assert add_parts(s, tid, pid, epoch, {topic_name: [0, 1]}) == {(topic_name, 0): NONE, (topic_name, 1): NONE}
        d = describe(s, tid)
        assert d["state"] == "Ongoing"
        assert d["partitions"] == {topic_name: [0, 1]}
        assert d["timeout_ms"] == 60000 and d["start_ms"] > 0


def test_commit_writes_a_commit_marker(broker, tid, topic_name):
    create_topic(broker.bootstrap, topic_name, partitions=1)
    with w.connect(broker.port) as s:
        find_txn_coordinator(s, tid)
        pid, epoch = init_ok(s, tid)
        assert add_parts(s, tid, pid, epoch, {topic_name: [0]}) == {(topic_name, 0): NONE}
        _, parts = w.parse_produce_v3(w.roundtrip(s, w.produce_v3(
            7, topic_name, 0, w.transactional_batch(pid, epoch, 0, [b"a", b"b"]), acks=-1, transactional_id=tid)))
        assert parts[(topic_name, 0)][0] == NONE, parts
        # AddOffsetsToTxn puts the group's __consumer_offsets partition in.
        err = w.parse_error_only(w.roundtrip(s, w.add_offsets_to_txn(9, tid, pid, epoch, "g-" + tid)))
        assert err == NONE
        d = describe(s, tid)
        assert topic_name in d["partitions"] and "__consumer_offsets" in d["partitions"]
        assert end(s, tid, pid, epoch, True) == NONE
        d = markers_written(s, tid)
        assert d["state"] == "CompleteCommit"
        assert end(s, tid, pid, epoch, True) == NONE  # a retry of a finished commit
        assert end(s, tid, pid, epoch, False) == INVALID_TXN_STATE
        frame = w.roundtrip(s, w.fetch_request(11, 0, -1, [(topic_name, 0, 0, 1 << 20)]))
        part = w.parse_fetch(frame)["partitions"][0]
        assert part["error"] == NONE
        markers = w.control_markers(part["records"] or b"")
        assert markers == [(2, pid, epoch, "COMMIT")], markers


def test_second_producer_fences_the_first(broker, tid, topic_name):
    create_topic(broker.bootstrap, topic_name, partitions=1)
    with w.connect(broker.port) as s:
        find_txn_coordinator(s, tid)
        pid, epoch = init_ok(s, tid)
        assert add_parts(s, tid, pid, epoch, {topic_name: [0]}) == {(topic_name, 0): NONE}
        # The new instance: its first InitProducerId aborts the open transaction.
        err, _, _ = init(s, tid)
        assert err == CONCURRENT_TRANSACTIONS
        d = describe(s, tid)
        assert d["state"] in ("PrepareAbort", "CompleteAbort")
        assert d["producer_epoch"] == epoch + 1
        # The zombie is fenced, with the error code its request version knows.
        assert add_parts(s, tid, pid, epoch, {topic_name: [0]}, version=2) == {(topic_name, 0): PRODUCER_FENCED}
        assert add_parts(s, tid, pid, epoch, {topic_name: [0]}, version=1) == {
            (topic_name, 0): INVALID_PRODUCER_EPOCH}
        assert end(s, tid, pid, epoch, True, version=2) == PRODUCER_FENCED
        assert end(s, tid, pid, epoch, True, version=0) == INVALID_PRODUCER_EPOCH
        err = w.parse_error_only(w.roundtrip(s, w.add_offsets_to_txn(9, tid, pid, epoch, "g", version=2)))
        assert err == PRODUCER_FENCED
        markers_written(s, tid)
        pid2, epoch2 = init_ok(s, tid)
        assert (pid2, epoch2) == (pid, epoch + 2)
        assert add_parts(s, tid, pid2, epoch2, {topic_name: [0]}) == {(topic_name, 0): NONE}


def test_list_and_describe_transactions(broker, tid, topic_name):
    create_topic(broker.bootstrap, topic_name, partitions=1)
    with w.connect(broker.port) as s:
        find_txn_coordinator(s, tid)
        pid, epoch = init_ok(s, tid)
        other = tid + "-o"
        find_txn_coordinator(s, other)
        pid_o, epoch_o = init_ok(s, other)
        assert add_parts(s, other, pid_o, epoch_o, {topic_name: [0]}) == {(topic_name, 0): NONE}
        err, unknown, txns = w.parse_list_transactions(w.roundtrip(s, w.list_transactions(12)))
        assert err == NONE and unknown == []
        assert (tid, pid, "Empty") in txns and (other, pid_o, "Ongoing") in txns
        err, unknown, txns = w.parse_list_transactions(w.roundtrip(s, w.list_transactions(13, states=["Ongoing"])))
        assert (other, pid_o, "Ongoing") in txns and all(t[2] == "Ongoing" for t in txns)
        err, unknown, txns = w.parse_list_transactions(w.roundtrip(s, w.list_transactions(14, producer_ids=[pid])))
        assert txns == [(tid, pid, "Empty")]
        err, unknown, txns = w.parse_list_transactions(w.roundtrip(s, w.list_transactions(15, states=["Bogus"])))
        assert (err, unknown, txns) == (NONE, ["Bogus"], [])
        ds = w.parse_describe_transactions(w.roundtrip(s, w.describe_transactions(16, [tid, "missing-" + tid])))
        assert ds[0]["error"] == NONE and ds[0]["state"] == "Empty"
        assert ds[1]["error"] == TRANSACTIONAL_ID_NOT_FOUND


def test_state_survives_a_restart(broker_factory, tid):
    b = broker_factory(BROKER_OVERRIDES)
    topic_name = "restart-" + tid
    create_topic(b.bootstrap, topic_name, partitions=2)
    with w.connect(b.port) as s:
        find_txn_coordinator(s, tid)
        pid, epoch = init_ok(s, tid)
        assert add_parts(s, tid, pid, epoch, {topic_name: [0, 1]}) == {(topic_name, 0): NONE, (topic_name, 1): NONE}
    b.restart()
    with w.connect(b.port) as s:
        deadline = time.time() + WAIT_S
        d = describe(s, tid)
        while d["error"] != NONE and time.time() < deadline:  # loading in the background
            time.sleep(0.05)
            d = describe(s, tid)
        assert (d["error"], d["state"], d["producer_id"], d["producer_epoch"]) == (NONE, "Ongoing", pid, epoch)
        assert d["partitions"] == {topic_name: [0, 1]}
        # The producer carries on: its transaction can be ended.
        assert end(s, tid, pid, epoch, False) == NONE


def spool_txn(*args):
    return subprocess.run([spool_bin(), "txn", *args], capture_output=True, text=True, timeout=60)


def test_cli_txn_list_and_describe(broker, tid, topic_name):
    create_topic(broker.bootstrap, topic_name, partitions=2)
    with w.connect(broker.port) as s:
        find_txn_coordinator(s, tid)
        pid, epoch = init_ok(s, tid)
        assert add_parts(s, tid, pid, epoch, {topic_name: [1]}) == {(topic_name, 1): NONE}
    r = spool_txn("list", "--bootstrap-server", broker.bootstrap, "-o", "json", "--state", "Ongoing")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert {"transactional_id": tid, "producer_id": pid, "state": "Ongoing"} in rows
    assert all(row["state"] == "Ongoing" for row in rows)
    r = spool_txn("list", "--bootstrap-server", broker.bootstrap)
    assert r.returncode == 0 and tid in r.stdout and "TRANSACTIONAL_ID" in r.stdout
    r = spool_txn("describe", tid, "--bootstrap-server", broker.bootstrap, "-o", "json")
    assert r.returncode == 0, r.stderr
    (d,) = json.loads(r.stdout)
    assert (d["state"], d["producer_id"], d["producer_epoch"]) == ("Ongoing", pid, epoch)
    assert d["partitions"] == [{"topic": topic_name, "partition": 1}]
    r = spool_txn("describe", "missing-" + tid, "--bootstrap-server", broker.bootstrap)
    assert r.returncode == 1
    assert "TRANSACTIONAL_ID_NOT_FOUND" in r.stderr
    r = spool_txn("describe", "--bootstrap-server", broker.bootstrap)  # no id: usage error
    assert r.returncode == 2
