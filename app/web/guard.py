"""What every response and request goes through: security headers, the cross-site check,
the body size limit, strict JSON bodies, server timing and each client's turns. Plain ASGI, so it costs little on
every click."""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from html import escape
from urllib.parse import urlsplit

from app.core.addresses import address_key
from app.core.languages import N_, Text, lazy_gettext, lazy_ngettext, speaking

logger = logging.getLogger("uvicorn.error")

UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
API_PREFIX = "/api/"


def is_api_path(path: str) -> bool:
    """Whether a path is the JSON API's: its refusals are JSON, the pages' are HTML."""
    return path.startswith(API_PREFIX)


# No inline scripts and no eval (htmx's eval is off too: see the page's
# htmx-config); inline style attributes are allowed for the board's size (and
# Swagger UI's). /docs is held to the same policy: its vendored Swagger UI is
# started by a file, not an inline script.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", CSP.encode()),
]
UNEXPECTED = N_(
    "The server failed while answering this request; the error is in its log. Reload to see what is stored."
)


async def _refuse(scope, send, status: int, words: Text) -> None:
    """A refusal the page can show (htmx swaps 4xx into the status panel only for 409/422, so
    HTML callers get a short page) and scripts can read (JSON: its detail in English, its message in the
    request's language)."""
    message = str(words)
    if is_api_path(scope["path"]):
        body, kind = json.dumps({"detail": words.in_english(), "message": message}).encode(), b"application/json"
    else:
        language = speaking().language
        paragraph = f'<p id="message" class="message" role="alert">{escape(message)}</p>'
        head = f'<!doctype html><html lang="{language.code}" dir="{language.direction}"><title>Kaboom</title>'
        body = f"{head}{paragraph}".encode()
        kind = b"text/html; charset=utf-8"
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


class Guard:
    """The outermost of the app's middlewares but compression: whatever answers inside it, the app,
    a refusal here or an exception nothing else caught, goes out with the security headers."""

    def __init__(self, app, max_body_bytes: int):
        self.app = app
        self.max_body_bytes = max_body_bytes

    def body_too_large(self) -> Text:
        return lazy_ngettext(
            "The request body is larger than %(num)s byte.",
            "The request body is larger than %(num)s bytes.",
            self.max_body_bytes,
        )

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        response_started = False
        too_large = False

        async def secured_send(message):
            nonlocal response_started
            if message["type"] == "http.response.start":
                response_started = True
                duration = (time.perf_counter() - started) * 1000
                message["headers"] = [
                    *message.get("headers", []),
                    *SECURITY_HEADERS,
                    (b"server-timing", f"app;dur={duration:.2f}".encode()),
                ]
            await send(message)

        async def app_send(message):
            # After a body cut off for its size the app's answer is dropped: the 413 below says why.
            if not too_large:
                await secured_send(message)

        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
        if scope["method"] in UNSAFE_METHODS and _cross_site(headers):
            await _refuse(
                scope, secured_send, 403, lazy_gettext("Cross-site requests are refused: play from Kaboom's own pages.")
            )
            return
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_body_bytes:
            await _refuse(scope, secured_send, 413, self.body_too_large())
            return
        received = 0

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

        try:
            await self.app(scope, limited_receive, app_send)
        except Exception:
            if response_started:
                raise
            if not too_large:
                # Starlette's last-resort 500 is sent from outside every middleware, bare, and
                # uvicorn then drops the connection; this one carries the headers and keeps it,
                # and the traceback goes where uvicorn's would.
                logger.exception("Exception in ASGI application, answered with a 500")
                await _refuse(scope, secured_send, 500, lazy_gettext(UNEXPECTED))
                return
            # Otherwise the app gave up on the cut-off body; the refusal below says why.
        if too_large and not response_started:
            await _refuse(scope, secured_send, 413, self.body_too_large())


@dataclass
class _Turns:
    """One client address's requests in one worker: how many are being worked on, and those waiting, in order."""

    working: int = 0
    waiting: deque[asyncio.Future[None]] = field(default_factory=deque)


class ClientTurns:
    """A client address has at most `per_client` requests worked on at once in this worker (the event loop and
    the game threads are shared by everyone): its others wait for their turn, in order, and past `waiting` of them
    a request is refused (429) with a message. A flood from one address thus queues behind itself, and another
    player's request shares the worker with at most `per_client` of the flood's (bench/hammer.py). A request's
    turn lasts until its answer is sent, or until a live stream starts (a stream only waits after that, in its
    own caps: app.service.changes.StreamSlots). Inside Guard, so that a refusal carries its headers (and Server-Timing
    counts the wait); used from the event loop only."""

    def __init__(self, app, per_client: int, waiting: int):
        self.app = app
        self.per_client = per_client
        self.waiting = waiting
        self._clients: dict[str, _Turns] = {}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        # The client as the limits count it (app.web.deps.client_address): a proxy named in the settings has
        # already put the client it speaks for in the scope.
        client = address_key(scope["client"][0]) if scope.get("client") else "unknown"
        turns = self._clients.setdefault(client, _Turns())
        if turns.working < self.per_client:
            turns.working += 1
        elif len(turns.waiting) >= self.waiting:
            await _refuse(scope, send, 429, self.refusal())
            return
        else:
            turn = asyncio.get_running_loop().create_future()
            turns.waiting.append(turn)
            try:
                await turn
            except asyncio.CancelledError:
                if turn.cancelled():
                    turns.waiting.remove(turn)
                else:  # given its turn as it was cancelled: the next one takes it
                    self._pass_on(client)
                raise
        ended = False

        def end_turn() -> None:
            nonlocal ended
            if not ended:
                ended = True
                self._pass_on(client)

        async def send_in_turn(message):
            if message["type"] == "http.response.start" and _is_event_stream(message.get("headers", [])):
                end_turn()
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                end_turn()

        try:
            await self.app(scope, receive, send_in_turn)
        finally:
            end_turn()

    def refusal(self) -> Text:
        return lazy_gettext(
            "Too many requests at once from your address: %(at_once)s are worked on at a time and %(waiting)s more "
            "may wait their turn. Wait for the answers before asking again.",
            at_once=self.per_client,
            waiting=self.waiting,
        )

    def _pass_on(self, client: str) -> None:
        """A turn of `client`'s ended: its next waiting request takes it, or it has one fewer."""
        turns = self._clients[client]
        while turns.waiting:
            turn = turns.waiting.popleft()
            if not turn.done():
                turn.set_result(None)
                return
        turns.working -= 1
        if not turns.working:
            del self._clients[client]


def _is_event_stream(headers) -> bool:
    return any(
        name.lower() == b"content-type" and value.lower().startswith(b"text/event-stream") for name, value in headers
    )


class StrictJSON:
    """Refuses a JSON body that JSON (RFC 8259) does not allow, before anything parses it.

    Starlette's Request.json() is Python's json.loads, which takes NaN, Infinity, numbers that
    overflow to infinity and lone surrogates: none of them can be sent back in an answer, so
    each turned the 422 that names the field into a 500. Sits inside Guard, which limits the
    body this reads whole and adds the headers to the refusal."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not _declares_json(scope["headers"]):
            await self.app(scope, receive, send)
            return
        body = b""
        while True:
            message = await receive()
            if message["type"] != "http.request":
                # Cut off for its size, or the client left: the app meets the same end.
                await self.app(scope, _replay(message, receive), send)
                return
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        if body:
            try:
                strict_json(body)
            except ValueError as error:
                await _refuse(
                    scope,
                    send,
                    422,
                    lazy_gettext("The request body is not valid JSON: %(error)s. Nothing was changed.", error=error),
                )
                return
        await self.app(scope, _replay({"type": "http.request", "body": body, "more_body": False}, receive), send)


def _replay(first: dict, receive):
    """A receive that gives `first` and then whatever comes next (a disconnect)."""
    pending = [first]

    async def replayed():
        return pending.pop() if pending else await receive()

    return replayed


def _declares_json(headers) -> bool:
    """Whether the body is JSON by its content type, as FastAPI decides before parsing it."""
    for name, value in headers:
        if name.lower() == b"content-type":
            kind = value.decode("latin-1").split(";", 1)[0].strip().lower()
            return kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json"))
    return False


SURROGATE = re.compile("[\ud800-\udfff]")
MAX_DIGITS = len(str(int(sys.float_info.max)))


def strict_json(body: bytes):
    """The body as JSON, or a ValueError saying in a few words what is not JSON in it."""

    def no_constants(name: str):
        raise ValueError(f"{name} is not a number JSON allows (numbers must be finite)")

    def finite(text: str) -> float:
        number = float(text)
        if math.isinf(number):
            raise ValueError(f"{_shortened(text)} is out of range for a number")
        return number

    def whole(text: str) -> int:
        # Past a double's range, as for other numbers (and long before Python's limit on digits).
        if len(text.lstrip("-")) > MAX_DIGITS:
            raise ValueError(f"{_shortened(text)} is out of range for a number")
        return int(text)

    try:
        value = json.loads(body.decode("utf-8"), parse_constant=no_constants, parse_float=finite, parse_int=whole)
        surrogate = next(filter(None, map(SURROGATE.search, _strings(value))), None)
    except UnicodeDecodeError:
        raise ValueError("it is not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"{error.msg} at line {error.lineno}, column {error.colno}") from None
    except RecursionError:
        raise ValueError("it is nested too deeply") from None
    if surrogate:
        # Pairs were joined into one character by the parser: a surrogate left is half of one.
        raise ValueError(f"a string holds a lone surrogate (\\u{ord(surrogate.group()):04x}), which is not a character")
    return value


def _shortened(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:20]}…"


def _strings(value):
    """Every string in a parsed JSON value, object keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


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
