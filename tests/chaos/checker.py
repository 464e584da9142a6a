"""A Jepsen-style safety checker for Kafka histories (issue 13 system tests),
in the spirit of jepsen/src/jepsen/tests/kafka.clj and Redpanda's
list_offsets consistency checker (CLUSTER-NOTES section 5). Our own code.

Input: a `History`
  writes    every produce attempt: producer, value (unique per history),
            partition (any hashable, e.g. ("t", 0)), outcome "ok" (with the
            acked offset, or None when the client knows the write is
            persisted but not where: librdkafka's implicit acknowledgement of
            a batch whose request timed out but a later one of the same
            idempotent producer succeeded; such writes take part only in the
            checks that need no offset), "fail" (definitely not written) or
            "info" (unknown: timed out, connection lost), start/end times
            (time.monotonic) and the producer's send sequence number.
            A transactional write (txn=True) is "ok" once its transaction
            committed, "aborted" once it was aborted (in the log, never
            visible to read_committed), "info" when the end is unknown.
  reads     every consumed record, per consumer in consumption order:
            (consumer, partition, offset, value); a `reset` event marks a
            seek/reassignment after which the consumer may legitimately go back.
            committed=False marks a read_uncommitted consumer's reads.
  replicas  each replica's log of a partition up to the high watermark `hw`,
            as records [(offset, value), ...] or as raw bytes.
  drained   True when the reads include a final read of every partition to
            its end after the faults healed (then every acked write must be in
            them).

Verdicts (`check(history).anomalies[kind]` = list of the exact offending items):
  lost-write            an acked write never read: its offset is below the
                        highest offset read in its partition, or any acked
                        write once the history is drained (Jepsen's
                        :lost-write and :unseen; Redpanda: "every acked
                        offset is re-read").
  duplicate             one value at more than one offset (acks, reads and
                        replica logs together, as Jepsen). Not counted: a
                        client re-send (below).
  inconsistent-offsets  one offset with more than one value (across acks,
                        consumers and replicas).
  G1a                   a definitely failed write is visible (read or in a
                        replica log), or a write of an aborted transaction
                        was read by a read_committed consumer (aborted read).
  unknown-value         a value read or in a replica log that no producer ever
                        tried to write (Redpanda's "read unknown message").
  nonmonotonic-send     one producer's acked writes to one partition got
                        offsets out of their send order (reordering).
  nonmonotonic-poll     one consumer read a partition at an offset not above
                        the previous one, with no reset between (Jepsen;
                        Redpanda's "offsets strictly increase" on re-read).
  poll-skip             one consumer jumped over an offset that holds a record
                        (seen by another consumer or in a replica log) between
                        two consecutive reads of a partition. A
                        read_committed consumer may skip the offsets of
                        transactional writes not known to be committed.
  replicas-diverge      the replicas of a partition do not hold identical logs
                        below the high watermark (the highest `hw` given for
                        the partition): a record differs or is missing, or the
                        byte dumps differ.
  stale-offset          a write acked at an offset not above an offset acked
                        (same partition) before it started (Redpanda: "a write
                        gets an offset above every offset acked before it
                        started": real-time order).
  shared-ack-offset     two acknowledged writes share an offset (Redpanda: "no
                        two acks share an offset"). Values are unique, so this
                        always comes with inconsistent-offsets too.
Client re-sends (stats["client_resends"], with the first few in
stats["client_resend_examples"]): copies of one value that the replica logs
(kept as raw bytes) show written by one producer id under strictly rising
producer epochs, none but the last acknowledged. The broker cannot tell these
apart by design (KIP-360: a new epoch restarts the sequences), so they are the
client's doing: librdkafka bumps the epoch of an idempotent producer on an
OUT_OF_ORDER_SEQUENCE_NUMBER of a request behind the head one, and renumbers
every queued message of every partition, including messages it took back
after NOT_LEADER_OR_FOLLOWER as "not persisted" although a deposed leader had
written them (confluentinc/librdkafka#4953, open; Kafka itself shows it too).
A copy under the same epoch, or an acknowledged earlier copy, stays a
duplicate.

The version order of a partition (for poll-skip) is the set of offsets seen by
consumers or in replica logs; acks alone do not enter it, so a lost write is
reported as lost-write and not also as a skip.

`History` is thread-safe for recording (one lock); `check` is a pure function.
Histories round-trip through JSON (`to_json`/`from_json`) so a failing run can
be saved next to its logs and re-checked.
"""

import bisect
import json
import struct
import threading
from collections import defaultdict
from dataclasses import dataclass, field, asdict

OK, FAIL, INFO, ABORTED = "ok", "fail", "info", "aborted"

KINDS = ("lost-write", "duplicate", "inconsistent-offsets", "G1a", "unknown-value", "nonmonotonic-send",
         "nonmonotonic-poll", "poll-skip", "replicas-diverge", "stale-offset", "shared-ack-offset")


@dataclass
class Write:
    producer: str
    value: str
    partition: object
    seq: int
    start: float
    outcome: str = INFO
    offset: int = None
    end: float = None
    error: str = None
    txn: bool = False


@dataclass
class Read:
    consumer: str
    partition: object
    offset: int = None
    value: str = None
    reset: bool = False  # a seek/reassignment marker, not a record
    committed: bool = True  # read by a read_committed consumer


@dataclass
class ReplicaLog:
    replica: object
    partition: object
    hw: int
    records: list = None  # [(offset, value)]
    data: bytes = None


@dataclass
class History:
    writes: list = field(default_factory=list)
    reads: list = field(default_factory=list)
    replicas: list = field(default_factory=list)
    drained: bool = False

    def __post_init__(self):
        self._lock = threading.Lock()
        self._seq = defaultdict(int)

    # -- recording ------------------------------------------------------------
    def invoke(self, producer, value, partition, start, txn=False):
        with self._lock:
            self._seq[producer] += 1
            w = Write(producer, value, partition, self._seq[producer], start, txn=txn)
            self.writes.append(w)
            return w

    def complete(self, w, outcome, end, offset=None, error=None):
        if outcome not in (OK, FAIL, INFO, ABORTED) or (outcome == ABORTED and not w.txn):
            raise ValueError(f"outcome {outcome!r}")
        with self._lock:
            w.outcome, w.end, w.offset, w.error = outcome, end, offset, error

    def read(self, consumer, partition, offset, value, committed=True):
        with self._lock:
            self.reads.append(Read(consumer, partition, offset, value, committed=committed))

    def reset(self, consumer, partition):
        with self._lock:
            self.reads.append(Read(consumer, partition, reset=True))

    def replica(self, replica, partition, hw, records=None, data=None):
        if (records is None) == (data is None):
            raise ValueError("a replica log is records or bytes")
        with self._lock:
            self.replicas.append(ReplicaLog(replica, partition, hw,
                                            None if records is None else [tuple(r) for r in records], data))

    # -- persistence ------------------------------------------------------------
    def to_json(self):
        def part(p):
            return list(p) if isinstance(p, tuple) else p
        reps = []
        for r in self.replicas:
            d = asdict(r)
            d["partition"] = part(r.partition)
            d["data"] = None if r.data is None else r.data.hex()
            reps.append(d)
        return json.dumps({"writes": [dict(asdict(w), partition=part(w.partition)) for w in self.writes],
                           "reads": [dict(asdict(r), partition=part(r.partition)) for r in self.reads],
                           "replicas": reps, "drained": self.drained})

    @staticmethod
    def from_json(text):
        d = json.loads(text)

        def part(p):
            return tuple(p) if isinstance(p, list) else p
        h = History(drained=d["drained"])
        h.writes = [Write(**dict(w, partition=part(w["partition"]))) for w in d["writes"]]
        h.reads = [Read(**dict(r, partition=part(r["partition"]))) for r in d["reads"]]
        for r in d["replicas"]:
            h.replicas.append(ReplicaLog(r["replica"], part(r["partition"]), r["hw"],
                                         None if r["records"] is None else [tuple(x) for x in r["records"]],
                                         None if r["data"] is None else bytes.fromhex(r["data"])))
        return h


@dataclass
class Result:
    anomalies: dict
    stats: dict

    @property
    def valid(self):
        return not self.anomalies

    def kinds(self):
        return set(self.anomalies)

    def describe(self, limit=10):
        lines = [f"checker: {'valid' if self.valid else 'INVALID'} {self.stats}"]
        for kind in KINDS:
            items = self.anomalies.get(kind, [])
            if items:
                lines.append(f"  {kind}: {len(items)}")
                lines += [f"    {x}" for x in items[:limit]]
                if len(items) > limit:
                    lines.append(f"    ... {len(items) - limit} more")
        return "\n".join(lines)


def _observations(h):
    """partition -> offset -> value -> sorted source labels; also the
    partition -> offsets seen by reads/replicas (the version order)."""
    obs = defaultdict(lambda: defaultdict(lambda: defaultdict(set)))
    order = defaultdict(set)
    for w in h.writes:
        if w.outcome == OK and w.offset is not None:
            obs[w.partition][w.offset][w.value].add(f"ack:{w.producer}")
    for r in h.reads:
        if not r.reset:
            obs[r.partition][r.offset][r.value].add(f"read:{r.consumer}")
            order[r.partition].add(r.offset)
    for rl in h.replicas:
        for o, v in rl.records or ():
            if o < rl.hw:
                obs[rl.partition][o][v].add(f"replica:{rl.replica}")
                order[rl.partition].add(o)
    return obs, order


def _fmt(sources):
    return sorted(sources)


def check(h):
    """Checks a History; returns a Result (valid, anomalies by kind, stats)."""
    an = defaultdict(list)
    obs, order = _observations(h)
    by_value = {}
    for w in h.writes:
        by_value.setdefault(w.value, w)

    # inconsistent-offsets, duplicate
    value_offsets = defaultdict(lambda: defaultdict(set))
    for p, offs in obs.items():
        for o, vals in sorted(offs.items()):
            if len(vals) > 1:
                an["inconsistent-offsets"].append(
                    {"partition": p, "offset": o, "values": {v: _fmt(s) for v, s in sorted(vals.items())}})
            for v, s in vals.items():
                value_offsets[(p, v)][o] |= s
    writers = _writers(h)
    resends = []
    for (p, v), offs in sorted(value_offsets.items(), key=lambda x: str(x[0])):
        if len(offs) > 1:
            item = {"partition": p, "value": v, "offsets": {o: _fmt(s) for o, s in sorted(offs.items())}}
            if _client_resend(offs, writers.get(p)):
                resends.append(item)
            else:
                an["duplicate"].append(item)

    # G1a, unknown-value (reads and replica logs only)
    seen = defaultdict(set)  # value -> labels of reads/replicas that saw it
    read_values = set()
    for r in h.reads:
        if not r.reset:
            seen[r.value].add((r.partition, r.offset, f"read:{r.consumer}"))
            read_values.add(r.value)
            w = by_value.get(r.value)
            if r.committed and w is not None and w.outcome == ABORTED:
                an["G1a"].append({"value": r.value, "producer": w.producer, "aborted": True,
                                  "seen": [(r.partition, r.offset, f"read:{r.consumer}")]})
    for rl in h.replicas:
        for o, v in rl.records or ():
            if o < rl.hw:
                seen[v].add((rl.partition, o, f"replica:{rl.replica}"))
    for v, where in sorted(seen.items(), key=lambda x: str(x[0])):
        w = by_value.get(v)
        if w is None:
            an["unknown-value"].append({"value": v, "seen": sorted(where, key=str)})
        elif w.outcome == FAIL:
            an["G1a"].append({"value": v, "producer": w.producer, "error": w.error,
                              "seen": sorted(where, key=str)})

    # lost-write
    max_read = defaultdict(lambda: -1)
    for r in h.reads:
        if not r.reset:
            max_read[r.partition] = max(max_read[r.partition], r.offset)
    for w in h.writes:
        if w.outcome == OK and w.value not in read_values and \
                (h.drained or (w.offset is not None and w.offset <= max_read[w.partition])):
            an["lost-write"].append({"partition": w.partition, "offset": w.offset, "value": w.value,
                                     "producer": w.producer, "max_read_offset": max_read[w.partition]})

    # nonmonotonic-send, shared-ack-offset, stale-offset
    acked = defaultdict(list)
    for w in h.writes:
        if w.outcome == OK and w.offset is not None:
            acked[(w.producer, w.partition)].append(w)
    for (prod, p), ws in acked.items():
        ws.sort(key=lambda w: w.seq)
        for a, b in zip(ws, ws[1:]):
            if b.offset <= a.offset:
                an["nonmonotonic-send"].append({"producer": prod, "partition": p,
                                                "earlier": (a.seq, a.value, a.offset),
                                                "later": (b.seq, b.value, b.offset)})
    per_part = defaultdict(list)
    for w in h.writes:
        if w.outcome == OK and w.offset is not None:
            per_part[w.partition].append(w)
    for p, ws in per_part.items():
        at = defaultdict(list)
        for w in ws:
            at[w.offset].append(w.value)
        for o, vs in sorted(at.items()):
            if len(vs) > 1:
                an["shared-ack-offset"].append({"partition": p, "offset": o, "values": sorted(vs)})
        by_end = sorted((w for w in ws if w.end is not None), key=lambda w: w.end)
        i, best = 0, None  # best = the write with the highest offset acked so far
        for w in sorted(ws, key=lambda w: w.start):
            while i < len(by_end) and by_end[i].end < w.start:
                if best is None or by_end[i].offset > best.offset:
                    best = by_end[i]
                i += 1
            if best is not None and w.offset <= best.offset:
                an["stale-offset"].append({"partition": p, "value": w.value, "offset": w.offset,
                                           "started": w.start, "acked_before": (best.value, best.offset,
                                                                                best.end)})

    # nonmonotonic-poll, poll-skip
    sorted_order = {p: sorted(s) for p, s in order.items()}
    # what a read_committed consumer must see: not the offsets that hold a
    # transactional write not known to be committed
    maybe_invisible = set()
    for p, offs in obs.items():
        for o, vals in offs.items():
            if any((w := by_value.get(v)) is not None and w.txn and w.outcome != OK for v in vals):
                maybe_invisible.add((p, o))
    committed_order = {p: [o for o in s if (p, o) not in maybe_invisible] for p, s in sorted_order.items()}
    last = {}
    for r in h.reads:
        key = (r.consumer, r.partition)
        if r.reset:
            last.pop(key, None)
            continue
        prev = last.get(key)
        last[key] = r
        if prev is None:
            continue
        if r.offset <= prev.offset:
            an["nonmonotonic-poll"].append({"consumer": r.consumer, "partition": r.partition,
                                            "from": (prev.offset, prev.value), "to": (r.offset, r.value)})
        else:
            between = _between((committed_order if r.committed else sorted_order)[r.partition],
                               prev.offset, r.offset)
            if between:
                an["poll-skip"].append({"consumer": r.consumer, "partition": r.partition,
                                        "from": (prev.offset, prev.value), "to": (r.offset, r.value),
                                        "skipped": between})

    # replicas-diverge
    logs = defaultdict(list)
    for rl in h.replicas:
        logs[rl.partition].append(rl)
    for p, rls in logs.items():
        hw = max(rl.hw for rl in rls)
        recs = [rl for rl in rls if rl.records is not None]
        raw = [rl for rl in rls if rl.data is not None]
        if len({tuple(sorted((o, v) for o, v in rl.records if o < hw)) for rl in recs}) > 1:
            views = {rl.replica: dict((o, v) for o, v in rl.records if o < hw) for rl in recs}
            first = min(o for o in set().union(*views.values())
                        if len({view.get(o) for view in views.values()}) > 1)
            an["replicas-diverge"].append({"partition": p, "hw": hw, "first_difference": first,
                                           "at_first_difference": {r: v.get(first) for r, v in views.items()},
                                           "records_below_hw": {r: len(v) for r, v in views.items()}})
        if len({rl.data for rl in raw}) > 1:
            a = raw[0].data
            firsts = {}
            for rl in raw[1:]:
                b = rl.data
                firsts[rl.replica] = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]),
                                          min(len(a), len(b)))
            an["replicas-diverge"].append({"partition": p, "hw": hw, "bytes": {rl.replica: len(rl.data)
                                                                               for rl in raw},
                                           "first_byte_difference_vs": {raw[0].replica: firsts}})

    stats = {"writes": len(h.writes), "ok": sum(w.outcome == OK for w in h.writes),
             "fail": sum(w.outcome == FAIL for w in h.writes), "info": sum(w.outcome == INFO for w in h.writes),
             "aborted": sum(w.outcome == ABORTED for w in h.writes),
             "reads": sum(not r.reset for r in h.reads), "replica_logs": len(h.replicas), "drained": h.drained,
             "client_resends": len(resends)}
    if resends:
        stats["client_resend_examples"] = resends[:3]
    return Result({k: an[k] for k in KINDS if an.get(k)}, stats)


def _writers(h):
    """partition -> sorted [(base offset, last offset, producer id, producer
    epoch)] of the batches in the replica logs kept as raw bytes."""
    out = defaultdict(set)
    for rl in h.replicas:
        data, pos = rl.data or b"", 0
        while pos + 61 <= len(data):
            base, length = struct.unpack_from(">qi", data, pos)
            if length < 49 or pos + 12 + length > len(data):
                break
            last_delta = struct.unpack_from(">i", data, pos + 23)[0]
            pid, epoch = struct.unpack_from(">qh", data, pos + 43)
            out[rl.partition].add((base, base + last_delta, pid, epoch))
            pos += 12 + length
    return {p: sorted(b) for p, b in out.items()}


def _writer_of(batches, offset):
    """(producer id, epoch) of the batch holding `offset`, None if unknown."""
    i = bisect.bisect_right(batches, (offset, float("inf"))) - 1
    if i >= 0 and batches[i][0] <= offset <= batches[i][1]:
        return batches[i][2], batches[i][3]
    return None


def _client_resend(offs, batches):
    """True when the copies {offset: sources} of one value are a client's
    re-send under newer epochs (see the module's contract)."""
    if not batches:
        return False
    order = sorted(offs)
    who = [_writer_of(batches, o) for o in order]
    if any(w is None or w[0] < 0 for w in who) or len({w[0] for w in who}) != 1:
        return False
    if any(a[1] >= b[1] for a, b in zip(who, who[1:])):
        return False
    return not any(s.startswith("ack:") for o in order[:-1] for s in offs[o])


def _between(offsets, lo, hi):
    """The elements of sorted `offsets` strictly between lo and hi."""
    return offsets[bisect.bisect_right(offsets, lo):bisect.bisect_left(offsets, hi)]
