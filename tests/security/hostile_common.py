"""What the hostile-client test files share (test_heavy_load.py, test_storage_pressure.py,
test_refusals.py): W2, the two workers their servers run with; req, a request that never raises;
brief, an answer's status and error code; read_answer, one HTTP answer off a raw socket, or what came
instead."""
import socket
import time

W2 = ("--workers", "2")


def req(s, method, path, body=None, source=None, timeout=30, token=None, headers=None):
    """s.request() that never raises: (status, parsed body, response); status is a string naming the
    error when there was no answer."""
    try:
        return s.request(method, path, body, source=source, timeout=timeout, token=token, headers=headers)
    except Exception as e:  # noqa: BLE001 -- no answer is a figure too
        return "%s: %s" % (type(e).__name__, e), None, None


def code_of(res):
    body = res[1]
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return body["error"].get("code")
    return None


def brief(res):
    """(status, error code or None)."""
    return res[0], code_of(res)


def read_answer(sock, timeout=5, head_only=False):
    """One HTTP answer off a socket: (status, lower-cased headers, body bytes, rest read after it), or a
    string saying what came instead ('closed' with nothing, 'timeout', 'reset'). With head_only (the
    answer to a HEAD), the body is what came until the peer closed (it must be nothing)."""
    deadline = time.time() + timeout
    buf = b""

    def more():
        sock.settimeout(max(0.01, deadline - time.time()))
        chunk = sock.recv(65536)
        if not chunk:
            raise EOFError
        return chunk

    try:
        while b"\r\n\r\n" not in buf:
            buf += more()
    except EOFError:
        return "closed" if not buf else "closed inside the head: %r" % buf[:120]
    except socket.timeout:
        return "timeout" if not buf else "timeout inside the head: %r" % buf[:120]
    except OSError as e:
        return ("reset (%s)" % e) if not buf else "reset inside the head: %r" % buf[:120]
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    try:
        status = int(lines[0].split()[1])
    except (IndexError, ValueError):
        return "not HTTP: %r" % buf[:120]
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    if head_only:
        try:
            while True:
                rest += more()
        except (EOFError, OSError):
            pass
        return status, headers, rest, b""
    n = int(headers.get("content-length", "0") or 0) if "content-length" in headers else None
    try:
        while n is None or len(rest) < n:
            rest += more()
    except (EOFError, OSError):
        pass
    if n is None:
        return status, headers, rest, b""
    return status, headers, rest[:n], rest[n:]
