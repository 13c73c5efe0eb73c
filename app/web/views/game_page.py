"""What a game's page shows beyond its board: the page's context for one viewer, with who else is at the
game (its seating, in a game of seats; its room, in a room)."""

from __future__ import annotations

from typing import Any

from fastapi import Request

from app.core.game import Game
from app.core.seats import held_by, link_key, open_seat
from app.core.seats import invitation as seating_invitation
from app.modes import get_mode
from app.rooms import RoomNotFound
from app.service import GameService
from app.service.overlays import Overlay
from app.service.rooms import RoomView
from app.web.render import page_context
from app.web.views.game import Seating
from app.web.views.rooms import room_look


async def game_context(
    request: Request,
    service: GameService,
    game_id: str,
    game: Game,
    viewer: str,
    overlay: Overlay | None = None,
    *,
    present: frozenset[int] | None = None,
    key: str | None = None,
    room: RoomView | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The page's context for a game as `viewer` sees it (with its seating, in a game of seats; with its
    room, in a room), now. `present` and `room`: what the caller has just asked, if it has."""
    return page_context(
        game_id,
        game,
        overlay,
        now=service.clock(),
        **await company(request, service, game_id, game, viewer, present, key, room),
        **extra,
    )


async def company(
    request: Request,
    service: GameService,
    game_id: str,
    game: Game,
    viewer: str,
    present: frozenset[int] | None = None,
    key: str | None = None,
    room: RoomView | None = None,
) -> dict[str, Any]:
    """Who else is at a game, as `viewer` sees them: its seating (a game of seats) and its room (a room's
    game; `room`, the room's view the caller has just worked out, spares working it out again)."""
    view = room if room is not None else await room_of(request, service, game, viewer)
    player = request.session.get("player")
    kept = await service.rooms.kept_name(player) if view is not None and view.watching and player else None
    return {
        "seating": await seating_of(request, service, game_id, game, viewer, present, key),
        "room": room_look(request, view, key, game_id, kept) if view is not None else None,
    }


async def room_of(request: Request, service: GameService, game: Game, viewer: str) -> RoomView | None:
    """The room a game is played in, as `viewer` sees it (whoever asks by a link is shown it as the member
    they are, if they are one); None for a game outside a room, or whose room is gone."""
    if game.room is None:
        return None
    try:
        return await service.rooms.room_view(game.room["id"], viewer, request.session.get("player"))
    except RoomNotFound:
        return None


async def seating_of(
    request: Request,
    service: GameService,
    game_id: str,
    game: Game,
    viewer: str,
    present: frozenset[int] | None = None,
    key: str | None = None,
) -> Seating | None:
    """How a game of several seats looks to `viewer` (a player, or whoever holds the invitation `key`, who
    watches); `present`, who is connected, when the caller has just asked."""
    rules = get_mode(game.mode)
    if rules.seat_count == 1:
        return None
    watching = key is not None
    held = frozenset() if watching else held_by(game.seats, viewer)
    invitation = link_key(game.seats)
    invited = seating_invitation(game.seats)
    if present is None:
        _, present = await service.seats.live(game_id, viewer)
    waiting = open_seat(game.seats) is not None
    return Seating(
        seat=next(iter(held)) if len(held) == 1 else None,
        held=held,
        watching=watching,
        waiting=waiting,
        # Sent while the game goes on: a finished game invites nobody.
        invite=str(request.url_for("invitation", game_id=game_id, key=invitation))
        if invitation is not None and viewer == game.maker and game.status == "playing"
        else None,
        present=present,
        live_path=f"/games/{game_id}" + (f"/watch/{key}" if watching else ""),
        join=f"/games/{game_id}/join/{key}" if watching and waiting and game.status == "playing" else None,
        reclaimable=not watching and rules.seat_reclaimable(game, viewer),
        invited=rules.seat_name(invited) if invited is not None else "",
    )
