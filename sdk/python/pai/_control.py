"""The launcher's control socket, as seen from a training process.

One Unix stream socket per instance (path in ``PAI_CONTROL_SOCKET``); one request per
line, one reply line per request: ``ok``, ``ok <answer>`` (a request that asks for
something) or ``error <why>``. The requests are listed in
docs/sdk.md ("pai-launch ctl") at the project's root.

Nothing here raises: a failed request comes back as a sentence saying why.
"""

import os
import socket
import threading
import time
import weakref
from typing import Optional, Tuple

#: Longest request line the launcher accepts, in bytes, newline excluded.
MAX_LINE_BYTES = 4096

#: How long one request may take: connecting, sending and reading the reply.
DEFAULT_TIMEOUT_S = 2.0

#: After a request times out, the next ones are answered at once, without the socket, for
#: this long; the period doubles after each further timeout, up to QUIET_MAX_S, and ends
#: with the first request answered. A wedged launcher costs training one timeout per period
#: (at most 2 s every 30 s, then every 5 minutes), not one per request.
QUIET_FIRST_S = 30.0
QUIET_MAX_S = 300.0

# A reply longer than this is not from pai-launch; stop reading instead of growing forever.
_MAX_REPLY_BYTES = 64 * 1024

_LINE_BREAKS = str.maketrans({"\r": " ", "\n": " "})

# Connections alive in this process, reset in the child after os.fork().
_connections = weakref.WeakSet()


def request_line(verb: str, argument: str) -> str:
    """``verb argument`` as one request line: line breaks become spaces, and the line is
    cut to MAX_LINE_BYTES of UTF-8 without splitting a character."""
    line = verb + " " + argument.translate(_LINE_BREAKS)
    encoded = line.encode("utf-8", "replace")  # "replace": lone surrogates become "?"
    if len(encoded) <= MAX_LINE_BYTES:
        return encoded.decode("utf-8")
    # "ignore" drops only the character cut in half: the rest is valid UTF-8 we just made.
    return encoded[:MAX_LINE_BYTES].decode("utf-8", "ignore")


class _Broken(Exception):
    """The connection failed in a way a fresh connection may not (closed, reset)."""


class _Failed(Exception):
    """The request failed; retrying would not help or would take too long."""


class _TimedOut(_Failed):
    """No reply within the timeout."""


class ControlConnection:
    """One connection to a control socket, shared by all threads of a process.

    Connects on the first request and keeps the connection. A kept connection found
    broken is replaced once per request. A request that times out drops the connection,
    so a late reply is never taken for the next request's.
    """

    def __init__(self, path: str, timeout_s: float = DEFAULT_TIMEOUT_S,
                 quiet_s: float = QUIET_FIRST_S, quiet_max_s: float = QUIET_MAX_S):
        self.path = path
        self.timeout_s = timeout_s
        self.quiet_first_s = quiet_s
        self.quiet_max_s = quiet_max_s
        self._lock = threading.Lock()
        self._sock: Optional[socket.socket] = None
        self._received = b""
        self._quiet_s = 0.0  # the current quiet period; 0 while the launcher answers
        self._quiet_until = 0.0  # time.monotonic() before which requests are skipped
        _connections.add(self)

    def request(self, line: str) -> Optional[str]:
        """Sends one request line (without its newline; see request_line) and waits for
        the reply. Returns None for ``ok``, else why the request failed. Within a quiet
        period after a timeout, returns at once without sending (see QUIET_FIRST_S)."""
        return self.ask(line)[1]

    def ask(self, line: str) -> Tuple[Optional[str], Optional[str]]:
        """As request, for a request that asks for something: (the text after ``ok ``,
        "" for a bare ``ok``; None) when answered, (None, why) when not."""
        now = time.monotonic()
        if now < self._quiet_until:
            return None, self._skipped_text(now)
        deadline = now + self.timeout_s
        # Waiting for other threads' requests counts against this one's timeout.
        if not self._lock.acquire(timeout=self.timeout_s):
            return None, self._timeout_text() + self._quiet()
        try:
            if time.monotonic() < self._quiet_until:  # another thread's request timed out
                return None, self._skipped_text(time.monotonic())
            return self._request(line, deadline)
        finally:
            self._lock.release()

    def close(self) -> None:
        """Closes the connection; the next request opens a new one."""
        with self._lock:
            self._close()

    def _request(self, line: str, deadline: float) -> Tuple[Optional[str], Optional[str]]:
        try:
            reply = self._exchange_once_more_if_broken(line.encode("utf-8") + b"\n", deadline)
        except _TimedOut as problem:
            self._close()
            return None, str(problem) + self._quiet()
        except (_Broken, _Failed) as problem:
            self._close()
            return None, str(problem)
        self._quiet_s = 0.0  # it answers
        if reply == "ok" or reply.startswith("ok "):
            return reply[len("ok "):], None
        if reply == "error" or reply.startswith("error "):
            verb = line.split(" ", 1)[0]
            return None, "the launcher refused '{}': {}".format(verb, reply[len("error "):])
        self._close()  # not pai-launch, or out of step: start afresh
        return None, "unexpected reply from the launcher's control socket {}: {!r}".format(
            self.path, reply[:200])

    def _exchange_once_more_if_broken(self, data: bytes, deadline: float) -> str:
        kept = self._sock is not None
        try:
            return self._exchange(data, deadline)
        except _Broken:
            if not kept:
                raise
        # The launcher closed a connection kept from an earlier request: try a new one.
        self._close()
        return self._exchange(data, deadline)

    def _exchange(self, data: bytes, deadline: float) -> str:
        if self._sock is None:
            self._connect(deadline)
        sock = self._sock
        try:
            sock.settimeout(_remaining(deadline))
            sock.sendall(data, getattr(socket, "MSG_NOSIGNAL", 0))
            while b"\n" not in self._received:
                if len(self._received) > _MAX_REPLY_BYTES:
                    raise _Failed("reply from the launcher's control socket {} is too long"
                                  .format(self.path))
                sock.settimeout(_remaining(deadline))
                chunk = sock.recv(4096)
                if not chunk:
                    raise _Broken("the launcher closed its control socket {}".format(self.path))
                self._received += chunk
        except socket.timeout:
            raise _TimedOut(self._timeout_text()) from None
        except (BrokenPipeError, ConnectionResetError) as error:
            raise _Broken("lost the launcher's control socket {}: {}".format(
                self.path, error)) from None
        except OSError as error:
            raise _Failed("cannot talk to the launcher's control socket {}: {}".format(
                self.path, error)) from None
        reply, self._received = self._received.split(b"\n", 1)
        return reply.decode("utf-8", "replace").rstrip("\r")

    def _connect(self, deadline: float) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(_remaining(deadline))
            sock.connect(self.path)
        except socket.timeout:
            sock.close()
            raise _TimedOut(self._timeout_text()) from None
        except OSError as error:
            sock.close()
            raise _Failed("cannot connect to the launcher's control socket {}: {}".format(
                self.path, error)) from None
        self._sock = sock
        self._received = b""

    def _close(self) -> None:
        if self._sock is not None:
            self._sock.close()
        self._sock = None
        self._received = b""

    def _timeout_text(self) -> str:
        return "no reply from the launcher's control socket {} within {:g} s".format(
            self.path, self.timeout_s)

    def _quiet(self) -> str:
        """Starts (or doubles) the quiet period after a timeout; says so."""
        self._quiet_s = min(max(self._quiet_s * 2, self.quiet_first_s), self.quiet_max_s)
        self._quiet_until = time.monotonic() + self._quiet_s
        return "; requests are skipped for the next {:g} s".format(self._quiet_s)

    def _skipped_text(self, now: float) -> str:
        return ("no reply from the launcher's control socket {} (a request timed out): "
                "skipped, {:.0f} s before the next try".format(
                    self.path, max(self._quiet_until - now, 0)))

    def _reset_in_child(self) -> None:
        # Another thread of the parent may have held the lock at fork(); the child owns a
        # copy of the parent's socket, which must not carry two processes' requests.
        self._lock = threading.Lock()
        self._close()
        self._quiet_s = 0.0
        self._quiet_until = 0.0


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise socket.timeout()
    return left


def _reset_connections_in_child() -> None:
    for connection in list(_connections):
        connection._reset_in_child()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_connections_in_child)
