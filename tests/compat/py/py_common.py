"""Client-independent helpers of tests/compat/py: the records the suites send
(varied keys, values, headers and timestamps from a seeded Random), bounded
waits, the settling of a group's assignments, the exact checks of a group
run and of the three-transaction log (commit, abort, commit), and reading a
raw answer off a socket (recv_exact).

A record here is a dict: key (bytes or None), value (bytes or None), headers
(list of (str, bytes or None), possibly empty, keys may repeat), timestamp
(ms since the epoch, CreateTime), partition (int or None)."""

import time

CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]

# Common overrides: no initial rebalance delay, few internal partitions (quick
# to create on both brokers), and a small transaction timeout ceiling left at
# Kafka's default.
BASE_OVERRIDES = {
    "group.initial.rebalance.delay.ms": "0",
    "offsets.topic.num.partitions": "3",
    "transaction.state.log.num.partitions": "3",
}


def make_records(rnd, n, base_ts=None, null_header_values=True, null_key_and_value=True, partitions=None):
    """n records: null and empty keys and values (both null in one record
    unless not null_key_and_value), binary payloads from 1 byte to 6 KB, 0-3
    headers (an empty one, a repeated key, a null value when
    null_header_values), timestamps base_ts + i*7 (base an hour ago),
    partition i % partitions (None without partitions)."""
    if base_ts is None:
        base_ts = int(time.time() * 1000) - 3_600_000
    out = []
    for i in range(n):
        if i % 7 == 3:
            key = None
        elif i % 13 == 5:
            key = b""
        else:
            key = f"key-{i % 17}".encode() + bytes([rnd.randrange(256)])
        if i % 11 == 4:
            value = None
        elif i % 19 == 7:
            value = b""
        else:
            value = rnd.randbytes(rnd.choice([1, 10, 100, 1000, 6000]))
        if key is None and value is None and not null_key_and_value:
            value = b"key and value both null is refused by this client"
        headers = []
        for j in range(i % 4):
            if j == 2:
                headers.append(("h1", None if null_header_values else b""))  # repeated key
            elif j == 1:
                headers.append((f"h{j}", b""))
            else:
                headers.append((f"h{j}", f"v{i}-{j}".encode() + rnd.randbytes(3)))
        out.append({"key": key, "value": value, "headers": headers, "timestamp": base_ts + i * 7,
                    "partition": None if partitions is None else i % partitions})
    return out


def recv_exact(s, n):
    """Exactly n bytes from socket s (asserts the peer did not close first)."""
    out = b""
    while len(out) < n:
        chunk = s.recv(n - len(out))
        assert chunk, "connection closed"
        out += chunk
    return out


def wait_until(cond, timeout_s, what, poll_s=0.1):
    """Calls cond() until it returns a truthy value (returned) or raises
    AssertionError naming `what` after timeout_s."""
    deadline = time.monotonic() + timeout_s
    last = None
    while True:
        last = cond()
        if last:
            return last
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what} (last: {last!r})")
        time.sleep(poll_s)


def assert_records_equal(sent, got, where):
    """got: list of dicts like sent plus 'offset'; compares all fields byte
    for byte and requires offsets first..first+n-1."""
    assert len(got) == len(sent), f"{where}: sent {len(sent)}, got {len(got)}"
    first = got[0]["offset"] if got else 0
    for i, (s, g) in enumerate(zip(sent, got)):
        w = f"{where}: record {i}"
        assert g["offset"] == first + i, f"{w}: offset {g['offset']}, expected {first + i}"
        assert g["key"] == s["key"], f"{w}: key {g['key']!r} != {s['key']!r}"
        assert g["value"] == s["value"], (f"{w}: value differs (len {len(g['value'] or b'')} "
                                          f"vs {len(s['value'] or b'')})")
        assert g["headers"] == s["headers"], f"{w}: headers {g['headers']!r} != {s['headers']!r}"
        assert g["timestamp"] == s["timestamp"], f"{w}: timestamp {g['timestamp']} != {s['timestamp']}"


def assert_exactly_once(consumed, end_offsets, where):
    """consumed: list of (partition, offset) over all members; end_offsets:
    {partition: high watermark}. Every offset 0..end-1 exactly once."""
    seen = {}
    dups = []
    for p, o in consumed:
        if (p, o) in seen:
            dups.append((p, o))
        seen[(p, o)] = True
    assert not dups, f"{where}: consumed twice: {dups[:10]} ({len(dups)} in all)"
    want = {(p, o) for p, end in end_offsets.items() for o in range(end)}
    missing = sorted(want - set(seen))
    extra = sorted(set(seen) - want)
    assert not missing and not extra, f"{where}: missing {missing[:10]} ({len(missing)}), extra {extra[:10]}"


def assignment_sets(members):
    """{member name: the partition numbers assigned to it} of (name, consumer) pairs."""
    return {name: {tp.partition for tp in c.assignment()} for name, c in members}


def assignments_settled(sets, partitions):
    """Whether the assignment sets are non-empty, disjoint and cover range(partitions)."""
    union = set().union(*sets.values())
    return union == set(range(partitions)) and sum(map(len, sets.values())) == len(union) \
        and all(sets.values())


def settle(members, partitions, timeout_s, what, poll):
    """Polls every member until their assignments are non-empty, disjoint and
    cover all partitions; returns the sets. poll(c) polls c once and returns
    (partition, offset) of what it got: nothing may arrive meanwhile."""
    deadline = time.monotonic() + timeout_s
    while True:
        sets = assignment_sets(members)
        if assignments_settled(sets, partitions):
            return sets
        assert time.monotonic() < deadline, f"{what}: assignments {sets} after {timeout_s} s"
        for _, c in members:
            for partition, offset in poll(c):
                raise AssertionError(f"{what}: unexpected record {partition}/{offset}")


def assert_commit_abort_commit_log(read_partition, bootstrap, topic):
    """Partition 0 of `topic` after three transactions of 10 records each,
    c1-i committed, ab-i aborted, c2-i committed (each followed by its control
    marker): read_committed sees c1 at 0-9 and c2 at 22-31, read_uncommitted
    also the aborted records at 11-20. read_partition is the client's."""
    rc = read_partition(bootstrap, topic, 0, 20, isolation="read_committed")
    assert [r["value"] for r in rc] == [f"c1-{i}".encode() for i in range(10)] + \
        [f"c2-{i}".encode() for i in range(10)]
    assert [r["offset"] for r in rc] == list(range(10)) + list(range(22, 32))
    ru = read_partition(bootstrap, topic, 0, 30, isolation="read_uncommitted")
    assert [r["offset"] for r in ru] == list(range(10)) + list(range(11, 21)) + list(range(22, 32))
    assert [r["value"] for r in ru][10:20] == [f"ab-{i}".encode() for i in range(10)]
