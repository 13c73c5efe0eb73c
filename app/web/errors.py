"""One table from exceptions to answers: JSON under /api, the status panel for HTMX, a page otherwise.

Routes raise; nothing else in the web layer catches the rules', the
service's or the store's exceptions.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from app.core.errors import KaboomError
from app.core.game import Busy, Invalid, Refused
from app.core.languages import Text, lazy_gettext
from app.rooms import RoomNotFound
from app.service.changes import StreamsFull, TooManyStreams
from app.service.daily import DailyLimited
from app.service.devices import PlayerLimited
from app.service.games import NoGuessLimited, RateLimited
from app.service.overlays import TooComplex
from app.service.reviews import InPlay
from app.service.rooms import TooManyRooms
from app.store import Conflict, Corrupt, NotFound, StoreUnavailable
from app.web.deps import is_htmx, player_of, wants_json
from app.web.render import blocks, page, page_context
from app.web.views.game_page import game_context

log = logging.getLogger("kaboom")


@dataclass(frozen=True)
class Answer:
    status: int
    message: Callable[[KaboomError], str | Text]
    # How an HTMX request on a game hears of it: "panel" (the message in the
    # status panel; htmx swaps 409 and 422 only, so a panel goes out as one of
    # those), "refresh" (the page reloads), or "page" (htmx leaves the page and
    # kaboom.js says the server could not apply it).
    htmx: str = "page"
    htmx_status: int | None = None
    # Whether the page links back to the game its path names (one the player may open).
    back: bool = False


ANSWERS: dict[type[KaboomError], Answer] = {
    NotFound: Answer(
        404,
        lambda error: lazy_gettext(
            "This game is gone: it was deleted (in another tab, perhaps) or expired, or the link is wrong. "
            "Your games lists those you have; New game starts another."
        ),
    ),
    # The API keeps NotFound's words; the page tells whoever may open the game when its replay opens.
    InPlay: Answer(
        404,
        lambda error: lazy_gettext("This game is still in play: its replay and review open when it ends."),
        back=True,
    ),
    RoomNotFound: Answer(
        404,
        lambda error: lazy_gettext(
            "This room is gone: its last player left, or it expired, or the link is wrong. "
            "New game makes another, with Who plays set to a room."
        ),
    ),
    TooManyRooms: Answer(429, lambda error: error.message),
    DailyLimited: Answer(429, lambda error: error.message),
    PlayerLimited: Answer(429, lambda error: error.message),
    Corrupt: Answer(
        500,
        lambda error: lazy_gettext("This game's stored data is damaged and cannot be played; other games are fine."),
    ),
    Conflict: Answer(
        409,
        lambda error: lazy_gettext(
            "This game changed through another request at the same moment; nothing was applied. Try again."
        ),
        htmx="refresh",
    ),
    TooComplex: Answer(503, lambda error: error.message, htmx="panel", htmx_status=409),
    StoreUnavailable: Answer(503, lambda error: error.message, htmx="panel", htmx_status=409),
    Busy: Answer(503, lambda error: error.message, htmx="panel", htmx_status=409),
    RateLimited: Answer(429, lambda error: error.message),
    # A click on a game: the message goes in its panel.
    NoGuessLimited: Answer(429, lambda error: error.message, htmx="panel", htmx_status=409),
    TooManyStreams: Answer(429, lambda error: error.message),
    StreamsFull: Answer(503, lambda error: error.message),
    # Invalid before Refused: the most specific class that matches answers.
    Invalid: Answer(422, lambda error: error.message, htmx="panel"),
    Refused: Answer(409, lambda error: error.message, htmx="panel"),
    # A domain error without an answer of its own: a fault of the server's, in its own words.
    KaboomError: Answer(500, lambda error: error.message),
}
# The API has said "no such game" since its first release; the page says it as a sentence.
API_MESSAGES: dict[type[KaboomError], str] = {
    NotFound: "no such game",
    InPlay: "no such game",
    RoomNotFound: "no such room",
}


def answer_for(error: KaboomError) -> tuple[type[KaboomError], Answer]:
    for kind in type(error).__mro__:
        if issubclass(kind, KaboomError) and kind in ANSWERS:
            return kind, ANSWERS[kind]
    raise error


async def handle(request: Request, error: Exception) -> Response:
    # Starlette hands a handler any exception; install registers this one for KaboomError alone.
    if not isinstance(error, KaboomError):
        raise error
    kind, answer = answer_for(error)
    words = answer.message(error)
    if kind in (Corrupt, StoreUnavailable):
        # The player's message is general; the log says which game and what is wrong with it.
        log.warning("%s %s answered %d: %s", request.method, request.url.path, answer.status, error)
    # The page's sentence, in the request's language; the API's detail stays English, for scripts to read.
    message = as_sentence(str(words))
    if wants_json(request):
        detail = API_MESSAGES.get(kind) or (words.in_english() if isinstance(words, Text) else words)
        return JSONResponse({"detail": detail, "message": message}, status_code=answer.status)
    game_id = request.path_params.get("game_id")
    if kind is Conflict:
        request.app.state.service.context.forget(game_id or str(error))
    if is_htmx(request) and game_id is not None and answer.htmx != "page":
        if answer.htmx == "refresh":
            return Response(message, status_code=answer.status, headers={"HX-Refresh": "true"}, media_type="text/html")
        service = request.app.state.service
        review, overlay, stale = None, None, False
        shown = getattr(request.state, "page_version", None)
        try:
            # The panel shows no overlay: reading the game is enough, and asks the solver nothing more; but a
            # lost game keeps saying why it was lost (the review is bounded by the request's deadline), and a
            # move refused on a board the page shows behind the game (another player moved on it) is
            # answered with the board as it is, overlays and all.
            game = await service.games.load(game_id, player_of(request))
            stale = shown is not None and shown != str(game.version)
            if (game.status == "lost" or stale) and kind is not StoreUnavailable:
                game, overlay, review = await service.games.look(game_id, player_of(request))
        except (NotFound, Corrupt) as unreadable:
            return await handle(request, unreadable)
        except StoreUnavailable:
            # Not even a read gets through, so no panel: the page says the server could not apply it (kaboom.js).
            return page(request, "home.html", page_context(None, message=message, refused=True), answer.status)
        context = await game_context(
            request,
            service,
            game_id,
            game,
            player_of(request),
            overlay,
            message=message,
            refused=True,
            oob=True,
            review=review,
        )
        # The settings as stored come too: a box ticked for a refused change is unticked again.
        parts = ("panel", "settings", "grid") if stale else ("panel", "settings")
        return blocks(request, context, *parts, status_code=answer.htmx_status or answer.status)
    again = getattr(request.state, "page_again", None)
    if again is not None:  # a route that has a page of its own to say it on (app.web.routes.daily)
        try:
            return await again(message, answer.status)
        except KaboomError:
            pass  # that page cannot be read either: the home page says it
    form = getattr(request.state, "form", None)
    back = f"/games/{game_id}" if answer.back and game_id is not None else None
    context = page_context(None, message=message, refused=True, form=form, back=back)
    return page(request, "home.html", context, status_code=answer.status)


def as_sentence(message: str) -> str:
    """A message as a page shows it: a capital first letter and a full stop (the API keeps its own wording)."""
    message = message[:1].upper() + message[1:]
    return message if message.endswith((".", "!", "?")) else message + "."


async def invalid_request(request: Request, error: Exception) -> Response:
    """A request that does not fit its route's fields: FastAPI's list of field errors for scripts,
    the status panel or the page for people."""
    # Starlette hands a handler any exception; install registers this one for RequestValidationError alone.
    if not isinstance(error, RequestValidationError):
        raise error
    problems = error.errors()
    # Each field's problem in pydantic's words (English): the sentence around them is translated.
    fields = _printable(
        "; ".join(f"{' '.join(map(str, problem['loc'][1:]))}: {problem['msg']}" for problem in problems)
    )
    words = lazy_gettext("The form does not fit: %(fields)s", fields=fields)
    if wants_json(request):
        message = as_sentence(str(words))
        try:
            return JSONResponse({"detail": jsonable_encoder(problems), "message": message}, status_code=422)
        except ValueError:
            # Each error echoes its field's input; one JSON cannot carry (bytes that are not
            # UTF-8, a lone surrogate) would make this 422 a 500: the errors go without them.
            detail = [_without_input(problem) for problem in problems]
            return JSONResponse({"detail": detail, "message": message}, status_code=422)
    return await handle(request, Invalid(words))


def _without_input(problem: dict) -> dict:
    loc = [_printable(part) for part in problem["loc"]]
    return {"type": problem["type"], "loc": loc, "msg": _printable(problem["msg"])}


Printable = TypeVar("Printable", str, int)


def _printable(part: Printable) -> Printable:
    """Text UTF-8 can carry, with anything else as a Python escape (\\ud800)."""
    return part if isinstance(part, int) else part.encode("utf-8", "backslashreplace").decode("utf-8")


def install(app: FastAPI) -> None:
    # Every domain error, wholesale: the table above picks the answer by its most specific kind.
    app.add_exception_handler(KaboomError, handle)
    app.add_exception_handler(RequestValidationError, invalid_request)
