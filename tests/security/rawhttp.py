"""Raw HTTP on a plain socket, for the security tests that send what http.client would not (broken
framing, half-sent heads and bodies, several requests down one connection): Reader, which reads
answers off a socket in order; read_answer, one answer or a string saying what came instead;
raw_exchange, one request on a fresh connection; health_once, one GET /api/health on its own
connection; error_of, the error code of a JSON error body; POST, the head of a JSON POST /api/analyse
without its length. Used by test_connections.py, test_framing_and_ids.py, test_heavy_load.py and
test_refusals.py."""
import json
import os
import socket
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from harness import connect  # noqa: E402

POST = b"POST /api/analyse HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"


class Reader:
    """Answers read off one raw socket, in order (keeps what comes after an answer). first: bytes
    already read off it, given back before anything new."""

    def __init__(self, sock, first=b""):
        self.sock, self.buf = sock, first

    def _more(self, deadline):
        self.sock.settimeout(max(0.01, deadline - time.time()))
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError
        self.buf += chunk

    def _until_closed(self, deadline):
        """Reads until the peer closes (EOF or reset); socket.timeout if it has not by the deadline."""
        try:
            while True:
                self._more(deadline)
        except socket.timeout:
            raise
        except (EOFError, OSError):
            pass

    def response(self, timeout=5, head_only=False):
        """(status, lower-cased headers, body bytes); None when the peer closed before any byte.
        1xx, 204 and 304 have no body; otherwise, without a Content-Length or with head_only (the answer
        to a HEAD), the body is what came until the peer closed (for a HEAD it must be nothing). Raises
        socket.timeout when nothing complete came in time (a body read to the close included: the peer
        must close by then), ConnectionError when the peer closed inside the head or the body."""
        deadline = time.time() + timeout
        try:
            while b"\r\n\r\n" not in self.buf:
                self._more(deadline)
        except EOFError:
            if not self.buf:
                return None
            raise ConnectionError("closed inside the head: %r" % self.buf[:120])
        head, _, self.buf = self.buf.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        try:
            status = int(lines[0].split()[1])
        except (IndexError, ValueError):
            raise ConnectionError("not HTTP: %r" % head[:120])
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        if status < 200 or status in (204, 304):
            return status, headers, b""
        if head_only or "content-length" not in headers:
            self._until_closed(deadline)
            body, self.buf = self.buf, b""
            return status, headers, body
        n = int(headers["content-length"] or 0)
        try:
            while len(self.buf) < n:
                self._more(deadline)
        except EOFError:
            raise ConnectionError("closed inside the body: %d of %d bytes" % (len(self.buf), n))
        body, self.buf = self.buf[:n], self.buf[n:]
        return status, headers, body

    def eof(self, timeout):
        """Seconds until the peer closed (EOF or reset) with nothing more sent, or None if it did not
        within timeout; ('data', bytes) if it sent something."""
        t0 = time.time()
        deadline = t0 + timeout
        if self.buf:
            return ("data", self.buf)
        while time.time() < deadline:
            self.sock.settimeout(max(0.01, deadline - time.time()))
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                return None
            except OSError:
                return time.time() - t0
            if not chunk:
                return time.time() - t0
            return ("data", chunk)
        return None


def error_of(body):
    try:
        return json.loads(body)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None


def raw_exchange(port, data, timeout=5, source=None):
    """Sends data on a fresh connection and reads one answer: (answer or None, seconds, reader)."""
    sock = connect(port, source)
    t0 = time.time()
    sock.sendall(data)
    r = Reader(sock)
    try:
        ans = r.response(timeout)
    except socket.timeout:
        ans = "timeout"
    return ans, time.time() - t0, r


def read_answer(sock, timeout=5, head_only=False):
    """One HTTP answer off a socket or a Reader (Reader.response), or a string saying what came instead:
    'closed' (nothing), 'timeout', 'reset (...)', or what went wrong inside the answer."""
    r = sock if isinstance(sock, Reader) else Reader(sock)
    try:
        ans = r.response(timeout, head_only)
    except socket.timeout:
        return "timeout" if not r.buf else "timeout inside the answer: %r" % r.buf[:120]
    except ConnectionError as e:
        return str(e) if type(e) is ConnectionError else "reset (%s)" % e
    except OSError as e:
        return "reset (%s)" % e
    return "closed" if ans is None else ans


def health_once(port, source=None, timeout=5):
    """(status, or a string saying what came instead, seconds) of one GET /api/health on a fresh
    connection."""
    t0 = time.time()
    try:
        sock = connect(port, source, timeout)
    except OSError as e:
        return "connect: %s" % e, time.time() - t0
    try:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        ans = read_answer(sock, max(0.05, timeout - (time.time() - t0)))
    except OSError as e:
        ans = "send: %s" % e
    finally:
        sock.close()
    return (ans[0] if isinstance(ans, tuple) else ans), time.time() - t0
