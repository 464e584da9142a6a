"""kill -9 the broker repeatedly while an acks=all producer writes numbered
messages, restart it on the same dir/port each time, then read the partition
back and check the durability contract:

  * every acknowledged message is present;
  * messages appear in order of first appearance (the producer keeps one
    request in flight, so a retry can only repeat, never reorder);
  * offsets are contiguous from 0 (recovery truncated torn writes cleanly);
  * nothing appears that was never sent (payloads are self-checking);
  * a message appears more than once only if it was in flight during a kill
    (the producer is not idempotent, so a retried request may be appended
    twice); such duplicates are counted and reported.

The killer's random pauses are seeded and the seed printed (CRASH_SEED
replays them).
"""

import hashlib
import random
import threading
import time

from confluent_kafka import KafkaError

import ck_util
from harness import random_seed

KILLS = 4
RESTART_MAX_S = 5.0


def payload(n):
    digest = hashlib.sha256(str(n).encode()).hexdigest()[:16]
    return f"{n}:{digest}:{'p' * (n % 200)}".encode()


def parse(value):
    n_str, digest, pad = value.decode().split(":", 2)
    n = int(n_str)
    assert payload(n) == value, f"corrupt or foreign message {value[:60]!r}"
    return n


def test_kill9_during_acks_all_produce(broker_factory, topic):
    broker = broker_factory()
    p = ck_util.producer(broker.bootstrap, **{
        "acks": "all",
        "enable.idempotence": False,
        "max.in.flight.requests.per.connection": 1,
        "retries": 1_000_000,
        "retry.backoff.ms": 50,
        "reconnect.backoff.ms": 20,
        "reconnect.backoff.max.ms": 200,
        "message.timeout.ms": 60_000,
        "linger.ms": 2,
    })
    # Make sure the topic exists before the first crash.
    first = ck_util.produce_all(p, topic, [{"value": payload(0)}])
    assert first[0][0] is None, first

    enqueued_at = {0: 0.0}
    acked_at = {0: 0.0}
    failed = {}
    lock = threading.Lock()

    def on_delivery(n):
        def cb(err, msg):
            with lock:
                if err is None:
                    acked_at[n] = time.monotonic()
                else:
                    failed[n] = err
        return cb

    # (time before SIGKILL, time the process was reaped, restart seconds):
    # a message enqueued before the reap and acknowledged after the signal
    # may have been in flight when the broker died.
    kills = []
    killer_error = []
    stop = threading.Event()

    seed = random_seed("CRASH_SEED")

    def killer():
        rnd = random.Random(seed)
        try:
            for _ in range(KILLS):
                time.sleep(rnd.uniform(0.3, 0.9))
                t = time.monotonic()
                broker.kill9()
                t_dead = time.monotonic()
                time.sleep(rnd.uniform(0.0, 0.3))
                broker.start()
                kills.append((t, t_dead, broker.last_start_seconds))
            time.sleep(0.5)
        except Exception as e:  # reported by the main thread
            killer_error.append(e)
        finally:
            stop.set()

    th = threading.Thread(target=killer, daemon=True)
    th.start()
    n = 1
    while not stop.is_set():
        with lock:
            enqueued_at[n] = time.monotonic()
        try:
            p.produce(topic, value=payload(n), partition=0, on_delivery=on_delivery(n))
            n += 1
        except BufferError:
            with lock:
                del enqueued_at[n]
        p.poll(0.001)
    th.join()
    assert not killer_error, f"restart failed: {killer_error[0]}"
    remaining = p.flush(60)
    assert remaining == 0, f"{remaining} messages never got a delivery result"
    sent = n

    # Each restart: recovery logged and port open quickly.
    for i, (_, _, secs) in enumerate(kills):
        assert secs < RESTART_MAX_S, f"restart {i + 1} took {secs:.1f} s"
    for start_no in range(2, broker.starts + 1):
        assert "recover" in broker.log(start_no).lower(), \
            f"start #{start_no} after kill -9 logged no recovery:\n{broker.log(start_no)[-3000:]}"

    acked = set(acked_at)
    assert len(acked) > 100, f"only {len(acked)} of {sent} messages acknowledged: test did no work"

    msgs = ck_util.consume(broker.bootstrap, topic, expected=len(acked), timeout=60)
    offsets = [m.offset() for m in msgs]
    assert offsets == list(range(len(msgs))), "offsets not contiguous from 0"
    numbers = [parse(m.value()) for m in msgs]
    assert all(0 <= x < sent for x in numbers), "a message that was never sent appeared"

    missing = sorted(acked - set(numbers))
    assert not missing, f"{len(missing)} acknowledged messages lost, e.g. {missing[:10]}"

    firsts = []
    seen = set()
    dup_counts = {}
    for x in numbers:
        if x in seen:
            dup_counts[x] = dup_counts.get(x, 0) + 1
        else:
            seen.add(x)
            firsts.append(x)
    assert firsts == sorted(firsts), "messages out of send order"

    def in_flight_at_a_kill(x):
        start = enqueued_at.get(x)
        end = acked_at.get(x, float("inf"))
        return any(start <= dead and end >= k for k, dead, _ in kills)

    bad_dups = [x for x in dup_counts if not in_flight_at_a_kill(x)]
    if bad_dups:
        t0 = enqueued_at[1]
        where = {x: [i for i, y in enumerate(numbers) if y == x] for x in bad_dups[:5]}
        detail = "; ".join(
            f"#{x} at offsets {where[x]}, enqueued +{enqueued_at[x] - t0:.3f}s, "
            f"acked +{acked_at.get(x, float('nan')) - t0:.3f}s" for x in bad_dups[:5])
        kill_times = [(round(k - t0, 3), round(dead - t0, 3)) for k, dead, _ in kills]
        raise AssertionError(f"duplicated though never in flight during a kill: {detail}; "
                             f"kills at {kill_times}\n{broker.all_logs()[-6000:]}")

    print(f"\ncrash test: sent={sent} acked={len(acked)} failed={len(failed)} "
          f"stored={len(numbers)} unacked_but_stored={len(seen - acked)} "
          f"duplicates={sum(dup_counts.values())} kills={len(kills)} "
          f"restart_s={[round(s, 2) for _, _, s in kills]}")
    codes = {e.code() for e in failed.values()}
    assert codes <= {KafkaError._MSG_TIMED_OUT}, f"unexpected delivery errors: {codes}"
