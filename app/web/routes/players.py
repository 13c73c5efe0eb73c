"""The player's own data as a whole: the page that downloads it and deletes it, and their part of the JSON API."""

from __future__ import annotations

import datetime
import json
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.core.game import Invalid
from app.core.languages import lazy_gettext
from app.web.deps import Client, Player, Service
from app.web.render import page, page_context
from app.web.schemas.base import ERROR_RESPONSES
from app.web.schemas.players import DeleteIn, ExportOut, export_document

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)
api_router = APIRouter(prefix="/api/player", tags=["player"], responses=ERROR_RESPONSES)

# What the delete form's box sends when ticked.
CONFIRMED = "yes"


def _again_on_player_page(request: Request) -> None:
    """A refused request comes back to the player page with the message."""

    async def again(message: str, status: int) -> Response:
        return page(request, "player.html", page_context(None, message=message, refused=True), status_code=status)

    request.state.page_again = again


@router.get("/player")
async def player_page(request: Request, player: Player) -> Response:
    """What the server keeps about the player: download it all, or delete it all."""
    return page(request, "player.html", page_context(None))


@router.get("/player/export")
async def export_download(request: Request, player: Player, client: Client, service: Service) -> Response:
    """Everything the server holds about the player, as one JSON file to keep."""
    _again_on_player_page(request)
    return _download(await service.players.export(player, client), service.clock())


@router.post("/player/delete")
async def delete_form(
    request: Request, player: Player, client: Client, service: Service, confirm: Annotated[str, Form()] = ""
) -> Response:
    """Delete everything the server holds about the player, once they ticked the box that says so; the browser
    then starts afresh as a new player."""
    _again_on_player_page(request)
    if confirm != CONFIRMED:
        raise Invalid(lazy_gettext("nothing was deleted: tick the box that says you want everything deleted"))
    await service.players.forget(player, client)
    request.session.clear()
    return RedirectResponse("/player/deleted", status_code=303)


@router.get("/player/deleted")
async def deleted_page(request: Request) -> Response:
    """Where a deletion ends: what is gone, and what a new visit starts."""
    return page(request, "player.html", page_context(None, deleted=True))


def _download(export, now: float) -> Response:
    day = datetime.datetime.fromtimestamp(now, datetime.UTC).date().isoformat()
    return Response(
        json.dumps(export_document(export, now), ensure_ascii=False, indent=1),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="kaboom-player-{day}.json"'},
    )


@api_router.get("/export", response_model=ExportOut)
async def export(player: Player, client: Client, service: Service) -> Response:
    """Everything the server holds about the player: their games (as GET /api/games/{id} shows them, with their
    moves), results, records, boards seen, ladder entries, name, rooms and claims. At most `player_limit`
    exports and deletions per address every `player_window` seconds (429 past it)."""
    return _download(await service.players.export(player, client), service.clock())


@api_router.post("/delete", status_code=204)
async def delete(body: DeleteIn, request: Request, player: Player, client: Client, service: Service) -> Response:
    """Delete everything the server holds about the player, at once, for good: their games and rooms where nobody
    else plays, results, records, ladder entries (they leave the ladders), name and claims. In a game or room
    others share, their seat or place stays, held by a new id nobody has, so the others' game goes on. The
    cookie is emptied: the next request starts a new player. Within the same limit as the export."""
    await service.players.forget(player, client)
    request.session.clear()
    return Response(status_code=204)
