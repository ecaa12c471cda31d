"""A TCP server that accepts connections and never answers: a source that hangs."""

from __future__ import annotations

import socket
import threading


class HangingServer:
    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.conns: list[socket.socket] = []
        self.alive = True
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while self.alive:
            try:
                conn, _ = self.sock.accept()
                self.conns.append(conn)
            except OSError:
                return

    def close(self) -> None:
        self.alive = False
        for c in self.conns:
            c.close()
        self.sock.close()
