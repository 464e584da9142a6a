"""Consumer-group members as child processes, and the judge of their events.

Every member program prints the same JSON events, one per line (t =
wall-clock seconds): tests/system/group_member.py (librdkafka), the Java
client's GroupMember (tests/compat/java), franz-go's groupmember
(tests/compat/go) and Spool's native_group_member (tests/compat/native):
  started | assigned {parts} | revoked {parts} | lost {parts}
  recs {p, offs} | commit {offs, ok, err} | closed | error {err}

Member runs one and collects its events; stable_at / wait_stable tell when a
group has settled; Producer writes to every partition all along; judge()
checks a group's events once the producer has stopped and the group has
committed the end of every partition:
  - no partition is owned by two members at any time (assigned .. revoked,
    lost or closed intervals of different members never overlap);
  - no member reports records of a partition it does not hold;
  - each ownership starts at the committed offset: its first record is the
    offset of the partition's last successful commit before the assignment (0
    if none), or of a later commit whose outcome the client did not learn (a
    member killed with kill -9 may have sent one more commit it never
    reported: the offset after the last record it reported of each partition
    it still held counts as such a commit);
  - within an ownership the offsets are contiguous, and all the owners
    together read every offset of every partition;
  - the final committed offsets are the partitions' end offsets.
Used by tests/system/test_cluster_groups.py and tests/compat/test_native_group.py.
"""

import json
import signal
import subprocess
import threading
import time

STABLE_TIMEOUT_S = 90


def parse_event(line):
    """The event object in an output line, or None. A client's log line can
    share the line with an event when the two are written in pieces."""
    at = line.find("{")
    while at >= 0:
        try:
            obj = json.JSONDecoder().raw_decode(line, at)[0]
            if isinstance(obj, dict) and "ev" in obj:
                return obj
        except ValueError:
            pass
        at = line.find("{", at + 1)
    return None


class Member:
    """One member child process; its events are collected as they come."""

    def __init__(self, argv, bootstrap, group, topic, name, extra=()):
        self.name = name
        self.killed = False  # by kill9() while it ran
        self.proc = subprocess.Popen(argv + [bootstrap, group, topic, name, *extra], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lock = threading.Lock()
        self.events, self.lines = [], []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            with self.lock:
                self.lines.append(line.rstrip())
                event = parse_event(line)
                if event is not None:
                    self.events.append(event)

    def snapshot(self):
        with self.lock:
            return list(self.events)

    def output(self, n=30):
        with self.lock:
            return f"--- {self.name} (rc {self.proc.poll()}):\n" + "\n".join(self.lines[-n:])

    def live(self):
        return self.proc.poll() is None and not any(e["ev"] in ("closed", "error") for e in self.snapshot())

    def terminate(self, timeout=60):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.reader.join(10)
        return self.proc.returncode

    def kill9(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.killed = True
        self.proc.wait()

    def unreported_commits(self):
        """[(partition, t, offset)]: the commit a member killed with kill -9 may
        have sent and not reported (it commits what it read after each poll):
        per partition it still held, the offset after the last record it
        reported there, at the time of its last event. Empty unless killed."""
        if not self.killed:
            return []
        ev = self.snapshot()
        held, _ = assignment(ev)
        after = {}
        for e in ev:
            if e["ev"] == "assigned":
                for p in e["parts"]:
                    after.pop(p, None)
            elif e["ev"] == "recs" and e["offs"]:
                after[e["p"]] = e["offs"][-1] + 1
        t = ev[-1]["t"] if ev else 0.0
        return [(p, t, o) for p, o in sorted(after.items()) if p in held]



def assignment(events):
    """(partitions held now, time of the last assignment change)."""
    held, changed = set(), 0.0
    for e in events:
        if e["ev"] == "assigned":
            held |= set(e["parts"])
            changed = e["t"]
        elif e["ev"] in ("revoked", "lost"):
            held -= set(e["parts"])
            changed = e["t"]
    return held, changed



def stable_at(members, since, count, nparts):
    """When the group became stable after `since` (see the docstring), or None."""
    live = [m for m in members if m.live()]
    if len(live) != count:
        return None
    union, at = set(), since
    for m in live:
        ev = m.snapshot()
        held, changed = assignment(ev)
        if not held or union & held:
            return None
        union |= held
        ok = [e["t"] for e in ev if e["ev"] == "commit" and e["ok"] and e["t"] > max(since, changed)]
        if not ok:
            return None
        at = max(at, ok[0])
    return at if union == set(range(nparts)) else None


def wait_stable(groups, since, what, count, nparts, seed):
    """{name: seconds from `since` until the group `groups[name]` was stable:
    `count` live members, holding the `nparts` partitions between them, each
    committed after its last assignment change}."""
    deadline = time.monotonic() + STABLE_TIMEOUT_S
    took = {}
    while len(took) < len(groups):
        for eco, members in groups.items():
            if eco not in took:
                at = stable_at(members, since, count, nparts)
                if at is not None:
                    took[eco] = at - since
        if len(took) == len(groups):
            break
        if time.monotonic() > deadline:
            late = [eco for eco in groups if eco not in took]
            dump = "\n".join(m.output() for eco in late for m in groups[eco])
            raise AssertionError(f"{what}: groups {late} not stable within {STABLE_TIMEOUT_S} s "
                                 f"(seed {seed})\n{dump}")
        time.sleep(0.05)
    return took


class Producer:
    """Writes to every partition in turn, one record every `interval` s, until stopped."""

    def __init__(self, bootstrap, topic, nparts, interval=0.01):
        from confluent_kafka import Producer as CkProducer
        self.p = CkProducer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
                             "linger.ms": 2, "message.timeout.ms": 120000,
                             "reconnect.backoff.ms": 20, "reconnect.backoff.max.ms": 500})
        self.topic, self.nparts, self.interval = topic, nparts, interval
        self.errors, self.ends = [], {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _delivered(self, err, msg):
        if err is not None:
            self.errors.append(str(err))
        else:
            self.ends[msg.partition()] = max(self.ends.get(msg.partition(), 0), msg.offset() + 1)

    def _run(self):
        i = 0
        while not self.stop.is_set():
            self.p.produce(self.topic, value=b"g%d" % i, partition=i % self.nparts, on_delivery=self._delivered)
            self.p.poll(0)
            i += 1
            time.sleep(self.interval)

    def finish(self):
        self.stop.set()
        self.thread.join()
        left = self.p.flush(120)
        assert left == 0 and not self.errors, f"producer: {left} undelivered, errors {self.errors[:5]}"
        return dict(self.ends)



def committed(bootstrap, group, topic, nparts):
    from confluent_kafka import Consumer, TopicPartition
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        res = c.committed([TopicPartition(topic, p) for p in range(nparts)], timeout=30)
        return {tp.partition: tp.offset for tp in res}
    finally:
        c.close()



def ownership(members):
    """[(partition, start, end, member, first offset, offsets)] over all members."""
    out = []
    for m in members:
        ev = m.snapshot()
        end_t = ev[-1]["t"] if ev else 0.0
        open_ = {}  # partition -> [start, offsets]
        for e in ev:
            if e["ev"] == "assigned":
                for p in e["parts"]:
                    open_.setdefault(p, [e["t"], []])
            elif e["ev"] == "recs" and e["p"] in open_:
                open_[e["p"]][1].extend(e["offs"])
            elif e["ev"] in ("revoked", "lost", "closed"):
                parts = list(open_) if e["ev"] == "closed" else e["parts"]
                for p in parts:
                    if p in open_:
                        s, offs = open_.pop(p)
                        out.append((p, s, e["t"], m.name, offs))
        for p, (s, offs) in open_.items():
            out.append((p, s, end_t, m.name, offs))
    return out


def judge(eco, members, ends, final, nparts):
    problems = []
    stray = []
    for m in members:
        held = set()
        for e in m.snapshot():
            if e["ev"] == "assigned":
                held |= set(e["parts"])
            elif e["ev"] in ("revoked", "lost"):
                held -= set(e["parts"])
            elif e["ev"] == "recs" and e["p"] not in held:
                stray.append((m.name, e["p"]))
    if stray:
        problems.append(f"records from partitions not held: {stray[:5]}")
    commits = {}  # partition -> [(t, offset, ok)]
    for m in members:
        for e in m.snapshot():
            if e["ev"] == "commit":
                for p, o in e["offs"].items():
                    commits.setdefault(int(p), []).append((e["t"], o, e["ok"]))
        for p, t, o in m.unreported_commits():
            commits.setdefault(p, []).append((t, o, False))
    owned = ownership(members)
    for p in range(nparts):
        spans = sorted((s, e, name, offs) for pp, s, e, name, offs in owned if pp == p)
        for (s1, e1, n1, _), (s2, e2, n2, _) in zip(spans, spans[1:]):
            if n1 != n2 and s2 < e1:
                problems.append(f"partition {p} owned twice: {n1} [{s1:.3f}, {e1:.3f}] and {n2} from {s2:.3f}")
        seen = set()
        for s, e, name, offs in spans:
            seen.update(offs)
            if not offs:
                continue
            before = sorted(c for c in commits.get(p, []) if c[0] < s)
            last_ok = max((i for i, c in enumerate(before) if c[2]), default=-1)
            allowed = {before[last_ok][1] if last_ok >= 0 else 0} | {c[1] for c in before[last_ok + 1:]}
            if offs[0] not in allowed:
                problems.append(f"partition {p}: {name} started at {offs[0]} at {s:.3f}, committed {sorted(allowed)}")
            if offs != list(range(offs[0], offs[0] + len(offs))):
                problems.append(f"partition {p}: {name} read a gap or went back: {offs[:3]}..")
        missing = set(range(ends.get(p, 0))) - seen
        if missing:
            problems.append(f"partition {p}: {len(missing)} offsets never read, e.g. {sorted(missing)[:5]}")
        if final.get(p) != ends.get(p, 0):
            problems.append(f"partition {p}: committed {final.get(p)}, end {ends.get(p, 0)}")
    failed = sum(1 for cs in commits.values() for c in cs if not c[2])
    print(f"  {eco}: {len(owned)} ownerships, {sum(len(cs) for cs in commits.values())} partition commits "
          f"({failed} with unknown outcome), {sum(ends.values())} records")
    return [f"{eco}: {p}" for p in problems]

