# The chaos suites use the system tests' process harness (tests/system,
# tests/compat) next to their own modules.
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
for _d in ("system", "compat"):
    sys.path.insert(0, os.path.join(_HERE, "..", _d))
