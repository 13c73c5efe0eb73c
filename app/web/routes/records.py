"""The player's records per mode and size: their page and the JSON API's answer."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app.web.deps import Player, Service
from app.web.render import page, page_context
from app.web.schemas.base import ERROR_RESPONSES
from app.web.schemas.records import RecordOut
from app.web.views.game import clock_text, record_size

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)
api_router = APIRouter(prefix="/api/records", tags=["records"], responses=ERROR_RESPONSES)


@router.get("/records")
async def records_page(request: Request, player: Player, service: Service) -> Response:
    """The player's records per mode and size."""
    records = await service.games.records(player)
    context = page_context(None, records=records, clock=clock_text, size=record_size)
    return page(request, "records.html", context)


@api_router.get("", response_model=list[RecordOut])
async def records(player: Player, service: Service) -> list[RecordOut]:
    """The player's records per mode and size: games, wins, win rate, streaks, the ten best times with their
    3BV per second. Each game counts once, as it first ended (a loss taken back with undo stays a loss), and
    each board once: only the first of the player's games of a board id to end, won or lost; once its layout
    was shown, any other game of that board is left out (no game, no win, no time)."""
    return [RecordOut.of(record) for record in (await service.games.records(player)).records]
