# Reuse the broker fixtures and process harness of tests/compat.
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_HERE, "..", "compat"))
# The history checker, the recorded client workloads and the nemeses (tests/chaos).
sys.path.insert(0, os.path.join(_HERE, "..", "chaos"))

from spool_fixtures import *  # noqa: E402,F401,F403
from spool_fixtures import pytest_runtest_makereport  # noqa: E402,F401

# Cluster fixtures (tests/system/cluster_fixtures.py): cluster_factory.
from cluster_fixtures import cluster_factory, register as _register_cluster_plugin  # noqa: E402,F401


def pytest_configure(config):
    _register_cluster_plugin(config)
