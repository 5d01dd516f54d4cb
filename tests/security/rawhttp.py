"""Raw HTTP on a plain socket, for the security tests that send what http.client would not (broken
framing, half-sent heads and bodies, several requests down one connection): Reader, which reads
answers off a socket in order; raw_exchange, one request on a fresh connection; error_of, the error
code of a JSON error body; POST, the head of a JSON POST /api/analyse without its length. Used by
test_connections.py, test_framing_and_ids.py and test_refusals.py."""
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
    """Answers read off one raw socket, in order (keeps what comes after an answer)."""

    def __init__(self, sock):
        self.sock, self.buf = sock, b""

    def _more(self, deadline):
        self.sock.settimeout(max(0.01, deadline - time.time()))
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError
        self.buf += chunk

    def response(self, timeout=5):
        """(status, lower-cased headers, body bytes); None when the peer closed before any byte.
        Raises socket.timeout when nothing complete came in time."""
        deadline = time.time() + timeout
        try:
            while b"\r\n\r\n" not in self.buf:
                self._more(deadline)
        except EOFError:
            if not self.buf:
                return None
            raise ConnectionError("closed inside the headers: %r" % self.buf[:200])
        head, _, self.buf = self.buf.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        n = int(headers.get("content-length", "0"))
        while len(self.buf) < n:
            self._more(deadline)
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
