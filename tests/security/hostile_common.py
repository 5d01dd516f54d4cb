"""What the hostile-client test files share (test_heavy_load.py, test_storage_pressure.py,
test_refusals.py): W2, the two workers their servers run with; req, a request that never raises;
brief, an answer's status and error code."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from harness import error_code  # noqa: E402

W2 = ("--workers", "2")


def req(s, method, path, body=None, source=None, timeout=30, token=None, headers=None):
    """s.request() that never raises: (status, parsed body, response); status is a string naming the
    error when there was no answer."""
    try:
        return s.request(method, path, body, source=source, timeout=timeout, token=token, headers=headers)
    except Exception as e:  # noqa: BLE001 -- no answer is a figure too
        return "%s: %s" % (type(e).__name__, e), None, None


def brief(res):
    """(status, error code or None)."""
    return res[0], error_code(res)
