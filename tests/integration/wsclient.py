"""A small WebSocket client (RFC 6455) for the tests: standard library only. The tests' harness
sets check_frame and check_op to the contract's judges (tests/integration/contract.py): then every
text frame received and every op sent with send() is validated against server/api/asyncapi.json, and
one it does not describe raises AssertionError in the test."""
import base64
import json
import os
import socket
import struct
import time

check_frame = None  # function(text): raises AssertionError unless the contract describes the frame
check_op = None  # function(op, described): the same for an op sent (described=False: a wrong one on purpose)


class WebSocket:
    close_code = None  # the code of the server's close frame, once received

    def __init__(self, port, host="127.0.0.1", timeout=10, rcvbuf=None, headers=None, path="/", source=None,
                 tls=None):
        """tls: an ssl.SSLContext to speak wss:// (through a TLS proxy)."""
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if source:  # a client of its own: another loopback address (127.0.0.2, ...)
            self.sock.bind((source, 0))
        if rcvbuf:  # a slow reader: a tiny window makes the server queue what it cannot send
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)
        self.sock.connect((host, port))
        if tls:
            self.sock = tls.wrap_socket(self.sock, server_hostname=host)
        key = base64.b64encode(os.urandom(16)).decode()
        extra = dict(headers or {})
        host_header = extra.pop("Host", "%s:%d" % (host, port))
        lines = "".join("%s: %s\r\n" % kv for kv in extra.items())
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n%s\r\n"
                           % (path, host_header, key, lines)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("handshake: connection closed")
            head += chunk
        status, _, self.buf = head.partition(b"\r\n\r\n")
        if b" 101 " not in status.split(b"\r\n")[0]:
            raise ConnectionError("handshake refused: " + status.decode(errors="replace"))

    def send_frame(self, payload, opcode=1, fin=True):
        if isinstance(payload, str):
            payload = payload.encode()
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([(0x80 if fin else 0) | opcode])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(head + mask + masked)

    def send(self, obj, described=True):
        """Sends an op as a text frame; described=False for an op the contract must not describe (a
        test of the server's refusal). A raw frame (send_frame) is not judged."""
        if check_op:
            check_op(obj, described)
        self.send_frame(json.dumps(obj))

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def recv(self, timeout=10):
        """The next text message (str), or None when the server closed."""
        deadline = time.time() + timeout
        while True:
            self.sock.settimeout(max(0.01, deadline - time.time()))
            try:
                b0, b1 = self._read(2)
            except (ConnectionError, socket.timeout):
                return None  # closed, or nothing within the timeout
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            payload = self._read(n)
            opcode = b0 & 0x0F
            if opcode == 1:
                text = payload.decode()
                if check_frame:
                    check_frame(text)
                return text
            if opcode == 8:
                self.close_code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else None
                return None
            if opcode == 9:
                self.send_frame(payload, opcode=10)

    def recv_json(self, timeout=10):
        text = self.recv(timeout)
        return json.loads(text) if text is not None else None

    def until(self, pred, timeout=30):
        """Messages until one satisfies pred; returns (that message, all received)."""
        seen = []
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = self.recv_json(max(0.05, deadline - time.time()))
            if m is None:
                break
            seen.append(m)
            if pred(m):
                return m, seen
        return None, seen

    def close(self):
        try:
            self.send_frame(b"\x03\xe8", opcode=8)
        except OSError:
            pass
        self.sock.close()


def free_port():
    """A TCP port free on loopback now (for a server a test starts)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port
