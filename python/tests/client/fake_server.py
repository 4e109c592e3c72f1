"""A scripted HTTP server on a real socket (127.0.0.1, a free port) for the client's tests.

Each request is recorded and handed to ``script(request, reply)``; the script answers through ``reply``:
JSON, NDJSON/SSE chunks (optionally cut off mid-body), or a connection reset with no answer at all.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence
from urllib.parse import parse_qs, urlsplit


@dataclass
class Request:
    method: str
    path: str
    query: Dict[str, str]
    headers: Dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8")) if self.body else None


@dataclass
class Reply:
    """What a script uses to answer one request."""

    handler: BaseHTTPRequestHandler
    done: bool = field(default=False)

    def json(self, status: int, value: Any, headers: Optional[Mapping[str, str]] = None) -> None:
        body = json.dumps(value).encode("utf-8")
        self.raw(status, body, {"Content-Type": "application/json", **(headers or {})})

    def raw(self, status: int, body: bytes, headers: Optional[Mapping[str, str]] = None) -> None:
        h = self.handler
        h.send_response(status)
        for name, value in (headers or {}).items():
            h.send_header(name, value)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)
        h.wfile.flush()
        self.done = True

    def chunks(self, status: int, parts: Sequence[bytes], headers: Optional[Mapping[str, str]] = None, *, cut: bool = False, between: Optional[Callable[[int], None]] = None) -> None:
        """A chunked body; ``cut`` resets the connection instead of sending the last chunk."""
        h = self.handler
        h.send_response(status)
        for name, value in (headers or {}).items():
            h.send_header(name, value)
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        for index, part in enumerate(parts):
            if between is not None:
                between(index)
            h.wfile.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
            h.wfile.flush()
        if cut:
            self.reset()
            return
        h.wfile.write(b"0\r\n\r\n")
        h.wfile.flush()
        self.done = True

    def reset(self) -> None:
        """Close the connection with a TCP reset (SO_LINGER 0), answering nothing."""
        sock: socket.socket = self.handler.connection
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
        self.handler.close_connection = True
        self.done = True


Script = Callable[[Request, Reply], None]


class FakeServer:
    """Serves ``script`` until :meth:`close`; ``requests`` lists what arrived."""

    def __init__(self, script: Script, port: int = 0) -> None:
        self.requests: List[Request] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                query = {key: values[-1] for key, values in parse_qs(parts.query, keep_blank_values=True).items()}
                request = Request(self.command, parts.path, query, {k.lower(): v for k, v in self.headers.items()}, body)
                with outer._lock:
                    outer.requests.append(request)
                reply = Reply(self)
                script(request, reply)
                self.close_connection = True

            do_GET = do_POST = do_DELETE = _handle

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that gave up (broken pipe, reset) is what these tests provoke

        self._server = Server(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def free_port() -> int:
    """A port nothing listens on (right now)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def error_body(error_type: str, message: str, hint: Optional[str] = None) -> Dict[str, Any]:
    error: Dict[str, Any] = {"type": error_type, "message": message}
    if hint is not None:
        error["hint"] = hint
    return {"error": error}
