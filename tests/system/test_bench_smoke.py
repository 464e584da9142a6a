"""Smoke test of `spool bench --quick --peer mock`: the benchmark runs end to
end against its own brokers (Spool durable and durable.writes=false) and
librdkafka's mock cluster and writes a parseable report. The opt-in cluster
family runs too (`--quick --workloads cluster --skip-peer`: ZooKeeper and 3
Spool brokers, one leader kill, RF=3 vs RF=1, replication lag, transaction
throughput, one coordinator kill; about a minute); it needs
Debian's ZooKeeper, which is a failure under CI=true and a skip elsewhere.
The opt-in operability family's scrape workload runs too (`--quick --workloads
operability/scrape`: one pair of produce runs with and without a 1 Hz GET
/metrics scraper, the broker's CPU per MB and per scrape, a few seconds), and
its browser workload on its own (`--workloads operability/console-1000-partitions`:
1,000 partitions, one console load in headless Chromium; it needs node,
tests/console/node_modules and /usr/bin/chromium, a failure under CI=true and
a skip elsewhere, like the bench itself). (The Kafka peer is
not smoke-tested here: starting Kafka 4.4 several times takes minutes, far
past this suite's budget; `spool bench --peer kafka --quick` is the manual
check.)
Benchmarks are not tests: nothing here checks a timing or a ratio, only that
every expected figure exists and is a positive number."""

import csv
import glob
import os
import shutil
import subprocess

import pytest

from harness import missing_tool, spool_bin

# Rows the smoke run must produce (workload, target, metric).
REQUIRED = [
    ("produce/100B/acks=1/p1/x1", "spool", "msgs_per_s"),
    ("produce/100B/acks=1/p1/x1", "mock", "msgs_per_s"),
    ("produce/1KB/acks=all/p1/x1", "spool", "MB_per_s"),
    ("produce/1KB/acks=1/p1/x1", "mock", "MB_per_s"),
    ("produce/1KB/acks=all/p1/x1", "spool-nodurable", "msgs_per_s"),
    ("latency/100B/acks=1/in-flight=1", "spool-nodurable", "p99_us"),
    ("consume/1KB/cached", "spool", "MB_per_s"),
    ("rss/idle", "spool", "rss_MB"),
    ("machine/loopback", "machine", "MB_per_s"),
    ("machine/disk-write", "machine", "MB_per_s"),
    ("machine/disk-write-fdatasync", "machine", "MB_per_s"),
    # The client family: native producer and consumer vs librdkafka on the same Spool broker.
    ("client/produce/100B/acks=1/p1/librdkafka", "spool", "msgs_per_s"),
    ("client/produce/100B/acks=1/p1/native", "spool", "msgs_per_s"),
    ("client/produce/1KB/acks=all/p1/librdkafka", "spool", "MB_per_s"),
    ("client/produce/1KB/acks=all/p1/native", "spool", "MB_per_s"),
    ("client/consume/1KB/librdkafka", "spool", "msgs_per_s"),
    ("client/consume/1KB/native", "spool", "MB_per_s"),
    ("client/rss/partitions=1000/librdkafka", "spool", "rss_KB"),
    ("client/rss/partitions=1000/native", "spool", "rss_KB"),
]


# Rows of the quick cluster run (Spool only; the failover at session=2s only).
CLUSTER_REQUIRED = [
    ("cluster/failover/produce/session=2s", "spool", "seconds"),
    ("cluster/failover/consume/session=2s", "spool", "seconds"),
    ("cluster/produce/1KB/acks=all/p1/rf=1", "spool", "msgs_per_s"),
    ("cluster/produce/1KB/acks=all/p1/rf=3", "spool", "msgs_per_s"),
    ("cluster/produce/1KB/acks=all/p1/rf=3-over-rf=1", "spool", "ratio"),
    ("cluster/lag/1KB/acks=1/rf=3/50MBps", "spool", "MB_per_s"),
    ("cluster/lag/1KB/acks=1/rf=3/50MBps", "spool", "lag_p99_msgs"),
    ("cluster/txn/100x1KB/rf=3/p1/x1", "spool", "txns_per_s"),
    ("cluster/coordinator-failover/group/session=2s", "spool", "seconds"),
    ("cluster/coordinator-failover/txn/session=2s", "spool", "seconds"),
]


def run_bench(args, tmp_path, timeout=240):
    env = dict(os.environ, TMPDIR=str(tmp_path))
    return subprocess.run([spool_bin(), "bench", *args], capture_output=True, text=True, timeout=timeout, env=env)


def measurement_rows(csv_path):
    """(workload, target, metric) -> list of run values, from the CSV's long
    form: header workload,target,metric,run,value; metadata/note rows have a
    workload starting with '#'."""
    with open(csv_path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows and rows[0] == ["workload", "target", "metric", "run", "value"], rows[:1]
    out = {}
    for r in rows[1:]:
        assert len(r) == 5, f"malformed CSV row {r}"
        if r[0].startswith("#"):
            continue
        values = out.setdefault((r[0], r[1], r[2]), [])
        if r[4] != "":
            values.append(float(r[4]))  # raises if the value is not a number
    return out


def test_quick_bench_writes_a_complete_report(tmp_path):
    out_dir = tmp_path / "results"
    p = run_bench(["--quick", "--peer", "mock", "--output-dir", str(out_dir)], tmp_path)
    assert p.returncode == 0, f"spool bench failed ({p.returncode}):\n{p.stderr[-6000:]}"
    md = [f for f in glob.glob(str(out_dir / "*.md"))]
    csvs = glob.glob(str(out_dir / "*.csv"))
    svgs = glob.glob(str(out_dir / "*.svg"))
    assert len(md) == 1 and len(csvs) == 1 and svgs, f"report files: {os.listdir(out_dir)}"
    assert p.stdout.strip() == md[0], "the report's path is printed on stdout"
    for f in md + csvs + svgs:
        assert os.path.getsize(f) > 0, f"{f} is empty"
    for f in svgs:
        assert "<svg" in open(f).read(), f"{f} is not an SVG"

    rows = measurement_rows(csvs[0])
    for key in REQUIRED:
        assert key in rows, f"no CSV row for {key}; rows: {sorted(rows)}\nstderr:\n{p.stderr[-4000:]}"
    for key, values in rows.items():
        assert values, f"{key} has no values"
        assert all(v > 0 for v in values), f"{key} has a non-positive value: {values}"

    text = open(md[0]).read()
    assert "## Targets" in text and "| produce 100 B, acks=1, 1 partition | >= 1.5x Kafka | not measured" in text, \
        "the Markdown has the targets table (Kafka targets are not measured against the mock)"
    assert "| spool-nodurable | Spool with durable.writes=false |" in text, "the configurations table"
    assert "| Spool/mock |" in text, "the ratio column"
    assert "| native producer vs librdkafka, produce 100 B, acks=1 (same Spool broker) | >= 1.0x librdkafka | " \
           "not measured" not in text, "the client family's target row is measured"
    # Progress lines on stderr, one per run.
    assert "produce/100B/acks=1/p1/x1 spool run 1/1" in p.stderr


def test_quick_produce_with_the_native_client(tmp_path):
    """--client native: the produce family's rows come from Spool's native producer."""
    out_dir = tmp_path / "results"
    p = run_bench(["--quick", "--skip-peer", "--workloads", "produce", "--client", "native",
                   "--output-dir", str(out_dir)], tmp_path, timeout=120)
    assert p.returncode == 0, f"spool bench failed ({p.returncode}):\n{p.stderr[-6000:]}"
    csvs = glob.glob(str(out_dir / "*.csv"))
    rows = measurement_rows(csvs[0])
    for key in [("produce/100B/acks=1/p1/x1", "spool", "msgs_per_s"),
                ("produce/1KB/acks=all/p1/x1", "spool", "msgs_per_s"),
                ("produce/1KB/acks=all/p1/x1", "spool-nodurable", "msgs_per_s")]:
        assert rows.get(key), f"no values for {key}; rows: {sorted(rows)}\nstderr:\n{p.stderr[-4000:]}"
        assert all(v > 0 for v in rows[key]), f"{key}: {rows[key]}"
    assert "--client native" in open(glob.glob(str(out_dir / "*.md"))[0]).read(), "the note names the client"


def zookeeper_missing():
    """Why the cluster run cannot start ZooKeeper here, or None."""
    if shutil.which("java") is None:
        return "no java on PATH"
    if not os.path.exists("/usr/share/java/zookeeper.jar"):
        return "no /usr/share/java/zookeeper.jar (Debian's zookeeper package)"
    return None


def test_quick_cluster_bench_reports_failover_rf_and_lag(tmp_path):
    missing = zookeeper_missing()
    if missing:
        missing_tool(f"ZooKeeper ({missing})")
    out_dir = tmp_path / "results"
    p = run_bench(["--quick", "--skip-peer", "--workloads", "cluster", "--output-dir", str(out_dir)], tmp_path,
                  timeout=150)
    assert p.returncode == 0, f"spool bench failed ({p.returncode}):\n{p.stderr[-6000:]}"
    assert "FAILED" not in p.stderr, p.stderr[-6000:]
    csvs = glob.glob(str(out_dir / "*.csv"))
    assert len(csvs) == 1, os.listdir(out_dir)
    rows = measurement_rows(csvs[0])
    for key in CLUSTER_REQUIRED:
        assert rows.get(key), f"no values for {key}; rows: {sorted(rows)}\nstderr:\n{p.stderr[-4000:]}"
        low = 0 if key[2].startswith("lag_") else 1e-9  # a lag of 0 messages is a real sample
        assert all(v >= low for v in rows[key]), f"{key}: {rows[key]}"
    assert not any(k[0].endswith("session=default") for k in rows), "--quick runs only the 2 s session timeout"

    md = glob.glob(str(out_dir / "*.md"))
    text = open(md[0]).read()
    assert "### Cluster: 3 nodes" in text, "the cluster family's table"
    assert "| cluster/failover/produce/session=2s | seconds (s) |" in text
    assert "| cluster failover after leader kill -9, session timeout 2s (2 s): produce and consume resume " \
           "| <= 3 s (session timeout + 1 s) | produce " in text, "the failover target row, measured"
    assert "| cluster produce 1 KB, acks=all, RF=3 (3 nodes each) | >= 1.5x Kafka RF=3 | not measured" in text, \
        "no Kafka cluster with --skip-peer"
    # The bench leaves no broker or ZooKeeper behind.
    leftovers = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True).stdout.split()
    assert not leftovers, f"processes still running under {tmp_path}: {leftovers}"


# Rows of the quick operability/scrape run (Spool only: Kafka has no admin HTTP listener).
SCRAPE_REQUIRED = [
    ("operability/scrape/100B/acks=1/p1/x1/no-scraper", "spool", "msgs_per_s"),
    ("operability/scrape/100B/acks=1/p1/x1/scraper=1Hz", "spool", "msgs_per_s"),
    ("operability/scrape/100B/acks=1/p1/x1/scraper=1Hz-over-no-scraper", "spool", "ratio"),
    ("operability/scrape/metrics", "spool", "latency_ms"),
    ("operability/scrape/metrics", "spool", "body_bytes"),
    ("operability/scrape/100B/acks=1/p1/x1/no-scraper", "spool", "cpu_ms_per_MB"),
    ("operability/scrape/100B/acks=1/p1/x1/scraper=1Hz", "spool", "cpu_ms_per_MB"),
    ("operability/scrape/100B/acks=1/p1/x1/scraper=1Hz-over-no-scraper", "spool", "cpu_per_MB_ratio"),
    ("operability/scrape/metrics", "spool", "cpu_ms_per_scrape"),
    ("operability/scrape/metrics", "spool", "cpu_pct_at_1Hz"),
]


def test_quick_scrape_bench_reports_the_ratio(tmp_path):
    """--workloads operability/scrape: produce with and without a GET /metrics
    scraper at 1 Hz on a broker whose admin listener the bench put on a free
    port; one repetition of 1 s runs gives the ratio row and the scrapes."""
    out_dir = tmp_path / "results"
    p = run_bench(["--quick", "--skip-peer", "--workloads", "operability/scrape", "--output-dir", str(out_dir)],
                  tmp_path, timeout=120)
    assert p.returncode == 0, f"spool bench failed ({p.returncode}):\n{p.stderr[-6000:]}"
    assert "FAILED" not in p.stderr, p.stderr[-6000:]
    csvs = glob.glob(str(out_dir / "*.csv"))
    assert len(csvs) == 1, os.listdir(out_dir)
    rows = measurement_rows(csvs[0])
    for key in SCRAPE_REQUIRED:
        assert rows.get(key), f"no values for {key}; rows: {sorted(rows)}\nstderr:\n{p.stderr[-4000:]}"
        assert all(v > 0 for v in rows[key]), f"{key}: {rows[key]}"
    assert not any(k[0].startswith(("operability/admin-", "operability/console-")) for k in rows), \
        "only the workload asked for runs"
    assert not any(k[0].startswith("produce/") for k in rows), "the standard set does not run"
    text = open(glob.glob(str(out_dir / "*.md"))[0]).read()
    assert "### Operability:" in text, "the operability family's table"
    assert "| operability/scrape/100B/acks=1/p1/x1/scraper=1Hz-over-no-scraper | ratio |" in text
    assert "| a GET /metrics scraper at 1 Hz beside produce 100 B, acks=1, against none (same Spool broker) " \
           "| >= 0.99x" in text, "the scrape target row"
    assert "operability: Spool only (Kafka has no admin HTTP listener" in text, "the note says why there is no peer"
    leftovers = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True).stdout.split()
    assert not leftovers, f"processes still running under {tmp_path}: {leftovers}"
    assert "scrape cost = " in text and "% of one core at 1 Hz" in text, "the closing figure of the scrape cost"


CONSOLE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "console")
CONSOLE_ROW = "operability/console-1000-partitions/chromium"


def test_quick_console_bench_times_the_page_in_chromium(tmp_path):
    """--workloads operability/console-1000-partitions: a broker with 1,000
    partitions, then one untimed and one timed load of the web console in
    headless Chromium (tests/console/console_load_time.js); the row exists
    with positive times."""
    if shutil.which("node") is None:
        missing_tool("node")
    if not os.path.isdir(os.path.join(CONSOLE_DIR, "node_modules", "playwright-core")):
        missing_tool("tests/console/node_modules/playwright-core (npm ci in tests/console)")
    if not os.access("/usr/bin/chromium", os.X_OK):
        missing_tool("/usr/bin/chromium (Debian's chromium package)")
    out_dir = tmp_path / "results"
    p = run_bench(["--quick", "--skip-peer", "--workloads", "operability/console-1000-partitions",
                   "--output-dir", str(out_dir)], tmp_path, timeout=240)
    assert p.returncode == 0, f"spool bench failed ({p.returncode}):\n{p.stderr[-6000:]}"
    assert "FAILED" not in p.stderr, p.stderr[-6000:]
    rows = measurement_rows(glob.glob(str(out_dir / "*.csv"))[0])
    for metric in ["table_ms", "dom_content_loaded_ms", "load_ms"]:
        values = rows.get((CONSOLE_ROW, "spool", metric))
        assert values and all(v > 0 for v in values), f"{metric}: {values}; rows: {sorted(rows)}"
    assert not any(k[0].startswith(("operability/scrape", "operability/admin-")) for k in rows), \
        "only the workload asked for runs"
    text = open(glob.glob(str(out_dir / "*.md"))[0]).read()
    assert f"- {CONSOLE_ROW}: topics table rendered " in text, "the closing figure of the console"
    leftovers = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True).stdout.split()
    assert not leftovers, f"processes still running under {tmp_path}: {leftovers}"


@pytest.mark.parametrize("args, message", [
    (["--repetitions", "-1"], "--repetitions"),
    (["--messages", "0"], "--messages"),
    (["--workloads", "produce,nosuch"], "unknown workload 'nosuch'"),
    (["--bootstrap", "no-port"], "--bootstrap"),
    (["--broker-override", "novalue"], "key=value"),
    (["--peer", "zookeeper"], "--peer must be kafka or mock"),
    (["--client", "java"], "--client must be librdkafka or native"),
    (["--workloads", "operability/nosuch"], "unknown workload 'operability/nosuch'"),
    (["--broker-override", "admin.listener=http://127.0.0.1:9644"], "the bench sets admin.listener itself"),
])
def test_bad_arguments_exit_2_with_a_message(tmp_path, args, message):
    p = run_bench([*args, "--output-dir", str(tmp_path / "r")], tmp_path, timeout=30)
    assert p.returncode == 2, f"exit {p.returncode}: {p.stderr}"
    assert message in p.stderr
    assert not (tmp_path / "r").exists(), "nothing is written for bad arguments"


def test_peer_kafka_without_java_fails_instead_of_falling_back(tmp_path):
    """An explicit --peer kafka must not silently become the mock: with no
    java on PATH the bench exits 1 naming the reason and writes nothing."""
    env = dict(os.environ, TMPDIR=str(tmp_path), PATH=str(tmp_path / "empty-path"))
    p = subprocess.run([spool_bin(), "bench", "--quick", "--peer", "kafka", "--output-dir", str(tmp_path / "r")],
                       capture_output=True, text=True, timeout=60, env=env)
    assert p.returncode == 1, f"exit {p.returncode}: {p.stderr}"
    assert "--peer kafka: no java on $PATH" in p.stderr, p.stderr
    assert not (tmp_path / "r").exists()
