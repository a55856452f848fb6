"""A local search endpoint for the ``web`` tool's tests: a ThreadingHTTPServer on 127.0.0.1 (port
0, daemon threads) that records every request it sees (path, query, headers) and answers what the
test tells it to (``respond``). Shared by test_web.py (the CLI, end to end) and test_web_pinned.py
(the tool in process)."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Seen:
    """One request: its path, its query (every value of each name) and its headers."""

    path: str
    query: dict[str, list[str]]
    headers: Message


Responder = Callable[["Handler"], None]


def send_bytes(
    handler: BaseHTTPRequestHandler,
    body: bytes,
    status: int = 200,
    content_type: str = "application/json",
    **headers: str,
) -> None:
    """Answer ``body`` whole, with its length and any other headers (``Content_Encoding=``: "-" for "_")."""
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    for name, value in headers.items():
        handler.send_header(name.replace("_", "-"), value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def send_json(handler: BaseHTTPRequestHandler, data: Any, status: int = 200) -> None:
    """Answer ``data`` as JSON."""
    send_bytes(handler, json.dumps(data).encode("utf-8"), status)


@dataclass
class SearchServer:
    """What the endpoint answers (``respond``), and every request it saw."""

    respond: Responder = field(default=lambda h: send_json(h, {"results": []}))
    seen: list[Seen] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)  # wakes a handler "thinking"
    started: threading.Event = field(default_factory=threading.Event)  # a request is being answered
    finished: threading.Event = field(default_factory=threading.Event)  # an answer was fully sent
    httpd: ThreadingHTTPServer | None = None
    thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The endpoint's base URL."""
        assert self.httpd is not None
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    server_state: SearchServer  # set on the subclass made for each server
    protocol_version = "HTTP/1.1"

    def handle(self) -> None:
        # The tool may hang up early (a timeout, a size limit, an answer it refused): expected.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            super().handle()

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query, keep_blank_values=True)
        self.server_state.seen.append(Seen(parts.path, query, self.headers))
        self.server_state.started.set()
        self.server_state.respond(self)  # a hang-up raises past this line: not finished
        self.server_state.finished.set()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def start_server() -> SearchServer:
    """A server answering on its own thread until ``stop_server``."""
    state = SearchServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), type("BoundHandler", (Handler,), {"server_state": state}))
    httpd.daemon_threads = True
    state.httpd = httpd
    state.thread = threading.Thread(target=httpd.serve_forever, name="search-server", daemon=True)
    state.thread.start()
    return state


def stop_server(state: SearchServer) -> None:
    """Wake a handler still "thinking", stop serving and close the socket."""
    state.release.set()
    assert state.httpd is not None and state.thread is not None
    state.httpd.shutdown()
    state.httpd.server_close()
    state.thread.join(5)
