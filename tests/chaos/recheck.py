"""Judges a kept chaos run again, offline: the histories a run saved
(<base>/history-<topic>.json, written when a run fails or is interrupted)
and the brokers' log dirs it kept (<base>/broker-N/data). The replica logs
are read afresh from the log dirs (whatever the saved history holds of them
is dropped), then each topic goes through the same checker, the same
allowed anomalies and the same per-topic rules as chaos.py and
test_chaos.judge. Prints the per-topic table; exits 1 on any anomaly.

  /usr/bin/python3 tests/chaos/recheck.py /tmp/spool-chaos-XXXX [--brokers 3]
"""

import argparse
import glob
import os
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "system"))

import checker  # noqa: E402
from chaos import ALLOWED, PARTITIONS  # noqa: E402
from log_dump import record_replicas  # noqa: E402


def recheck(base, brokers):
    """{topic: (checker.Result, [rule failures])} of the run kept in `base`."""
    dirs = {i: os.path.join(base, f"broker-{i}", "data") for i in range(brokers)}
    out = {}
    for path in sorted(glob.glob(os.path.join(base, "history-*.json"))):
        topic = os.path.basename(path)[len("history-"):-len(".json")]
        with open(path) as f:
            h = checker.History.from_json(f.read())
        h.replicas = []
        record_replicas(h, dirs, topic, range(PARTITIONS))
        res = checker.check(h)
        res.anomalies = {k: v for k, v in res.anomalies.items() if k not in ALLOWED.get(topic, set())}
        rules = []
        if res.stats["ok"] <= 100:
            rules.append(f"only {res.stats['ok']} acknowledged writes")
        if not res.stats["drained"]:
            rules.append("not drained")
        if res.stats["replica_logs"] != PARTITIONS * min(3, brokers):
            rules.append(f"{res.stats['replica_logs']} replica logs")
        out[topic] = (res, rules)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base")
    ap.add_argument("--brokers", type=int, default=3)
    args = ap.parse_args(argv)
    results = recheck(args.base, args.brokers)
    if not results:
        print(f"no history-*.json under {args.base}")
        return 1
    print(f"{'topic':<12} {'writes':>8} {'ok':>8} {'info':>6} {'fail':>5} {'aborted':>7} {'reads':>9} "
          f"{'replica logs':>12}  anomalies")
    bad = False
    for topic, (res, rules) in results.items():
        s = res.stats
        print(f"{topic:<12} {s['writes']:>8} {s['ok']:>8} {s['info']:>6} {s['fail']:>5} {s['aborted']:>7} "
              f"{s['reads']:>9} {s['replica_logs']:>12}  "
              f"{dict(Counter({k: len(v) for k, v in res.anomalies.items()})) or 'none'}"
              f"{'; ' + ', '.join(rules) if rules else ''}")
        if not res.valid:
            print(res.describe())
        bad = bad or not res.valid or bool(rules)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
