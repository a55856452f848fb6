"""The ``web`` tool: a search endpoint speaking SearxNG's JSON API (``/search?q=...&format=json``).

The endpoint is configured (``rcs research run --web URL``), never built in. The sandbox: the tool
talks only to the endpoint's own scheme, host and port, follows no redirect, and reads at most the
hard size limit of bytes (more is a sandbox violation, and the rest is never read). An answer it
cannot read (not JSON, not SearxNG's shape, an HTTP error status) is a ToolResultError, which the
adapter records as VALIDATION_FAIL; a connection failure propagates as itself (INTERNAL_INCONSISTENCY).
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit

import httpx

from rcs_contracts.engine import json_text
from rcs_contracts.generated.research import errors as E
from rcs_contracts.generated.research.policy import CAPS, RESPONSE_BYTES

NAME = "web"
# How long the tool itself waits for the endpoint, in all (each read, and the whole answer): the
# adapter abandons a call at its per-call deadline anyway, so this bounds the thread and the socket
# a late call leaves behind, even when the endpoint drips a byte at a time (the longest per-call
# timeout of the table, plus a second).
TRANSPORT_TIMEOUT_S = max(c.per_call_timeout_ms for c in CAPS.values()) / 1000 + 1.0


def _origin(url: str) -> tuple[str, str, int | None] | None:
    """(scheme, host, port) of an http(s) URL with a host and a usable port (1-65535), else None."""
    try:
        parts = urlsplit(url)
        port = parts.port  # ValueError when it is not a number or out of range
    except ValueError:  # also an unclosed IPv6 bracket: "http://[::1"
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname or port == 0:
        return None
    return parts.scheme, parts.hostname, port


class WebTool:
    """Query a SearxNG-compatible endpoint; ``search`` is called only by the adapter."""

    name = NAME

    def __init__(self, endpoint: str, max_bytes: int = RESPONSE_BYTES) -> None:
        origin = _origin(endpoint)
        if origin is None:
            raise E.web_endpoint_invalid(url=endpoint)
        self.endpoint = endpoint.rstrip("/")
        self.origin = origin
        self.max_bytes = max_bytes

    def _url(self) -> str:
        return self.endpoint if self.endpoint.endswith("/search") else f"{self.endpoint}/search"

    def search(self, query: str, limit: int) -> list[dict[str, Any]]:
        """The endpoint's first ``limit`` results (its own ranking) for ``query``."""
        url = self._url()
        deadline = time.monotonic() + TRANSPORT_TIMEOUT_S
        client = httpx.Client(follow_redirects=False, timeout=TRANSPORT_TIMEOUT_S, trust_env=False)
        # No compression: the byte limit is on what is read, and a compressed answer of a few
        # kilobytes can inflate to gigabytes before any limit sees it.
        headers = {"Accept-Encoding": "identity"}
        with client, client.stream("GET", url, params={"q": query, "format": "json"}, headers=headers) as response:
            if response.is_redirect:
                target = _origin(str(response.next_request.url)) if response.next_request else None
                # httpx calls an answer a redirect only when it has a Location header.
                host = target[1] if target else response.headers["location"]
                raise E.sandbox_forbidden_host(tool=NAME, allowed=self.origin[1], host=str(host))
            encoding = response.headers.get("content-encoding", "identity").strip().lower()
            if encoding not in ("", "identity"):
                raise E.web_answer_compressed(tool=NAME, encoding=encoding)
            body = bytearray()
            for chunk in response.iter_raw():
                body.extend(chunk)
                if len(body) > self.max_bytes:
                    raise E.sandbox_output_too_large(tool=NAME, limit=self.max_bytes)
                if time.monotonic() > deadline:
                    raise E.web_answer_too_slow(tool=NAME, seconds=TRANSPORT_TIMEOUT_S)
            if response.status_code != 200:
                raise E.web_answer_status(tool=NAME, status=response.status_code)
        try:
            # The same JSON reader as every rcs verdict: bounded nesting, no NaN, one BOM allowed.
            data = json_text.parse(bytes(body))
        except (json_text.JsonTextError, RecursionError) as exc:
            raise E.web_answer_not_json(tool=NAME, reason=exc.__class__.__name__) from None
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, list):
            raise E.web_answer_no_results(tool=NAME)
        items = []
        for result in results:
            if not isinstance(result, dict):
                raise E.web_result_not_object(tool=NAME)
            content, locator = result.get("content"), result.get("url")
            if not isinstance(locator, str) or not isinstance(content, str) or not content.strip():
                continue  # a result without text has nothing to quote
            item: dict[str, Any] = {"locator": locator, "content": content}
            if isinstance(result.get("title"), str):
                item["title"] = result["title"]
            if isinstance(result.get("engine"), str):
                item["metadata"] = {"engine": result["engine"]}
            items.append(item)
            if len(items) == limit:
                break
        return items
