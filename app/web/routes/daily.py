"""The boards of the day: their pages (a day's boards with their ladders, the player's name, the calendar) and
their part of the JSON API.

How they look is app.web.views.daily's.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from app.core.languages import weekday_texts
from app.modes import get_mode
from app.service import GameService
from app.web.deps import Client, Player, Service
from app.web.render import page, page_context
from app.web.routes.games import CREATES_A_GAME
from app.web.schemas.base import ERROR_RESPONSES
from app.web.schemas.daily import DailyOut, LadderOut, NameIn, NameOut, daily_out, ladder_out
from app.web.schemas.games import game_out
from app.web.views.daily import day_context, weeks_of

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)


def _refused_on(request: Request, service: GameService, player: str) -> None:
    """A refused form comes back to today's page with the message, not to the home page."""

    async def again(message: str, status: int) -> Response:
        context = await day_context(service, player, None, message=message, refused=True)
        return page(request, "daily.html", context, status_code=status)

    request.state.page_again = again


# A refused name comes back to today's page by a redirect, so that reloading it posts nothing again: the
# refusal and the text typed (cut to a length no field sends) ride in the session to that one page.
REFUSED_NAME = "refused_name"
TYPED_KEPT = 200


@router.get("/daily")
async def today_page(request: Request, player: Player, service: Service) -> Response:
    """Today's boards: play them, see their ladders, choose your name."""
    refused = request.session.pop(REFUSED_NAME, None)
    if isinstance(refused, dict) and isinstance(refused.get("message"), str) and isinstance(refused.get("typed"), str):
        extra = {"message": refused["message"], "refused": True, "typed": refused["typed"]}
    else:
        extra = {}
    return page(request, "daily.html", await day_context(service, player, None, **extra))


@router.get("/daily/history")
async def history_page(request: Request, player: Player, service: Service) -> Response:
    """The calendar of the past weeks' boards with the player's results, and their streaks."""
    history = await service.daily.history(player)
    return page(
        request,
        "calendar.html",
        page_context(
            None,
            history=history,
            weeks=weeks_of(history.days),
            boards=[get_mode(part.board.mode).daily_title for part in history.days[0].boards],
            weekdays=weekday_texts(),
        ),
    )


@router.get("/daily/{date}")
async def day_page(request: Request, date: str, player: Player, service: Service) -> Response:
    """A day's boards and ladders; today's is the page above."""
    return page(request, "daily.html", await day_context(service, player, date))


@router.post("/daily/{date}/{mode}/games")
async def play_form(
    request: Request, date: str, mode: str, player: Player, client: Client, service: Service
) -> Response:
    """The player's game of today's board: the one in play, or a new one."""
    _refused_on(request, service, player)
    game_id, _ = await service.daily.play_daily(player, client, f"{date}/{mode}")
    return RedirectResponse(f"/games/{game_id}", status_code=303)


@router.post("/daily/name")
async def name_form(
    request: Request, player: Player, client: Client, service: Service, name: Annotated[str, Form()] = ""
) -> Response:
    async def again(message: str, status: int) -> Response:
        request.session[REFUSED_NAME] = {"message": message, "typed": name[:TYPED_KEPT]}
        return RedirectResponse("/daily#you", status_code=303)

    request.state.page_again = again
    await service.daily.set_name(player, client, name)
    return RedirectResponse("/daily#you", status_code=303)


# ----- the JSON API ---------------------------------------------------------------------------------------

api_router = APIRouter(prefix="/api/daily", tags=["boards of the day"], responses=ERROR_RESPONSES)
names_router = APIRouter(prefix="/api/name", tags=["boards of the day"], responses=ERROR_RESPONSES)


@api_router.get("", response_model=DailyOut)
async def daily(player: Player, service: Service) -> DailyOut:
    """Today's boards (UTC; they change at 00:00 UTC), the same for every player of the server: a cruel Expert
    board and a no-guess classic Expert board, with the player's game of each still in play, their entry on
    each ladder, their name and their streak of days won."""
    return daily_out(await service.daily.daily(player))


@api_router.post("/{date}/{mode}/games", **CREATES_A_GAME)
async def play_daily(date: str, mode: str, player: Player, client: Client, service: Service) -> JSONResponse:
    """Play today's board in `mode`: the player's game of it still in play, or a new one. The first of the
    player's games of a board to end is their entry on its ladder; later ones are practice."""
    game_id, game = await service.daily.play_daily(player, client, f"{date}/{mode}")
    return JSONResponse(game_out(game_id, game, service.clock()), status_code=201)


@api_router.get("/{date}/ladder", response_model=LadderOut)
async def ladder(date: str, player: Player, service: Service) -> LadderOut:
    """The ladders of a day's boards: clean wins by time (ties by who finished first), then wins with help,
    marked; at most the best 100, and the line of the player asking wherever it stands."""
    return ladder_out(await service.daily.ladders(date, player))


@names_router.put("", response_model=NameOut)
async def set_name(body: NameIn, player: Player, client: Client, service: Service) -> NameOut:
    """Choose the name the ladders show (1 to 24 letters of any script, digits, spaces, '-' and '_'; trimmed).
    A player without one is shown as "anonymous" with a tag that stays the same."""
    return NameOut(name=await service.daily.set_name(player, client, body.name))
