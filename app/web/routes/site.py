"""The site's own pages: the home page (the player's games and rooms), the rules, the API's docs, and the
health check."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from app.core.game import Invalid
from app.core.languages import gettext, speaking
from app.store import StoreUnavailable
from app.web.deps import Player, Service
from app.web.i18n import LANGUAGE_COOKIE, LANGUAGE_COOKIE_SECONDS
from app.web.render import page, page_context
from app.web.views.daily import daily_rules
from app.web.views.game import game_list
from app.web.views.reviews import MARGIN_TEXT
from app.web.views.rooms import room_rows

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)


@router.get("/healthz", response_class=JSONResponse)
def healthz(service: Service) -> JSONResponse:
    """{"status": "ok"} while the store can read and save games (the Docker HEALTHCHECK reads it);
    otherwise 503, naming the part that is down."""
    try:
        service.store.check()
    except StoreUnavailable as down:
        return JSONResponse({"status": "down", "store": down.part, "detail": down.message}, status_code=503)
    return JSONResponse({"status": "ok"})


@router.get("/docs")
def api_docs(request: Request) -> Response:
    """Swagger UI for the JSON API, from the copy vendored in static/ (see static/VENDORED.md), under Kaboom's
    header: a way back to the game."""
    return page(request, "docs.html", page_context(None))


@router.get("/")
async def home(request: Request, player: Player, service: Service) -> Response:
    """The player's games, running and finished, to resume or delete; a welcome for a new player."""
    listings = await service.games.games_of(player)
    latest = next((listing for listing in listings if listing.game is not None), None)
    rooms = room_rows(await service.rooms.rooms_of(player))
    context = page_context(None, games=game_list(listings, service.clock(), player), latest=latest, rooms=rooms)
    return page(request, "home.html", context)


@router.get("/rules")
async def rules_page(request: Request) -> Response:
    """Every mode's rules with a picture of its key idea, the rooms', the boards of the day's and the review's,
    the controls and the settings."""
    return page(request, "rules.html", page_context(None, daily=daily_rules(), margin=MARGIN_TEXT))


@router.post("/language")
async def choose_language(
    request: Request, language: Annotated[str, Form()] = "", back: Annotated[str, Form()] = "/"
) -> Response:
    """The header's switcher: the pages in `language` from now on, in this browser (a cookie; no account), and
    back to the page it was chosen on."""
    offered = {each.code: each for each in speaking().offered}
    if language not in offered:
        raise Invalid(
            gettext(
                "There is no language %(language)s here; this server speaks %(offered)s.",
                language=repr(language[:20]),
                offered=", ".join(each.autonym for each in offered.values()),
            )
        )
    answer = RedirectResponse(local_path(back), status_code=303)
    answer.set_cookie(
        LANGUAGE_COOKIE,
        language,
        max_age=LANGUAGE_COOKIE_SECONDS,
        samesite="lax",
        secure=request.app.state.service.settings.secure_cookies,
    )
    return answer


def local_path(back: str) -> str:
    """A path of this site to go back to, or the home page: never another site's address ("//host", "/\\host"
    and a scheme all lead away)."""
    if not back.startswith("/") or back.startswith(("//", "/\\")) or any(ord(char) < 32 for char in back):
        return "/"
    return back
