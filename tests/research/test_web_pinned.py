"""runtime/research/tools/web.py, pinned: what the ``web`` tool sends, what it refuses, and exactly how.

``WebTool`` is called in process against a local ``http.server`` on 127.0.0.1 (port 0, daemon
thread) that records every request it sees (path, query, headers) and answers what the test tells
it to. Each test checks one rule of the sandbox with exact values and messages: the request path
under the configured endpoint, ``Accept-Encoding: identity``, a compressed answer refused, no
redirect followed, https endpoints accepted, and the transport timeout derived from the policy
table. Found by mutation testing: the CLI tests in test_web.py see only the stop reason.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import yaml

from rcs_contracts.generated.research.errors import InvalidInputError, SandboxViolationError, ToolResultError
from rcs_contracts.runtime.research.tools import web
from rcs_contracts.runtime.research.tools.web import TRANSPORT_TIMEOUT_S, WebTool
from tests.research.search_server import Handler, Responder, SearchServer, send_bytes, start_server, stop_server

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas" / "research"
POLICY: dict[str, Any] = yaml.safe_load((SCHEMAS / "policy.yaml").read_text(encoding="utf-8"))
MESSAGES: dict[str, str] = {
    c["code"]: c["message"] for c in yaml.safe_load((SCHEMAS / "errors.yaml").read_text(encoding="utf-8"))["codes"]
}

RESULTS = [
    {"url": "https://example.org/bm25", "title": "BM25", "content": "BM25 saturates term frequency.", "engine": "ddg"},
]
ITEMS = [
    {
        "locator": "https://example.org/bm25",
        "content": "BM25 saturates term frequency.",
        "title": "BM25",
        "metadata": {"engine": "ddg"},
    }
]
GOOD = json.dumps({"results": RESULTS}).encode("utf-8")


@pytest.fixture(scope="module")
def running() -> Iterator[SearchServer]:
    state = start_server()
    try:
        yield state
    finally:
        stop_server(state)


@pytest.fixture
def server(running: SearchServer) -> SearchServer:
    """The module's server, answering GOOD and with no request seen yet."""
    running.respond = lambda h: send_bytes(h, GOOD)
    running.seen.clear()
    return running


def test_an_answer_dripping_in_is_given_up_when_the_transport_timeout_has_passed_in_all(
    server: SearchServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each read comes in time (a byte every 20 ms), so only a deadline on the whole answer ends the
    # call: without one, an abandoned call's thread and socket would live for hours.
    monkeypatch.setattr(web, "TRANSPORT_TIMEOUT_S", 0.3)

    def drip(handler: Handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        while not server.release.is_set():
            handler.wfile.write(b"1\r\n \r\n")
            handler.wfile.flush()
            time.sleep(0.02)

    server.respond = drip
    server.release.clear()
    try:
        with pytest.raises(ToolResultError) as caught:
            WebTool(server.url).search("q", 5)
    finally:
        server.release.set()
    assert caught.value.code == "WEB_ANSWER_TOO_SLOW"
    assert caught.value.params == {"tool": "web", "seconds": 0.3}
    assert str(caught.value) == "the web tool got an answer it cannot read: still arriving after 0.3 s"


def web_answer_compressed(encoding: str) -> str:
    return MESSAGES["WEB_ANSWER_COMPRESSED"].format(tool="web", encoding=encoding)


# --- the transport timeout ------------------------------------------------------------------------------


def test_transport_timeout_is_the_longest_per_call_timeout_in_seconds_plus_one() -> None:
    longest_ms = max(cap["per_call_timeout_ms"] for tier in POLICY["caps"].values() for cap in tier.values())
    assert longest_ms == 8000
    assert TRANSPORT_TIMEOUT_S == longest_ms / 1000 + 1.0 == 9.0


def test_client_uses_the_transport_timeout_and_follows_no_redirect(
    server: SearchServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[dict[str, Any]] = []
    real = httpx.Client

    def client(**kwargs: Any) -> httpx.Client:
        made.append(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(httpx, "Client", client)
    assert WebTool(server.url).search("BM25", 5) == ITEMS
    assert made == [{"follow_redirects": False, "timeout": 9.0, "trust_env": False}]


# --- the endpoint: scheme and path ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("endpoint", "origin", "stored"),
    [
        ("https://search.example", ("https", "search.example", None), "https://search.example"),
        ("https://search.example:8443/searx/", ("https", "search.example", 8443), "https://search.example:8443/searx"),
        ("http://search.example:8080/", ("http", "search.example", 8080), "http://search.example:8080"),
        ("http://search.example/X", ("http", "search.example", None), "http://search.example/X"),
        ("http://search.example/X/", ("http", "search.example", None), "http://search.example/X"),
    ],
)
def test_endpoint_origin_and_trailing_slash(endpoint: str, origin: tuple[str, str, int | None], stored: str) -> None:
    tool = WebTool(endpoint)
    assert tool.origin == origin
    assert tool.endpoint == stored


@pytest.mark.parametrize("endpoint", ["ftp://search.example", "httpsX://search.example", "https://", "search.example"])
def test_endpoint_that_is_not_http_or_https_is_refused(endpoint: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        WebTool(endpoint)
    assert str(caught.value) == MESSAGES["WEB_ENDPOINT_INVALID"].format(url=endpoint)
    assert str(caught.value) == f"--web {endpoint}: not an http:// or https:// URL with a host"


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://[::1",  # urlsplit raises on an unclosed IPv6 bracket
        "https://[search.example/",
        "http://search.example:99999/",  # a port out of range, not a number, or 0
        "https://search.example:0",
        "http://search.example:abc/",
        "http://h:-1",
    ],
)
def test_endpoint_that_does_not_parse_or_has_no_usable_port_is_refused(endpoint: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        WebTool(endpoint)
    assert caught.value.code == "WEB_ENDPOINT_INVALID"
    assert str(caught.value) == f"--web {endpoint}: not an http:// or https:// URL with a host"


@pytest.mark.parametrize("endpoint", ["http://search.example:1/", "https://search.example:65535", "http://[::1]:8/"])
def test_endpoint_ports_at_the_edges_are_kept(endpoint: str) -> None:
    origin = WebTool(endpoint).origin
    assert origin[2] == int(endpoint.rstrip("/").rsplit(":", 1)[1])


@pytest.mark.parametrize(
    ("suffix", "path"),
    [("", "/search"), ("/", "/search"), ("/search", "/search"), ("/X", "/X/search"), ("/searX/", "/searX/search")],
)
def test_request_path_under_the_endpoint(server: SearchServer, suffix: str, path: str) -> None:
    assert WebTool(server.url + suffix).search("BM25 term frequency", 5) == ITEMS
    assert [(r.path, r.query) for r in server.seen] == [(path, {"q": ["BM25 term frequency"], "format": ["json"]})]


# --- no compression -------------------------------------------------------------------------------------


def test_request_asks_for_no_compression(server: SearchServer) -> None:
    WebTool(server.url).search("BM25", 5)
    (request,) = server.seen
    assert request.headers.get_all("Accept-Encoding") == ["identity"]
    assert [name for name in request.headers if name.lower().startswith("accept-encoding")] == ["Accept-Encoding"]


@pytest.mark.parametrize(("sent", "named"), [("gzip", "gzip"), (" GZip ", "gzip"), ("deflate", "deflate")])
def test_compressed_answer_is_refused(server: SearchServer, sent: str, named: str) -> None:
    server.respond = lambda h: send_bytes(h, gzip.compress(GOOD), Content_Encoding=sent)
    with pytest.raises(ToolResultError) as caught:
        WebTool(server.url).search("BM25", 5)
    assert str(caught.value) == web_answer_compressed(named)
    assert str(caught.value) == (
        f"the web tool got an answer it cannot read: a compressed answer ({named}) was not asked for"
    )
    assert caught.value.code == "WEB_ANSWER_COMPRESSED"
    assert caught.value.params == {"tool": "web", "encoding": named}


@pytest.mark.parametrize("sent", ["identity", " Identity ", ""])
def test_identity_encoding_is_read(server: SearchServer, sent: str) -> None:
    server.respond = lambda h: send_bytes(h, GOOD, Content_Encoding=sent)
    assert WebTool(server.url).search("BM25", 5) == ITEMS


# --- no redirect ----------------------------------------------------------------------------------------


def redirect(target: str) -> Responder:
    def respond(handler: Handler) -> None:
        if urlsplit(handler.path).path == "/search":
            send_bytes(handler, b"", 302, Location=target)
        else:
            send_bytes(handler, GOOD)

    return respond


def test_redirect_on_the_same_origin_is_not_followed(server: SearchServer) -> None:
    server.respond = redirect(server.url + "/elsewhere?q=x&format=json")
    with pytest.raises(SandboxViolationError) as caught:
        WebTool(server.url).search("BM25", 5)
    assert str(caught.value) == MESSAGES["SANDBOX_FORBIDDEN_HOST"].format(
        tool="web", allowed="127.0.0.1", host="127.0.0.1"
    )
    assert [r.path for r in server.seen] == ["/search"]


def test_redirect_to_another_host_names_it(server: SearchServer) -> None:
    port = urlsplit(server.url).port
    server.respond = redirect(f"http://localhost:{port}/elsewhere")
    with pytest.raises(SandboxViolationError) as caught:
        WebTool(server.url).search("BM25", 5)
    assert str(caught.value) == "the web tool may reach only 127.0.0.1, not localhost"
    assert [r.path for r in server.seen] == ["/search"]


def test_redirect_to_a_location_that_is_no_url_names_the_location(server: SearchServer) -> None:
    server.respond = redirect("ftp://files.example/x")
    with pytest.raises(SandboxViolationError) as caught:
        WebTool(server.url).search("BM25", 5)
    assert str(caught.value) == "the web tool may reach only 127.0.0.1, not ftp://files.example/x"


# --- answers that are not search results ----------------------------------------------------------------


def test_an_http_error_status_is_named(server: SearchServer) -> None:
    server.respond = lambda h: send_bytes(h, GOOD, 503)
    with pytest.raises(ToolResultError) as caught:
        WebTool(server.url).search("BM25", 5)
    assert str(caught.value) == "the web tool got an answer it cannot read: HTTP status 503"
    assert caught.value.code == "WEB_ANSWER_STATUS"
    assert caught.value.params == {"tool": "web", "status": 503}


def test_a_result_that_is_not_an_object_is_named(server: SearchServer) -> None:
    server.respond = lambda h: send_bytes(h, json.dumps({"results": [RESULTS[0], 7]}).encode("utf-8"))
    with pytest.raises(ToolResultError) as caught:
        WebTool(server.url).search("BM25", 5)
    assert str(caught.value) == "the web tool got an answer it cannot read: a result is not an object"
    assert caught.value.code == "WEB_RESULT_NOT_OBJECT"


@pytest.mark.parametrize("body", [b'{"results": [', b"[" * 10_000 + b"]" * 10_000, b'{"n": 1e999}'])
def test_an_answer_that_is_not_json_names_the_readers_error_class(server: SearchServer, body: bytes) -> None:
    # Truncated, nested past the reader's depth, a number that overflows: the reader's one error class.
    server.respond = lambda h: send_bytes(h, body)
    with pytest.raises(ToolResultError) as caught:
        WebTool(server.url).search("BM25", 5)
    assert str(caught.value) == "the web tool got an answer it cannot read: not JSON (JsonTextError)"
    assert caught.value.code == "WEB_ANSWER_NOT_JSON"


@pytest.mark.parametrize("body", [{"results": {"url": "https://example.org"}}, {"answers": []}, [1, 2]])
def test_an_answer_without_a_results_list_is_named(server: SearchServer, body: object) -> None:
    server.respond = lambda h: send_bytes(h, json.dumps(body).encode("utf-8"))
    with pytest.raises(ToolResultError) as caught:
        WebTool(server.url).search("BM25", 5)
    assert str(caught.value) == "the web tool got an answer it cannot read: no 'results' list"
    assert caught.value.code == "WEB_ANSWER_NO_RESULTS"
