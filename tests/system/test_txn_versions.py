"""The transaction APIs at Kafka 4.4's newest versions, by raw frames (issue 12).

Checks exact answers against Spool and, with SPOOL_TEST_PEER=kafka, against
Apache Kafka 4.4 (single node, transaction.version as the peer formats it):
the advertised ranges, a whole transaction at the newest client versions
(InitProducerId v5, AddPartitionsToTxn v3, AddOffsetsToTxn v4, TxnOffsetCommit
v4, EndTxn v4), the broker-side AddPartitionsToTxn v4/v5 (batched, VerifyOnly,
TRANSACTION_ABORTABLE), TxnOffsetCommit verification (v3 INVALID_TXN_STATE,
v4 TRANSACTION_ABORTABLE, v5 implicit add, v6 by topic id with
UNKNOWN_TOPIC_ID / GROUP_ID_NOT_FOUND), ListTransactions v1 DurationFilter and
v2 TransactionalIdPattern (whole-id match, INVALID_REGULAR_EXPRESSION),
WriteTxnMarkers v2 (a transaction-version-2 marker must raise the epoch; v0
is gone) and InitProducerId v6 (unstable in Kafka 4.4: not served).
Documented difference: EndTxn v5 (KIP-890 part 2) is served by Kafka (epoch
bumped, new epoch returned) and not by Spool, which closes the connection.
"""

import os
import struct
import time

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

import data_wire as dw
import kafka_wire as w
from harness import which_peer

NONE = 0
UNKNOWN_TOPIC_OR_PARTITION = 3
COORDINATOR_LOAD_IN_PROGRESS = 14
COORDINATOR_NOT_AVAILABLE = 15
NOT_COORDINATOR = 16
INVALID_PRODUCER_EPOCH = 47
INVALID_TXN_STATE = 48
INVALID_PRODUCER_ID_MAPPING = 49
CONCURRENT_TRANSACTIONS = 51
OPERATION_NOT_ATTEMPTED = 55
GROUP_ID_NOT_FOUND = 69
PRODUCER_FENCED = 90
UNKNOWN_TOPIC_ID = 100
TRANSACTION_ABORTABLE = 120
INVALID_REGULAR_EXPRESSION = 128
RETRIABLE = (COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, CONCURRENT_TRANSACTIONS)

OFFSETS_PARTITIONS = 3
BROKER_OVERRIDES = {"transaction.state.log.num.partitions": "3", "offsets.topic.num.partitions": str(OFFSETS_PARTITIONS),
                    "group.initial.rebalance.delay.ms": "0"}
WAIT_S = 60

# Kafka 4.4's advertised ranges for these APIs (a default 4.4 broker).
KAFKA_RANGES = {22: (0, 5), 24: (0, 5), 25: (0, 4), 26: (0, 5), 27: (1, 2), 28: (0, 6), 61: (0, 0), 65: (0, 0),
                66: (0, 2)}
# Spool: the same, except EndTxn v5 (transaction version 2, a later issue).
SPOOL_RANGES = {**KAFKA_RANGES, 26: (0, 4)}

RUN = os.urandom(3).hex()
print(f"run id {RUN}")


# --- encoders / decoders (flexible versions) ---------------------------------

cs = w.compact_string
ca = w.compact_array
TAGS = b"\x00"


def flex(api, version, corr, body):
    return w.request_flexible(api, version, corr, body + TAGS)


def topics_enc(topics):
    return ca(topics, lambda t: cs(t[0]) + ca(t[1], lambda p: struct.pack(">i", p)) + TAGS)


def add_partitions_v3(corr, tid, pid, epoch, topics):
    return flex(24, 3, corr, cs(tid) + struct.pack(">qh", pid, epoch) + topics_enc(topics))


def add_partitions_batched(corr, version, txns):
    """txns: [(tid, pid, epoch, verify_only, [(topic, [partitions])])]"""
    def txn(t):
        tid, pid, epoch, verify, topics = t
        return cs(tid) + struct.pack(">qh?", pid, epoch, verify) + topics_enc(topics) + TAGS
    return flex(24, version, corr, ca(txns, txn))


def read_topic_results(r):
    out = {}
    for _ in range(r.compact_len()):
        name = r.compact_string()
        for _ in range(r.compact_len()):
            idx, err = r.take(">ih")
            r.tags()
            out[(name, idx)] = err
        r.tags()
    return out


def parse_add_partitions(frame, version):
    r = w.FlexReader(frame)
    r.take(">i")
    r.tags()
    r.take(">i")  # throttle
    if version < 4:
        out = read_topic_results(r)
    else:
        top = r.take(">h")
        out = {"error": top}
        for _ in range(r.compact_len()):
            tid = r.compact_string()
            out[tid] = read_topic_results(r)
            r.tags()
    r.tags()
    assert r.pos == len(frame), "trailing bytes in AddPartitionsToTxn response"
    return out


def add_offsets_v4(corr, tid, pid, epoch, group):
    return flex(25, 4, corr, cs(tid) + struct.pack(">qh", pid, epoch) + cs(group))


def end_txn(corr, version, tid, pid, epoch, commit):
    return flex(26, version, corr, cs(tid) + struct.pack(">qh?", pid, epoch, commit))


def parse_error_body(frame, extra_fmt=None):
    """throttle + error [+ extra] + tags -> error or (error, *extra)."""
    r = w.FlexReader(frame)
    r.take(">i")
    r.tags()
    r.take(">i")
    err = r.take(">h")
    extra = r.take(extra_fmt) if extra_fmt else None
    r.tags()
    assert r.pos == len(frame), "trailing bytes"
    return err if extra_fmt is None else (err, *extra)


def txn_offset_commit(corr, version, tid, group, pid, epoch, topics, generation=-1, member=""):
    """topics: [(name_or_topic_id_bytes, [(partition, offset)])]"""
    def topic(t):
        key, parts = t
        head = key if version >= 6 else cs(key)
        return head + ca(parts, lambda p: struct.pack(">iqi", p[0], p[1], -1) + cs("m") + TAGS) + TAGS
    body = cs(tid) + cs(group) + struct.pack(">qhi", pid, epoch, generation) + cs(member) + cs(None)
    return flex(28, version, corr, body + ca(topics, topic))


def parse_txn_offset_commit(frame, version):
    r = w.FlexReader(frame)
    r.take(">i")
    r.tags()
    r.take(">i")
    out = []
    for _ in range(r.compact_len()):
        if version >= 6:
            key = bytes(r.data[r.pos:r.pos + 16])
            r.pos += 16
        else:
            key = r.compact_string()
        for _ in range(r.compact_len()):
            idx, err = r.take(">ih")
            r.tags()
            out.append((key, idx, err))
        r.tags()
    r.tags()
    assert r.pos == len(frame), "trailing bytes in TxnOffsetCommit response"
    return out


def list_transactions(corr, version, states=(), pids=(), duration=-1, pattern=None):
    body = ca(list(states), cs) + ca(list(pids), lambda p: struct.pack(">q", p))
    if version >= 1:
        body += struct.pack(">q", duration)
    if version >= 2:
        body += cs(pattern)
    return flex(66, version, corr, body)


def parse_list_transactions(frame):
    r = w.FlexReader(frame)
    r.take(">i")
    r.tags()
    r.take(">i")
    err = r.take(">h")
    unknown = [r.compact_string() for _ in range(r.compact_len())]
    txns = []
    for _ in range(r.compact_len()):
        tid = r.compact_string()
        pid = r.take(">q")
        state = r.compact_string()
        r.tags()
        txns.append((tid, pid, state))
    r.tags()
    assert r.pos == len(frame), "trailing bytes in ListTransactions response"
    return err, unknown, sorted(txns)


def write_txn_markers_v2(corr, pid, epoch, commit, topic, partition, txn_version):
    marker = (struct.pack(">qh?", pid, epoch, commit) + topics_enc([(topic, [partition])])
              + struct.pack(">ib", 0, txn_version) + TAGS)
    return flex(27, 2, corr, ca([marker], lambda m: m))


def produce_v3_txn(corr, tid, topic, partition, records):
    body = w.string(tid) + struct.pack(">hi", -1, 10000)
    body += struct.pack(">i", 1) + w.string(topic)
    body += struct.pack(">i", 1) + struct.pack(">i", partition)
    body += struct.pack(">i", len(records)) + records
    return w.request(0, 3, corr, body)


# --- flows ----------------------------------------------------------------------

def retry(fn, ok=lambda e: e not in RETRIABLE, what="request"):
    deadline = time.time() + WAIT_S
    while True:
        out = fn()
        err = out[0] if isinstance(out, tuple) else out
        if ok(err) or time.time() > deadline:
            return out
        time.sleep(0.1)


def coordinator(s, key, key_type):
    def once():
        r = w.parse_find_coordinator(w.roundtrip(s, w.find_coordinator(1, key, key_type=key_type)))
        return r["error"]
    assert retry(once) == NONE


def init_v5(s, tid):
    coordinator(s, tid, 1)

    def once():
        _, err, pid, epoch = w.parse_init_producer_id(w.roundtrip(s, w.init_producer_id(2, 5, tid, 60000)), 5)
        return err, pid, epoch
    err, pid, epoch = retry(once)
    assert err == NONE and pid >= 0 and epoch >= 0, (err, pid, epoch)
    return pid, epoch


def describe(s, tid):
    (d,) = w.parse_describe_transactions(w.roundtrip(s, w.describe_transactions(8, [tid])))
    d["partitions"] = sorted((t, p) for t, ps in d["partitions"].items() for p in ps)
    return d


def topic_id(s, topic):
    """The topic's id through Metadata v12."""
    err, tid, _parts = dw.parse_metadata_v12(w.roundtrip(s, dw.metadata_v12(15, [topic])))[topic]
    assert err == NONE
    return tid


def wait_state(s, tid, state):
    deadline = time.time() + WAIT_S
    d = describe(s, tid)
    while d["state"] != state and time.time() < deadline:
        time.sleep(0.05)
        d = describe(s, tid)
    assert d["state"] == state, d
    return d


def create_topic(bootstrap, name, partitions=2):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, partitions, 1)], operation_timeout=30)[name].result(timeout=30)
    # Visible in metadata before the test goes on (Kafka propagates it).
    deadline = time.time() + WAIT_S
    while time.time() < deadline:
        md = admin.list_topics(topic=name, timeout=10)
        if name in md.topics and md.topics[name].error is None and len(md.topics[name].partitions) == partitions:
            return
        time.sleep(0.1)
    raise AssertionError(f"topic {name} not visible")


def offsets_partition(group):
    return w.offsets_partition_for(group, OFFSETS_PARTITIONS)


def names(request, *suffixes):
    """Per-test names. Group names ("g") get a non-negative Java hash: Kafka
    maps with Math.abs, Spool with & 0x7fffffff (reported), which agree only
    then."""
    base = f"tv-{RUN}-{request.node.name[5:25]}"
    out = []
    for x in suffixes:
        name = f"{base}-{x}"
        while x == "g" and w.java_string_hash(name) < 0:
            name += "x"
        out.append(name)
    return out


# --- tests ------------------------------------------------------------------------

def test_advertised_ranges(broker):
    with w.connect(broker.port) as s:
        _, err, apis = w.parse_api_versions_v0(w.roundtrip(s, w.request(18, 0, 1)))
    assert err == NONE
    want = KAFKA_RANGES if which_peer() == "kafka" else SPOOL_RANGES
    assert {k: apis.get(k) for k in want} == want


def test_unserved_versions_close_the_connection(broker, request):
    (tid,) = names(request, "x")
    frames = {
        # InitProducerId v6 (KIP-939) is unstable in Kafka 4.4: not served, even
        # with Enable2Pc=false.
        "InitProducerId v6": flex(22, 6, 3, cs(tid) + struct.pack(">iqh??", 60000, -1, -1, True, False)),
        # WriteTxnMarkers v0 was removed in Kafka 4.0.
        "WriteTxnMarkers v0": w.request(27, 0, 4, struct.pack(">i", 0)),
    }
    for what, frame in frames.items():
        with w.connect(broker.port) as s:
            s.sendall(frame)
            assert w.closed_by_peer(s), what


def test_transaction_at_newest_client_versions(broker, request):
    tid, topic, group = names(request, "tx", "t", "g")
    create_topic(broker.bootstrap, topic)
    with w.connect(broker.port, timeout=30) as s:
        coordinator(s, group, 0)
        pid, epoch = init_v5(s, tid)
        r = parse_add_partitions(w.roundtrip(s, add_partitions_v3(5, tid, pid, epoch, [(topic, [0, 1])])), 3)
        assert r == {(topic, 0): NONE, (topic, 1): NONE}
        assert parse_error_body(w.roundtrip(s, add_offsets_v4(6, tid, pid, epoch, group))) == NONE
        parts = retry(lambda: [e for _, _, e in parse_txn_offset_commit(
            w.roundtrip(s, txn_offset_commit(7, 4, tid, group, pid, epoch, [(topic, [(0, 42)])])), 4)][0])
        assert parts == NONE
        d = describe(s, tid)
        assert d["state"] == "Ongoing" and d["producer_id"] == pid and d["producer_epoch"] == epoch
        assert d["partitions"] == sorted([(topic, 0), (topic, 1), ("__consumer_offsets", offsets_partition(group))]), d
        assert parse_error_body(w.roundtrip(s, end_txn(9, 4, tid, pid, epoch, True))) == NONE
        wait_state(s, tid, "CompleteCommit")
        # A retried commit of a finished transaction is fine; an abort is not.
        assert parse_error_body(w.roundtrip(s, end_txn(10, 4, tid, pid, epoch, True))) == NONE
        assert parse_error_body(w.roundtrip(s, end_txn(11, 4, tid, pid, epoch, False))) == INVALID_TXN_STATE


def test_end_txn_v5(broker, request):
    """Kafka serves EndTxn v5 as a transaction-version-2 client whatever the
    cluster's transaction.version: the epoch is bumped and returned. Spool
    does not serve v5 (documented difference)."""
    tid, topic = names(request, "tx", "t")
    create_topic(broker.bootstrap, topic)
    with w.connect(broker.port, timeout=30) as s:
        pid, epoch = init_v5(s, tid)
        r = parse_add_partitions(w.roundtrip(s, add_partitions_v3(5, tid, pid, epoch, [(topic, [0])])), 3)
        assert r == {(topic, 0): NONE}
        s.sendall(end_txn(6, 5, tid, pid, epoch, True))
        if which_peer() != "kafka":
            assert w.closed_by_peer(s)
            return
        err, new_pid, new_epoch = parse_error_body(w.read_frame(s), ">qh")
        assert (err, new_pid, new_epoch) == (NONE, pid, epoch + 1)


def test_add_partitions_v4_v5_batched_and_verify_only(broker, request):
    tid, other, topic = names(request, "a", "b", "t")
    create_topic(broker.bootstrap, topic)
    with w.connect(broker.port, timeout=30) as s:
        pid, epoch = init_v5(s, tid)
        r = parse_add_partitions(w.roundtrip(s, add_partitions_v3(5, tid, pid, epoch, [(topic, [0])])), 3)
        assert r == {(topic, 0): NONE}
        for v in (4, 5):
            r = parse_add_partitions(w.roundtrip(s, add_partitions_batched(6, v, [
                (tid, pid, epoch, True, [(topic, [0, 1])]),
                (other, pid, epoch, True, [(topic, [0])]),
            ])), v)
            assert r == {"error": NONE,
                         tid: {(topic, 0): NONE, (topic, 1): TRANSACTION_ABORTABLE},
                         other: {(topic, 0): INVALID_PRODUCER_ID_MAPPING}}, (v, r)
            r = parse_add_partitions(w.roundtrip(s, add_partitions_batched(7, v, [
                (tid, pid, epoch + 1, True, [(topic, [0])]),
                (tid + "-u", pid, epoch, True, [(topic, [0]), ("no-such-" + topic, [0])]),
            ])), v)
            # A duplicate-free batch: the unknown topic refuses its whole transaction.
            assert r == {"error": NONE, tid: {(topic, 0): PRODUCER_FENCED},
                         tid + "-u": {(topic, 0): OPERATION_NOT_ATTEMPTED,
                                      ("no-such-" + topic, 0): UNKNOWN_TOPIC_OR_PARTITION}}, (v, r)
        # Without VerifyOnly (v4+) the partition is added.
        r = parse_add_partitions(w.roundtrip(s, add_partitions_batched(8, 5, [(tid, pid, epoch, False, [(topic, [1])])])), 5)
        assert r == {"error": NONE, tid: {(topic, 1): NONE}}
        assert describe(s, tid)["partitions"] == [(topic, 0), (topic, 1)]
        assert parse_error_body(w.roundtrip(s, end_txn(9, 4, tid, pid, epoch, False))) == NONE
        wait_state(s, tid, "CompleteAbort")
        # Preparing or finished: nothing is in an open transaction.
        r = parse_add_partitions(w.roundtrip(s, add_partitions_batched(10, 5, [(tid, pid, epoch, True, [(topic, [0])])])), 5)
        assert r == {"error": NONE, tid: {(topic, 0): TRANSACTION_ABORTABLE}}


def test_txn_offset_commit_verification_by_version(broker, request):
    tid, topic, group = names(request, "tx", "t", "g")
    create_topic(broker.bootstrap, topic)
    with w.connect(broker.port, timeout=30) as s:
        coordinator(s, group, 0)
        pid, epoch = init_v5(s, tid)

        def commit(v, topics, **kw):
            return retry(lambda: [e for _, _, e in parse_txn_offset_commit(
                w.roundtrip(s, txn_offset_commit(12, v, tid, group, pid, epoch, topics, **kw)), v)][0])
        # The offsets partition is not in the transaction (no AddOffsetsToTxn).
        assert commit(3, [(topic, [(0, 1)])]) == INVALID_TXN_STATE
        assert commit(4, [(topic, [(0, 1)])]) == TRANSACTION_ABORTABLE
        # A stale epoch is fenced (as INVALID_PRODUCER_EPOCH), an unknown id unmapped.
        parts = parse_txn_offset_commit(w.roundtrip(s, txn_offset_commit(13, 4, tid, group, pid, epoch + 1,
                                                                         [(topic, [(0, 1)])])), 4)
        assert parts == [(topic, 0, INVALID_PRODUCER_EPOCH)]
        parts = parse_txn_offset_commit(w.roundtrip(s, txn_offset_commit(14, 4, tid + "-u", group, pid, epoch,
                                                                         [(topic, [(0, 1)])])), 4)
        assert parts == [(topic, 0, INVALID_PRODUCER_ID_MAPPING)]
        # v5: the commit adds the group's offsets partition itself.
        assert commit(5, [(topic, [(0, 7)])]) == NONE
        assert ("__consumer_offsets", offsets_partition(group)) in describe(s, tid)["partitions"]
        assert commit(4, [(topic, [(1, 8)])]) == NONE
        # v6: topics by id.
        tid_bytes = topic_id(s, topic)
        assert tid_bytes != bytes(16)
        unknown_id = os.urandom(16)
        parts = parse_txn_offset_commit(w.roundtrip(s, txn_offset_commit(16, 6, tid, group, pid, epoch, [
            (tid_bytes, [(0, 9), (9, 1)]), (unknown_id, [(0, 1)])])), 6)
        # Kafka lists refused partitions before accepted ones; the set is what counts.
        assert sorted(parts) == sorted([(tid_bytes, 0, NONE), (tid_bytes, 9, UNKNOWN_TOPIC_OR_PARTITION),
                                        (unknown_id, 0, UNKNOWN_TOPIC_ID)])
        # A generation for a group that does not exist: GROUP_ID_NOT_FOUND in v6,
        # ILLEGAL_GENERATION (22) before.
        missing = group + "-none"
        for v, want in ((6, GROUP_ID_NOT_FOUND), (5, 22)):
            parts = parse_txn_offset_commit(w.roundtrip(s, txn_offset_commit(
                17, v, tid, missing, pid, epoch, [(tid_bytes if v >= 6 else topic, [(0, 1)])], generation=1)), v)
            assert [e for _, _, e in parts] == [want], (v, parts)
        assert parse_error_body(w.roundtrip(s, end_txn(18, 4, tid, pid, epoch, False))) == NONE


def test_list_transactions_filters(broker, request):
    a, b, topic = names(request, "a", "b", "t")
    create_topic(broker.bootstrap, topic)
    prefix = a.rsplit("-", 1)[0]
    with w.connect(broker.port, timeout=30) as s:
        pa, ea = init_v5(s, a)
        pb, eb = init_v5(s, b)
        assert parse_add_partitions(w.roundtrip(s, add_partitions_v3(5, a, pa, ea, [(topic, [0])])), 3) == \
            {(topic, 0): NONE}
        time.sleep(0.05)  # a's transaction has run for more than 0 ms

        def listed(version, **kw):
            err, unknown, txns = parse_list_transactions(w.roundtrip(s, list_transactions(20, version, **kw)))
            return err, unknown, [t for t in txns if t[0] in (a, b)]
        both = [(a, pa, "Ongoing"), (b, pb, "Empty")]
        assert listed(0) == (NONE, [], both)
        assert listed(0, states=["Ongoing", "Nope"]) == (NONE, ["Nope"], [(a, pa, "Ongoing")])
        # v1: DurationFilter (< 0: all; an Empty id never started: always older).
        assert listed(1, duration=-1) == (NONE, [], both)
        assert listed(1, duration=0) == (NONE, [], both)
        assert listed(1, duration=3_600_000) == (NONE, [], [(b, pb, "Empty")])
        # v2: the pattern must match the whole id; null or empty: everything.
        assert listed(2, pattern=None) == (NONE, [], both)
        assert listed(2, pattern="") == (NONE, [], both)
        assert listed(2, pattern=prefix) == (NONE, [], [])
        assert listed(2, pattern=prefix + "-a") == (NONE, [], [(a, pa, "Ongoing")])
        assert listed(2, pattern=prefix + "-[ab]", states=["Empty"]) == (NONE, [], [(b, pb, "Empty")])
        assert listed(2, pattern=".*-b", pids=[pa]) == (NONE, [], [])
        # Not a regular expression: the error and nothing else.
        assert parse_list_transactions(w.roundtrip(s, list_transactions(21, 2, states=["Nope"], pattern="tv-("))) == \
            (INVALID_REGULAR_EXPRESSION, [], [])
        assert parse_error_body(w.roundtrip(s, end_txn(22, 4, a, pa, ea, False))) == NONE


def test_write_txn_markers_v2_needs_a_higher_epoch(broker, request):
    tid, topic = names(request, "tx", "t")
    create_topic(broker.bootstrap, topic)
    with w.connect(broker.port, timeout=30) as s:
        pid, epoch = init_v5(s, tid)
        assert parse_add_partitions(w.roundtrip(s, add_partitions_v3(5, tid, pid, epoch, [(topic, [0])])), 3) == \
            {(topic, 0): NONE}
        batch = w.transactional_batch(pid, epoch, 0, [b"v"])
        _, res = w.parse_produce_v3(w.roundtrip(s, produce_v3_txn(6, tid, topic, 0, batch)))
        assert res[(topic, 0)][0] == NONE, res
        # A transaction-version-2 marker at the open transaction's own epoch is refused.
        _, res = w.parse_write_txn_markers_v1(w.roundtrip(s, write_txn_markers_v2(7, pid, epoch, True, topic, 0, 2)))
        assert res == {(pid, topic, 0): INVALID_PRODUCER_EPOCH}, res
        _, res = w.parse_write_txn_markers_v1(w.roundtrip(s, write_txn_markers_v2(8, pid, epoch, True,
                                                                                   "no-such-" + topic, 0, 0)))
        assert res == {(pid, "no-such-" + topic, 0): UNKNOWN_TOPIC_OR_PARTITION}, res
        # The coordinator then ends it normally (its markers are version 0/1).
        assert parse_error_body(w.roundtrip(s, end_txn(9, 4, tid, pid, epoch, True))) == NONE
        wait_state(s, tid, "CompleteCommit")
