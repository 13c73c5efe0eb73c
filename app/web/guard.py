"""What every response and request goes through: security headers, the cross-site check,
the body size limit and server timing. Plain ASGI, so it costs little on every click."""

from __future__ import annotations

import json
import time
from urllib.parse import urlsplit

UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
API_PREFIX = "/api/"


def is_api_path(path: str) -> bool:
    """Whether a path is the JSON API's: its refusals are JSON, the pages' are HTML."""
    return path.startswith(API_PREFIX)

# No inline scripts and no eval (htmx's eval is off too: see the page's
# htmx-config); inline style attributes are allowed for the board's size.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
# FastAPI's /docs page loads Swagger UI from a CDN and starts it with an inline script.
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; img-src 'self' data: https://fastapi.tiangolo.com; "
    "frame-ancestors 'none'"
)
HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


async def _refuse(scope, send, status: int, message: str) -> None:
    """A refusal the page can show (htmx swaps 4xx into the status panel only for 409/422, so
    HTML callers get a short page) and scripts can read (JSON)."""
    if is_api_path(scope["path"]):
        body, kind = json.dumps({"detail": message}).encode(), b"application/json"
    else:
        body = f'<!doctype html><title>Kaboom</title><p id="message" class="message" role="alert">{message}</p>'.encode()
        kind = b"text/html; charset=utf-8"
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode()), *HEADERS],
        }
    )
    await send({"type": "http.response.body", "body": body})


class Guard:
    def __init__(self, app, max_body_bytes: int):
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
        if scope["method"] in UNSAFE_METHODS and _cross_site(headers):
            await _refuse(scope, send, 403, "Cross-site requests are refused: play from Kaboom's own pages.")
            return
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_body_bytes:
            await _refuse(scope, send, 413, f"The request body is larger than {self.max_body_bytes} bytes.")
            return
        received = 0
        too_large = False

        async def limited_receive():
            # Bodies sent in chunks, without a length, are counted as they come.
            nonlocal received, too_large
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_bytes:
                    too_large = True
                    return {"type": "http.disconnect"}
            return message

        policy = (DOCS_CSP if scope["path"] in ("/docs", "/redoc") else CSP).encode()
        started_response = False

        async def guarded_send(message):
            nonlocal started_response
            if message["type"] == "http.response.start":
                if too_large:
                    return
                started_response = True
                duration = (time.perf_counter() - started) * 1000
                message["headers"] = [
                    *message.get("headers", []),
                    *HEADERS,
                    (b"content-security-policy", policy),
                    (b"server-timing", f"app;dur={duration:.2f}".encode()),
                ]
            elif too_large:
                return
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except Exception:
            # The app gave up on the cut-off body; the refusal below says why.
            if not too_large:
                raise
        if too_large and not started_response:
            await _refuse(scope, send, 413, f"The request body is larger than {self.max_body_bytes} bytes.")


def _cross_site(headers: dict[str, str]) -> bool:
    """Whether a browser says this request comes from another site.

    Scripts (curl, bots) send neither header and pass; browsers send
    Sec-Fetch-Site, older ones at least Origin, on every unsafe request.
    """
    fetch_site = headers.get("sec-fetch-site")
    if fetch_site is not None:
        return fetch_site not in ("same-origin", "none")
    origin = headers.get("origin")
    if origin is None:
        return False
    if origin == "null":
        return True
    return urlsplit(origin).netloc != headers.get("host", "")
