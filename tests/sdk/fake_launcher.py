"""A fake pai-launch control socket for the SDK's tests."""

import os
import socket
import threading
from typing import Callable, List

# pai-launch's limit on a request line, newline excluded (launcher/supervisor/control_socket.h).
MAX_LINE_BYTES = 4096


class FakeLauncher:
    """A Unix socket server in a thread. Records each request line (as bytes, in
    `raw_lines`) before answering it with `reply(line)`, "ok" by default; answers nothing
    while `silent`. Like pai-launch, answers a line longer than MAX_LINE_BYTES with an
    error and closes that connection.
    """

    def __init__(self, directory: str) -> None:
        self.path = os.path.join(directory, "control.sock")
        self.raw_lines: List[bytes] = []
        self.reply: Callable[[str], str] = lambda line: "ok"
        self.silent = False
        #: Close each connection after answering its first request.
        self.drop_after_reply = False
        self.connections = 0
        self._clients: List[socket.socket] = []
        self._lock = threading.Lock()
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(self.path)
        self._listener.listen(16)
        self._threads = [threading.Thread(target=self._accept, daemon=True)]
        self._threads[0].start()

    @property
    def lines(self) -> List[str]:
        """The request lines received so far, decoded."""
        with self._lock:
            return [line.decode("utf-8") for line in self.raw_lines]

    def close(self) -> None:
        """Stops serving, as a launcher that went away: closes every connection and
        removes the socket file."""
        for sock in [self._listener] + self._clients:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
        if os.path.exists(self.path):
            os.unlink(self.path)
        for thread in self._threads:
            thread.join(timeout=5)

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                self.connections += 1
                self._clients.append(client)
            thread = threading.Thread(target=self._serve, args=(client,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, client: socket.socket) -> None:
        try:
            self._answer(client)
        except OSError:
            pass  # the client went away, or close() shut the connection
        client.close()

    def _answer(self, client: socket.socket) -> None:
        pending = b""
        while True:
            chunk = client.recv(8192)
            if not chunk:
                return
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                with self._lock:
                    self.raw_lines.append(line)
                if len(line) > MAX_LINE_BYTES:
                    client.sendall(b"error line too long\n")
                    return
                if self.silent:
                    continue
                client.sendall(self.reply(line.decode("utf-8")).encode("utf-8") + b"\n")
                if self.drop_after_reply:
                    return
