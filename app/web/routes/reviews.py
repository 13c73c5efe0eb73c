"""A finished game's replay and review: its page (the player's, and a shared link's), the overlays of what could
be known at each step, sharing its link; and the review and the link in the JSON API."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from app.core.languages import gettext
from app.core.seats import replay_watcher
from app.service import GameService
from app.web.deps import Player, Service
from app.web.render import page, replay_context
from app.web.schemas.base import ERROR_RESPONSES, ErrorOut
from app.web.schemas.reviews import ReviewOut, ShareOut, review_out
from app.web.views.reviews import overlay_changes

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)
api_router = APIRouter(prefix="/api/games", tags=["games"], responses=ERROR_RESPONSES)


@router.get("/games/{game_id}/replay")
async def replay_page(request: Request, game_id: str, player: Player, service: Service) -> Response:
    """A finished game's replay, every move graded; 404 while it is in play, as for another player's game."""
    game, graded = await service.reviews.review(game_id, player)
    share = str(request.url_for("shared_replay", game_id=game_id, key=game.share)) if game.share else None
    owner = player == game.maker
    on_ladder = owner and await service.daily.on_ladder(game_id, game)
    context = replay_context(game_id, game, graded, service.clock(), owner=owner, share=share, on_ladder=on_ladder)
    return page(request, "replay.html", context)


@router.get("/replays/{game_id}/{key}")
async def shared_replay(request: Request, game_id: str, key: str, service: Service) -> Response:
    """A replay shared by its link: the same page, without its owner's controls, naming its player to anyone
    else; 404 once withdrawn."""
    asker = request.session.get("player")
    game, graded = await service.reviews.review(game_id, replay_watcher(key), asker)
    player = await service.daily.shown_name(game.maker) if asker != game.maker else None
    return page(request, "replay.html", replay_context(game_id, game, graded, service.clock(), key=key, player=player))


@router.get("/games/{game_id}/replay/overlay", response_class=JSONResponse)
async def replay_overlay(game_id: str, step: int, player: Player, service: Service) -> JSONResponse:
    return await overlay_answer(service, game_id, player, step)


@router.get("/replays/{game_id}/{key}/overlay", response_class=JSONResponse)
async def shared_replay_overlay(request: Request, game_id: str, key: str, step: int, service: Service) -> JSONResponse:
    return await overlay_answer(service, game_id, replay_watcher(key), step, request.session.get("player"))


async def overlay_answer(
    service: GameService, game_id: str, viewer: str, step: int, asker: str | None = None
) -> JSONResponse:
    """What could be known after `step` steps of the replay: the cells the overlays change, and a note
    when counting took too long."""
    _, frame, overlay = await service.reviews.replay_overlay(game_id, viewer, step, asker)
    note = gettext("Too complex to count in time: the chances are left out.") if overlay.too_complex else ""
    return JSONResponse({"step": step, "changes": overlay_changes(frame, overlay), "note": note})


@router.post("/games/{game_id}/share")
async def share_form(game_id: str, player: Player, service: Service, shared: Annotated[str, Form()] = "1") -> Response:
    """Share the replay (shared=1) or withdraw its link (shared=0), then back to the replay."""
    await service.reviews.share(game_id, player, shared != "0")
    return RedirectResponse(f"/games/{game_id}/replay#share", status_code=303)


@api_router.get(
    "/{game_id}/review",
    response_model=ReviewOut,
    responses={404: {"model": ErrorOut, "description": "no such game, not the player's, or still in play"}},
)
async def game_review(game_id: str, player: Player, service: Service) -> ReviewOut:
    """A finished game's story, every step graded from what the player could see before it (never from the
    layout), and what the grades add up to. Graded once, at the end or at the first ask, and kept. A game
    still in play answers 404: nothing of it is shown before its end."""
    game, graded = await service.reviews.review(game_id, player)
    return review_out(game_id, game, graded)


@api_router.post("/{game_id}/share", response_model=ShareOut)
async def share_replay(game_id: str, request: Request, player: Player, service: Service) -> ShareOut:
    """Share a finished game's replay by a link that cannot be guessed (the same link while shared); the
    game's maker only. Whoever holds the link sees the replay and its grades, nothing else."""
    game = await service.reviews.share(game_id, player, True)
    assert game.share is not None
    return ShareOut(url=str(request.url_for("shared_replay", game_id=game_id, key=game.share)))


@api_router.delete("/{game_id}/share", status_code=204)
async def withdraw_replay(game_id: str, player: Player, service: Service) -> Response:
    """Withdraw the replay's link: it opens nothing from now on (a new share makes a new link). Refused (409)
    for the player's entry on a board of the day's ladder, which links to its replay."""
    await service.reviews.share(game_id, player, False)
    return Response(status_code=204)
