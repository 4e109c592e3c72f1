"""A real ``polar serve`` process for the end-to-end tests: started on a fixed port and database, killed with -9, restarted."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import threading
from typing import List, Optional


class ServeProcess:
    """``<command> serve --port <port> --db <db> ...``; ``url`` stays the same across restarts."""

    def __init__(self, command: List[str], *, db: str, log: str, token: str, upstream: str, extra: Optional[List[str]] = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self._argv = [*command, "serve", "--port", str(self.port), "--upstream", upstream, "--db", db, "--token", token, *(extra or [])]
        self._process: Optional[subprocess.Popen[bytes]] = None
        self.starts = 0

    def start(self, timeout: float = 120.0) -> None:
        """Starts the server and returns once it listens (a RuntimeError with its log when it does not)."""
        with open(self.log, "ab") as log:
            process = subprocess.Popen(self._argv, stdout=subprocess.PIPE, stderr=log, env=os.environ.copy())
        self._process = process
        listening = threading.Event()

        def read_stdout() -> None:
            assert process.stdout is not None
            for line in process.stdout:  # drained to the end, so the pipe never fills
                if re.search(rb"listening at http://", line):
                    listening.set()

        threading.Thread(target=read_stdout, daemon=True).start()
        if not listening.wait(timeout) or process.poll() is not None:
            process.kill()
            raise RuntimeError(f"polar serve did not start: {self.tail()}")
        self.starts += 1

    def kill9(self) -> None:
        """SIGKILL: no shutdown of any kind (batches, sessions and containers are left as they are)."""
        assert self._process is not None
        self._process.send_signal(signal.SIGKILL)
        self._process.wait()

    def stop(self) -> None:
        """SIGTERM (the server stops its batches and removes their containers), SIGKILL after 60 s."""
        if self._process is None or self._process.poll() is not None:
            return
        self._process.terminate()
        try:
            self._process.wait(60)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()

    def tail(self, chars: int = 3000) -> str:
        with open(self.log, "rb") as log:
            return log.read().decode("utf-8", errors="replace")[-chars:]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port
