"""kill -9 with many partitions, then torn writes at the tail of half of
them (what a crash mid-write leaves), then restart (issue 7: the restart
makes all recoveries durable with one file-system sync and must still be
exactly as careful as before):

  * every acknowledged (acks=all) message of every partition is there, in
    order, offsets contiguous from 0 (torn tails truncated, not served);
  * the next produce to a torn partition continues right after the last
    acknowledged offset;
  * a second kill -9 right after the restart loses nothing either (what the
    first recovery kept was made durable before the broker served).
"""

import os
import re

from confluent_kafka.admin import AdminClient, NewTopic

import ck_util

TOPICS = 3
PARTITIONS = 20
PER_PARTITION = 10


def value(t, p, i):
    return f"{t}/{p}/{i}".encode()


def active_log(dirpath):
    logs = sorted(f for f in os.listdir(dirpath) if re.fullmatch(r"\d{20}\.log", f))
    return os.path.join(dirpath, logs[-1])


def check_all(bootstrap, names, extra=None):
    extra = extra or {}
    for t, name in enumerate(names):
        got = ck_util.consume(bootstrap, name, partitions=range(PARTITIONS),
                              expected=PARTITIONS * PER_PARTITION + len(extra.get(t, {})))
        by_part = {}
        for m in got:
            by_part.setdefault(m.partition(), []).append(m)
        for p in range(PARTITIONS):
            msgs = by_part.get(p, [])
            want = [value(t, p, i) for i in range(PER_PARTITION)] + extra.get(t, {}).get(p, [])
            assert [m.value() for m in msgs] == want, f"{name}-{p}: {[m.value() for m in msgs]}"
            assert [m.offset() for m in msgs] == list(range(len(want))), f"{name}-{p}: offsets"


def test_kill9_many_partitions_with_torn_tails(broker_factory):
    b = broker_factory()
    names = [f"restart-recovery-{i}-{os.urandom(3).hex()}" for i in range(TOPICS)]
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    for f in admin.create_topics([NewTopic(n, PARTITIONS, 1) for n in names]).values():
        f.result(timeout=60)
    prod = ck_util.producer(b.bootstrap, acks="all")
    for t, name in enumerate(names):
        for p in range(PARTITIONS):
            reports = ck_util.produce_all(prod, name, [{"value": value(t, p, i)} for i in range(PER_PARTITION)],
                                          partition=p)
            assert all(r[0] is None for r in reports), reports
            assert [r[2] for r in reports] == list(range(PER_PARTITION))
    del prod
    b.kill9()

    # A torn batch: the first 40 bytes of a real one (a header cut short),
    # and on other partitions a whole header whose body is missing.
    torn = []
    for t, name in enumerate(names):
        for p in range(0, PARTITIONS, 2):
            path = active_log(os.path.join(b.log_dir, f"{name}-{p}"))
            with open(path, "rb") as f:
                head = f.read(80)
            cut = head[:40] if p % 4 == 0 else head[:61] + b"\x00" * 7
            with open(path, "ab") as f:
                f.write(cut)
            torn.append((t, p, path, os.path.getsize(path) - len(cut)))

    b.start()
    assert "truncating" in b.log()
    for _t, _p, path, whole in torn:
        assert os.path.getsize(path) == whole, f"{path}: torn tail not truncated"
    check_all(b.bootstrap, names)

    # Appends continue right after the acknowledged data, torn or not.
    prod = ck_util.producer(b.bootstrap, acks="all")
    extra = {}
    for t, p, _path, _whole in torn[:6] + [(0, 1, None, None)]:
        r = ck_util.produce_all(prod, names[t], [{"value": b"after"}], partition=p)
        assert r[0][0] is None and r[0][2] == PER_PARTITION, r
        extra.setdefault(t, {}).setdefault(p, []).append(b"after")
    del prod

    # Crash again at once: the first recovery's result was already durable.
    b.kill9()
    b.start()
    check_all(b.bootstrap, names, extra)
