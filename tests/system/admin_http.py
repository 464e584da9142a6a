"""HTTP helpers for the admin listener's tests (test_admin_api.py,
test_console.py): `b` is a harness Broker with `admin_port` set.

  get(b, path, timeout, headers, method) -> (status, body bytes, headers),
      an HTTP error status returned like a success;
  get_json(b, path) -> (status, parsed body), asserting a JSON answer;
  admin_broker(overrides, name, admin_port=None, **kwargs) -> a started
      Broker with admin.listener on admin_port (default: a free port) and
      `admin_port` set; kwargs go to Broker (e.g. log_dir).
"""

import json
import urllib.error
import urllib.request

from harness import Broker, free_port


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


def admin_broker(overrides=None, name="admin", admin_port=None, **kwargs):
    admin_port = admin_port or free_port()
    b = Broker(overrides={"admin.listener": f"http://127.0.0.1:{admin_port}", **(overrides or {})}, name=name,
               **kwargs)
    b.admin_port = admin_port
    return b.start()
