"""HTTP helpers for the admin listener's tests (test_admin_api.py,
test_console.py): `b` is a harness Broker with `admin_port` set.

  get(b, path, timeout, headers, method) -> (status, body bytes, headers),
      an HTTP error status returned like a success;
  get_json(b, path) -> (status, parsed body), asserting a JSON answer.
"""

import json
import urllib.error
import urllib.request


def get(b, path, timeout=10, headers=None, method="GET"):
    req = urllib.request.Request(f"http://127.0.0.1:{b.admin_port}{path}", headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read(), r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read(), e.headers


def get_json(b, path):
    status, body, headers = get(b, path)
    assert headers["Content-Type"] == "application/json", (path, headers)
    return status, json.loads(body)
