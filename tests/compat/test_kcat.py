"""kcat (the librdkafka command-line client) against a real spool broker:
keyed produce from stdin, simple (group-less) consume with a format string,
and metadata listing."""

import json
import shutil
import subprocess

import pytest

from harness import external_bootstrap, missing_tool

KCAT = shutil.which("kcat") or shutil.which("kafkacat")


@pytest.fixture(autouse=True)
def kcat_installed():
    if KCAT is None:
        missing_tool("kcat")
TIMEOUT_S = 30


def kcat(bootstrap, *args, stdin=None):
    r = subprocess.run([KCAT, "-b", bootstrap, "-X", "socket.timeout.ms=10000", *args],
                       input=stdin, capture_output=True, timeout=TIMEOUT_S)
    assert r.returncode == 0, f"kcat {args} exited {r.returncode}: {r.stderr.decode(errors='replace')}"
    return r.stdout.decode()


@pytest.mark.parametrize("codec", ["none", "gzip", "snappy", "lz4", "zstd"])
def test_produce_consume_lines(bootstrap, topic, codec):
    lines = [f"key{i % 4}:line {i} ünïcode {'x' * (i % 50)}" for i in range(200)]
    kcat(bootstrap, "-P", "-t", topic, "-p", "0", "-K:", "-z", codec,
         stdin=("\n".join(lines) + "\n").encode())
    out = kcat(bootstrap, "-C", "-t", topic, "-p", "0", "-o", "beginning", "-e",
               "-f", "%k %s %o\n")
    got = out.splitlines()
    expect = [f"{line.split(':', 1)[0]} {line.split(':', 1)[1]} {i}" for i, line in enumerate(lines)]
    assert got == expect


def test_consume_from_offset_and_count(bootstrap, topic):
    kcat(bootstrap, "-P", "-t", topic, "-p", "0", stdin="".join(f"m{i}\n" for i in range(30)).encode())
    out = kcat(bootstrap, "-C", "-t", topic, "-p", "0", "-o", "25", "-e", "-f", "%o=%s\n")
    assert out.splitlines() == [f"{i}=m{i}" for i in range(25, 30)]
    out = kcat(bootstrap, "-C", "-t", topic, "-p", "0", "-o", "-3", "-e", "-f", "%s\n")
    assert out.splitlines() == ["m27", "m28", "m29"]


def test_metadata_listing(broker, bootstrap, topic):
    kcat(bootstrap, "-P", "-t", topic, "-p", "0", stdin=b"hello\n")
    md = json.loads(kcat(bootstrap, "-L", "-J", "-t", topic))
    brokers = md["brokers"]
    assert len(brokers) >= 1
    if not external_bootstrap():
        # Advertised address must be what clients can reach: 127.0.0.1:<port>.
        assert [b["name"] for b in brokers] == [f"127.0.0.1:{broker.port}"]
    topics = {t["topic"]: t for t in md["topics"]}
    t = topics[topic]
    assert "error" not in t or not t["error"], t
    parts = t["partitions"]
    if not external_bootstrap():
        assert len(parts) == 1
    p0 = [p for p in parts if p["partition"] == 0][0]
    assert p0["leader"] == brokers[0]["id"]
    assert p0["replicas"] == [{"id": brokers[0]["id"]}]
    assert p0["isrs"] == [{"id": brokers[0]["id"]}]

    # Plain-text listing of all topics includes ours too.
    assert f'topic "{topic}"' in kcat(bootstrap, "-L")
