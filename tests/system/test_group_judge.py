"""Self-tests of the consumer-group judge (tests/compat/group_events.py) on
synthetic member events, so that it cannot be hollow: a clean hand-over
passes; a successor starting past the committed offset, a gap, a partition
owned twice and an offset never read are each reported; a member killed with
kill -9 may have sent one commit it never reported (the offset after the
last record it reported), and only that offset is allowed beyond its last
reported commit. And the event reader: an event that shares its line with a
client's log line is still read.
"""

import os
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "compat"))

from group_events import Member, judge, parse_event  # noqa: E402


def member(name, events, killed=False):
    """A Member with the given events and no process."""
    m = Member.__new__(Member)
    m.name, m.events, m.killed = name, list(events), killed
    m.lock = threading.Lock()
    return m


def assigned(parts, t):
    return {"ev": "assigned", "parts": parts, "t": t}


def recs(p, offs, t):
    return {"ev": "recs", "p": p, "offs": offs, "t": t}


def commit(offs, t, ok=True):
    return {"ev": "commit", "offs": {str(p): o for p, o in offs.items()}, "ok": ok, "err": None, "t": t}


def first_owner(killed, last_commit=True):
    """Reads 0..2 of partition 0; reports the commit of 2 (next offset 2 after
    reading 0,1), then reads 2 and is killed or closes without reporting
    more."""
    ev = [assigned([0], 1.0), recs(0, [0, 1], 1.1), commit({0: 2}, 1.2), recs(0, [2], 1.3)]
    if not killed:
        ev.append({"ev": "closed", "t": 1.4})
    return member("a", ev, killed=killed)


def successor(start, end=5, t=2.0):
    return member("b", [assigned([0], t), recs(0, list(range(start, end)), t + 0.1), commit({0: end}, t + 0.2)])


def test_clean_hand_over_passes():
    a = first_owner(killed=False)
    b = successor(2)
    # a read 2 but committed only 2 (not 3): b reads 2 again, allowed (at least once).
    assert judge("t", [a, b], {0: 5}, {0: 5}, 1) == []


def test_successor_past_the_committed_offset_is_reported():
    a = first_owner(killed=False)
    b = successor(3)
    assert judge("t", [a, b], {0: 5}, {0: 5}, 1) == ["t: partition 0: b started at 3 at 2.000, committed [2]"]


def test_a_killed_members_unreported_commit_is_allowed_and_nothing_beyond():
    a = first_owner(killed=True)
    assert a.unreported_commits() == [(0, 1.3, 3)]
    assert judge("t", [a, successor(3)], {0: 5}, {0: 5}, 1) == []
    assert judge("t", [first_owner(killed=True), successor(2)], {0: 5}, {0: 5}, 1) == []
    assert judge("t", [first_owner(killed=True), successor(4)], {0: 5}, {0: 5}, 1) == \
        ["t: partition 0: b started at 4 at 2.000, committed [2, 3]", "t: partition 0: 1 offsets never read, e.g. [3]"]


def test_no_unreported_commit_for_a_partition_no_longer_held():
    a = member("a", [assigned([0, 1], 1.0), recs(0, [0], 1.1), recs(1, [0], 1.1), commit({0: 1, 1: 1}, 1.2),
                     recs(1, [1], 1.3), {"ev": "revoked", "parts": [1], "t": 1.4}], killed=True)
    assert a.unreported_commits() == [(0, 1.4, 1)]


def test_gap_twice_owned_and_unread_are_reported():
    a = member("a", [assigned([0], 1.0), recs(0, [0, 2], 1.1), commit({0: 3}, 1.2)])
    b = member("b", [assigned([0], 1.15), recs(0, [3], 1.3), commit({0: 4}, 1.4)])
    problems = judge("t", [a, b], {0: 4}, {0: 4}, 1)
    assert problems == ["t: partition 0 owned twice: a [1.000, 1.200] and b from 1.150",
                        "t: partition 0: a read a gap or went back: [0, 2]..",
                        "t: partition 0: b started at 3 at 1.150, committed [0]",
                        "t: partition 0: 1 offsets never read, e.g. [1]"], problems


def test_event_sharing_a_line_with_a_log_line_is_read():
    line = '{"ev":"assigned","parts":[7,8,9],"t":1.5}[2026-12-06 23:48:36.233] [info] consumer: setting offset'
    assert parse_event(line) == {"ev": "assigned", "parts": [7, 8, 9], "t": 1.5}
    assert parse_event('[info] a {brace} then {"err":null,"ev":"commit","offs":{"3":92},"ok":true,"t":2}') == \
        {"err": None, "ev": "commit", "offs": {"3": 92}, "ok": True, "t": 2}
    assert parse_event("[info] consumer: nothing here {not json}") is None
    assert parse_event('{"no": "event"}') is None
