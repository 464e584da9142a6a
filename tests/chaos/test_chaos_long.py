"""The long chaos run of issue 16 (`make chaos DURATION=...`, label chaos, not
in make test): chaos.py for CHAOS_DURATION seconds (default 3600) of faults
on CHAOS_BROKERS brokers (default 3), judged as the short runs are."""

import os

from chaos import execute
from test_chaos import judge


def test_long():
    run, results = execute(float(os.environ.get("CHAOS_DURATION", "3600")),
                           brokers=int(os.environ.get("CHAOS_BROKERS", "3")))
    judge(run, results)
