# Fixtures live in spool_fixtures.py so tests/system can share them.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from spool_fixtures import *  # noqa: E402,F401,F403
from spool_fixtures import pytest_runtest_makereport  # noqa: E402,F401
