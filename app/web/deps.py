"""What routes depend on, in one place: the player, the service, the templates."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated

from fastapi import Depends, Request
from jinja2 import ChoiceLoader, FileSystemLoader
from jinja2_fragments.fastapi import Jinja2Blocks

from app.core.addresses import address_key
from app.core.languages import day_text, decimal_text, gettext, list_text, number_text, percent_text, separated
from app.service import GameService
from app.service.devices import Site
from app.web import i18n
from app.web.faces import FaceLoader
from app.web.guard import is_api_path
from app.web.views.game import accuracy_text, moment_html, set_apart

# The repository's templates/ and static/, through the links beside this module in a checkout, and the copies a built
# package carries in the same place.
TEMPLATES = Path(__file__).resolve().parent / "templates"
STATIC = Path(__file__).resolve().parent / "static"

templates = Jinja2Blocks(directory=TEMPLATES)
# A face's templates outside templates/ (a mode the tests add) are found by the face registry.
templates.env.loader = ChoiceLoader([FileSystemLoader(TEMPLATES), FaceLoader()])
# An accuracy as every page shows it: "94 %", or "–" for none.
templates.env.filters["accuracy"] = accuracy_text
templates.env.filters["day"] = day_text
templates.env.filters["number"] = number_text
templates.env.filters["decimal"] = decimal_text
templates.env.filters["separated"] = separated
templates.env.filters["listed"] = list_text
templates.env.filters["percent"] = percent_text
templates.env.filters["set_apart"] = set_apart
templates.env.filters["moment"] = moment_html
# Words that are data (a mode's title, a setting's label: marked where they are written, with N_) in the reader's
# language; unlike `_()` of a template's own words, escaped as any value is.
templates.env.filters["translated"] = gettext
i18n.install(templates.env)


def player_of(request: Request) -> str:
    """The player's opaque id, from the signed cookie (made on the first visit)."""
    player = request.session.get("player")
    if not isinstance(player, str):
        player = secrets.token_urlsafe(16)
        request.session["player"] = player
    return player


# The dependencies are coroutines, though they never wait: FastAPI runs a plain function dependency in its thread
# pool, one thread hop each, three a request (bench/move_profile.py).
async def player_id(request: Request) -> str:
    return player_of(request)


async def game_service(request: Request) -> GameService:
    return request.app.state.service


async def client_address(request: Request) -> str:
    """Who is asking, for limits per client (an IPv6 client counts as its /64).

    The connection's peer; when the peer is a proxy named in
    KABOOM_FORWARDED_ALLOW_IPS, uvicorn (configured by `kaboom serve`) has put
    there the right-most X-Forwarded-For address that no named proxy added: the
    one a client cannot forge by sending its own header."""
    return address_key(request.client.host) if request.client else "unknown"


def wants_json(request: Request) -> bool:
    return is_api_path(request.url.path)


def is_htmx(request: Request) -> bool:
    return request.headers.get("HX-Request") == "true"


async def site_of(request: Request) -> Site:
    """Where the pages are, for passkeys: the configured domain over HTTPS, else the host name the request names
    (localhost while developing: browsers make passkeys for a name, never for an address)."""
    domain = request.app.state.service.settings.domain
    if domain and domain != ":80":
        return Site(rp_id=domain, origin=f"https://{domain}")
    return Site(rp_id=request.url.hostname or "localhost", origin=f"{request.url.scheme}://{request.url.netloc}")


def become(request: Request, player: str) -> None:
    """This browser is `player` from now on: a new session (nothing of the one before is kept but the player)."""
    request.session.clear()
    request.session["player"] = player


Player = Annotated[str, Depends(player_id)]
Where = Annotated[Site, Depends(site_of)]
Service = Annotated[GameService, Depends(game_service)]
Client = Annotated[str, Depends(client_address)]


# How often a live page's stream renews the viewer's presence and looks at the other players'; between
# two looks it waits for the game (or room) to change (the store's signal: Redis pub/sub, or a quick SQLite poll).
PRESENCE_CHECK_SECONDS = 5.0
# A room's page hears of the other members' moves at most this often: a race of R players each moving
# once a second woke every racer's page R times a second, each to fetch its room's panel (bench/load.py
# --races found the cost growing as R²). A page's own game still wakes it at once.
ROOM_NEWS_SECONDS = 0.4


async def stream_slot(service: Service, client: Client) -> AsyncIterator[None]:
    """A place among the worker's live streams, held while the stream lasts; past the caps, the stream
    is refused (TooManyStreams) and the page keeps its poll."""
    with service.seats.streams.slot(client):
        yield
