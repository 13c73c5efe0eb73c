"""The pages of the boards of the day: a day's boards with their ladders, the player's name, the calendar.

How they look is app.web.views.daily's.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.modes import get_mode
from app.service import GameService
from app.web.deps import Client, Player, Service
from app.web.render import page, page_context
from app.web.views.daily import day_context, weeks_of

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)


def _refused_on(request: Request, service: GameService, player: str) -> None:
    """A refused form comes back to today's page with the message, not to the home page."""

    async def again(message: str, status: int) -> Response:
        context = await day_context(service, player, None, message=message, refused=True)
        return page(request, context, status_code=status)

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
    return page(request, await day_context(service, player, None, **extra))


@router.get("/daily/history")
async def history_page(request: Request, player: Player, service: Service) -> Response:
    """The calendar of the past weeks' boards with the player's results, and their streaks."""
    history = await service.daily.history(player)
    return page(
        request,
        page_context(
            None,
            daily_page=True,
            history=history,
            weeks=weeks_of(history.days),
            boards=[get_mode(part.board.mode).daily_title for part in history.days[0].boards],
        ),
    )


@router.get("/daily/{date}")
async def day_page(request: Request, date: str, player: Player, service: Service) -> Response:
    """A day's boards and ladders; today's is the page above."""
    return page(request, await day_context(service, player, date))


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
