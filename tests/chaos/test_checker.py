"""Self-tests of the Jepsen-style checker (checker.py) on synthetic
histories: a clean history (with unknown outcomes, a reset and identical
replica logs) passes, and for every verdict a minimal history triggers exactly
that verdict, with the exact offending items, so the checker cannot be hollow.
shared-ack-offset necessarily comes with inconsistent-offsets (values are
unique, so two acks at one offset are two values at it): that test expects both.
"""

import pytest

from checker import ABORTED, FAIL, INFO, KINDS, OK, History, check

P = ("t", 0)
Q = ("t", 1)


def h_of(writes=(), reads=(), replicas=(), drained=True):
    """writes: (producer, value, partition, outcome, offset, start, end)
    reads: (consumer, partition, offset, value) or (consumer, partition, "reset")
    replicas: (replica, partition, hw, records-or-bytes)"""
    h = History(drained=drained)
    for prod, v, p, outcome, off, start, end in writes:
        w = h.invoke(prod, v, p, start)
        h.complete(w, outcome, end, off)
    for r in reads:
        if r[2] == "reset":
            h.reset(r[0], r[1])
        else:
            h.read(*r)
    for rep, p, hw, recs in replicas:
        if isinstance(recs, bytes):
            h.replica(rep, p, hw, data=recs)
        else:
            h.replica(rep, p, hw, records=recs)
    return h


def acked(prod, values, p=P, first=0, t0=0.0):
    """Sequential acked writes: value i acked at first+i, one after another."""
    return [(prod, v, p, OK, first + i, t0 + 2 * i, t0 + 2 * i + 1) for i, v in enumerate(values)]


def reads_of(cons, values, p=P, first=0):
    return [(cons, p, first + i, v) for i, v in enumerate(values)]


def test_clean_history_passes():
    writes = acked("p1", ["a", "b", "c"]) + acked("p2", ["x", "y"], p=Q)
    writes += [("p1", "lost-maybe", P, INFO, None, 10, None),  # unknown, never seen: fine
               ("p2", "z", Q, INFO, None, 10, None),          # unknown, seen: fine
               ("p1", "never", P, FAIL, None, 11, 12)]        # failed, never seen: fine
    reads = reads_of("c1", ["a", "b"]) + [("c1", P, "reset")] + reads_of("c1", ["a", "b", "c"])
    reads += reads_of("c2", ["x", "y", "z"], p=Q)
    recs = [(0, "a"), (1, "b"), (2, "c")]
    replicas = [(1, P, 3, recs), (2, P, 3, recs + [(3, "above-hw-ignored")]),
                (1, Q, 3, b"\x00\x01log"), (2, Q, 3, b"\x00\x01log")]
    r = check(h_of(writes, reads, replicas))
    assert r.valid, r.describe()
    assert r.stats == {"writes": 8, "ok": 5, "fail": 1, "info": 2, "aborted": 0, "reads": 8,
                       "replica_logs": 4, "drained": True, "client_resends": 0}


def only(h, kind):
    r = check(h)
    assert r.kinds() == {kind}, r.describe()
    return r.anomalies[kind]


def test_lost_write_below_highest_read():
    h = h_of(acked("p", ["a", "b"]), reads_of("c", ["b"], first=1), drained=False)
    assert only(h, "lost-write") == [{"partition": P, "offset": 0, "value": "a", "producer": "p",
                                      "max_read_offset": 1}]


def test_lost_write_unseen_after_drain():
    h = h_of(acked("p", ["a", "b"]), reads_of("c", ["a"]), drained=True)
    assert [x["value"] for x in only(h, "lost-write")] == ["b"]
    # not drained: an acked write above the highest read offset may still come
    assert check(h_of(acked("p", ["a", "b"]), reads_of("c", ["a"]), drained=False)).valid


def test_acked_without_an_offset_must_be_read_once():
    """An "ok" write with no offset (librdkafka's implicit ack) counts for
    lost-write and duplicate, and stays out of the offset-based checks."""
    writes = acked("p", ["a", "b"]) + [("p", "c", P, OK, None, 10, 11)]
    assert check(h_of(writes, reads_of("c", ["a", "b", "c"]))).valid
    assert [x["value"] for x in only(h_of(writes, reads_of("c", ["a", "b"])), "lost-write")] == ["c"]
    # Not drained: it may still come.
    assert check(h_of(writes, reads_of("c", ["a", "b"]), drained=False)).valid
    assert only(h_of(writes, reads_of("c", ["a", "b", "c", "c"])), "duplicate")[0]["value"] == "c"


def test_duplicate():
    h = h_of(acked("p", ["a"]), [("c", P, 0, "a"), ("c", P, 1, "a")])
    assert only(h, "duplicate") == [{"partition": P, "value": "a",
                                     "offsets": {0: ["ack:p", "read:c"], 1: ["read:c"]}}]


def batch(base, count, pid, epoch):
    """Raw bytes of one record batch v2 as the checker reads it (header only,
    records left empty): offsets base..base+count-1 by producer pid/epoch."""
    import struct
    return struct.pack(">qiibIhiqqqhii", base, 49, 0, 2, 0, 0, count - 1, 0, 0, pid, epoch, base, count)


def test_client_resend_under_a_newer_epoch_is_not_a_duplicate():
    # "a" written at 0 under epoch 0 (never acked), re-sent by the client
    # under epoch 1 at 1 and acked there: librdkafka#4953, not the broker.
    writes = [("p", "a", P, OK, 1, 0, 1)]
    reads = [("c", P, 0, "a"), ("c", P, 1, "a")]
    log = batch(0, 1, 7, 0) + batch(1, 1, 7, 1)
    r = check(h_of(writes, reads, [(1, P, 2, log)]))
    assert r.valid, r.describe()
    assert r.stats["client_resends"] == 1
    assert r.stats["client_resend_examples"] == [{"partition": P, "value": "a",
                                                  "offsets": {0: ["read:c"], 1: ["ack:p", "read:c"]}}]
    # Same epoch: the broker should have answered the retry from its producer state.
    same = batch(0, 1, 7, 0) + batch(1, 1, 7, 0)
    assert only(h_of(writes, reads, [(1, P, 2, same)]), "duplicate")[0]["value"] == "a"
    # The earlier copy was acknowledged: the client had no reason to re-send it.
    early = [("p", "a", P, OK, 0, 0, 1)]
    assert only(h_of(early, reads, [(1, P, 2, log)]), "duplicate")[0]["value"] == "a"
    # Two producer ids, or no replica bytes to tell: a duplicate.
    two = batch(0, 1, 7, 0) + batch(1, 1, 8, 1)
    assert only(h_of(writes, reads, [(1, P, 2, two)]), "duplicate")[0]["value"] == "a"
    assert only(h_of(writes, reads), "duplicate")[0]["value"] == "a"


def test_inconsistent_offsets_across_consumers():
    writes = acked("p", ["a", "b"]) + [("p", "u", P, INFO, None, 5, None)]
    reads = reads_of("c1", ["a", "b"]) + reads_of("c2", ["a", "u"])
    assert only(h_of(writes, reads), "inconsistent-offsets") == [
        {"partition": P, "offset": 1, "values": {"b": ["ack:p", "read:c1"], "u": ["read:c2"]}}]


def test_g1a_failed_write_visible():
    writes = [("p", "a", P, FAIL, None, 0, 1)]
    assert only(h_of(writes, [("c", P, 0, "a")]), "G1a") == [
        {"value": "a", "producer": "p", "error": None, "seen": [(P, 0, "read:c")]}]
    # visible only in a replica log: still G1a
    assert only(h_of(writes, replicas=[(2, P, 1, [(0, "a")])]), "G1a")[0]["seen"] == [(P, 0, "replica:2")]


def txn_history(reads):
    """t: a committed transaction (a at 0, c at 3) around an aborted one (b at
    1, marker at 2) and one whose end is unknown (u at 4); a replica log
    holds them all."""
    h = History(drained=True)
    for v, outcome, off in (("a", OK, 0), ("b", ABORTED, 1), ("c", OK, 3), ("u", INFO, 4)):
        w = h.invoke("t", v, P, off, txn=True)
        h.complete(w, outcome, off + 0.5, off)
    for r in reads:
        h.read(*r)
    h.replica(1, P, 5, records=[(0, "a"), (1, "b"), (3, "c"), (4, "u")])
    return h


def test_g1a_aborted_read_by_read_committed():
    # read_committed skips the aborted b and the unknown u: valid; read_uncommitted sees b: valid
    assert check(txn_history([("rc", P, 0, "a"), ("rc", P, 3, "c")])).valid
    assert check(txn_history([("ru", P, 0, "a", False), ("ru", P, 1, "b", False), ("ru", P, 3, "c", False),
                              ("ru", P, 4, "u", False)])).valid
    # read_committed reads b: an aborted read
    assert only(txn_history([("rc", P, 0, "a"), ("rc", P, 1, "b"), ("rc", P, 3, "c")]), "G1a") == [
        {"value": "b", "producer": "t", "aborted": True, "seen": [(P, 1, "read:rc")]}]
    # but a read_uncommitted consumer jumping over b skips a record
    assert only(txn_history([("ru", P, 0, "a", False), ("ru", P, 3, "c", False)]), "poll-skip")[0]["skipped"] \
        == [1]
    with pytest.raises(ValueError):  # only a transactional write can be aborted
        h = History()
        h.complete(h.invoke("p", "x", P, 0), ABORTED, 1)


def test_unknown_value():
    assert only(h_of([], [("c", P, 0, "ghost")]), "unknown-value") == [
        {"value": "ghost", "seen": [(P, 0, "read:c")]}]


def test_nonmonotonic_send_reordering():
    # b sent after a (pipelined: b starts before a's ack) but acked below it
    writes = [("p", "a", P, OK, 1, 0, 3), ("p", "b", P, OK, 0, 1, 2)]
    assert only(h_of(writes, reads_of("c", ["b", "a"])), "nonmonotonic-send") == [
        {"producer": "p", "partition": P, "earlier": (1, "a", 1), "later": (2, "b", 0)}]


def test_nonmonotonic_poll():
    reads = reads_of("c", ["a", "b"]) + [("c", P, 0, "a")]
    assert only(h_of(acked("p", ["a", "b"]), reads), "nonmonotonic-poll") == [
        {"consumer": "c", "partition": P, "from": (1, "b"), "to": (0, "a")}]
    # the same rewind after a reset is legitimate
    ok = reads_of("c", ["a", "b"]) + [("c", P, "reset"), ("c", P, 0, "a")]
    assert check(h_of(acked("p", ["a", "b"]), ok)).valid


def test_poll_skip():
    reads = [("c1", P, 0, "a"), ("c1", P, 2, "c")] + reads_of("c2", ["a", "b", "c"])
    assert only(h_of(acked("p", ["a", "b", "c"]), reads), "poll-skip") == [
        {"consumer": "c1", "partition": P, "from": (0, "a"), "to": (2, "c"), "skipped": [1]}]


def test_replicas_diverge_missing_record():
    recs = [(0, "a"), (1, "b")]
    h = h_of(acked("p", ["a", "b"]), reads_of("c", ["a", "b"]),
             [(1, P, 2, recs), (2, P, 2, recs), (3, P, 1, recs[:1])])
    assert only(h, "replicas-diverge") == [{"partition": P, "hw": 2, "first_difference": 1,
                                            "at_first_difference": {1: "b", 2: "b", 3: None},
                                            "records_below_hw": {1: 2, 2: 2, 3: 1}}]


def test_replicas_diverge_bytes():
    h = h_of(replicas=[(1, P, 2, b"abcd"), (2, P, 2, b"abXd"), (3, P, 2, b"abcd")])
    assert only(h, "replicas-diverge") == [{"partition": P, "hw": 2, "bytes": {1: 4, 2: 4, 3: 4},
                                            "first_byte_difference_vs": {1: {2: 2, 3: 4}}}]


def test_stale_offset_real_time_order():
    # a acked at 5 (done at t=1); b, started at t=2 by another producer, got 3
    writes = [("p1", "a", P, OK, 5, 0, 1), ("p2", "b", P, OK, 3, 2, 3)]
    h = h_of(writes, [("c", P, 3, "b"), ("c", P, 5, "a")])
    assert only(h, "stale-offset") == [{"partition": P, "value": "b", "offset": 3, "started": 2,
                                        "acked_before": ("a", 5, 1)}]
    # concurrent (b started before a's ack): any order is fine
    writes = [("p1", "a", P, OK, 5, 0, 3), ("p2", "b", P, OK, 3, 2, 4)]
    assert check(h_of(writes, [("c", P, 3, "b"), ("c", P, 5, "a")])).valid


def test_shared_ack_offset():
    writes = [("p1", "a", P, OK, 0, 0, 1), ("p2", "b", P, OK, 0, 0, 1)]
    r = check(h_of(writes, drained=False))
    assert r.kinds() == {"shared-ack-offset", "inconsistent-offsets"}, r.describe()
    assert r.anomalies["shared-ack-offset"] == [{"partition": P, "offset": 0, "values": ["a", "b"]}]


def test_every_kind_has_a_test():
    names = {n for n in globals() if n.startswith("test_")}
    for k in KINDS:
        assert any(k.replace("-", "_").lower() in n.lower() for n in names), k


def test_json_round_trip_keeps_the_verdicts():
    writes = acked("p", ["a", "b"]) + [("p", "f", P, FAIL, None, 9, 10)]
    reads = [("c", P, 0, "a"), ("c", P, 2, "f"), ("c", P, "reset")]
    h = h_of(writes, reads, [(1, P, 1, [(0, "a")]), (2, P, 1, b"\x01")])
    back = History.from_json(h.to_json())
    assert back.to_json() == h.to_json()
    assert check(back).anomalies == check(h).anomalies
    assert check(h).kinds() == {"G1a", "lost-write"}


def test_complete_rejects_bad_outcomes():
    h = History()
    w = h.invoke("p", "a", P, 0)
    with pytest.raises(ValueError):
        h.complete(w, "maybe", 1)
    with pytest.raises(ValueError):
        h.replica(1, P, 1)
