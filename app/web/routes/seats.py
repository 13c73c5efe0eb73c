"""A game of several seats on the page: its invitation's link, taking or freeing a seat, watching, and the live
updates (a stream of events, and the poll that stands in for it) of a game several play or watch."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.sse import EventSourceResponse, ServerSentEvent

from app.core.game import Game, rewound
from app.core.seats import held_by, watcher
from app.service import GameService
from app.service.overlays import Overlay
from app.store import Corrupt, NotFound, StoreUnavailable
from app.web.deps import PRESENCE_CHECK_SECONDS, ROOM_NEWS_SECONDS, Player, Service, stream_slot
from app.web.render import OOB_ROWS, blocks, page
from app.web.views.game import Look, cell_html, changed_cells
from app.web.views.game_page import game_context

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)


@router.get("/games/{game_id}/join/{key}")
async def invitation(request: Request, game_id: str, key: str, service: Service) -> Response:
    """An invitation's link shows the game; taking the seat is a button on it (join_invitation). A link
    preview (a chat app fetching the link to draw it) must not take the friend's seat, nor may any other
    plain GET. The player who holds a seat goes to their game."""
    game = await service.games.load(game_id, watcher(key))
    if held_by(game.seats, request.session.get("player", "")):
        return RedirectResponse(f"/games/{game_id}", status_code=303)
    return RedirectResponse(f"/games/{game_id}/watch/{key}", status_code=303)


@router.post("/games/{game_id}/join/{key}")
async def join_invitation(game_id: str, key: str, player: Player, service: Service) -> Response:
    """Take the invitation's seat: the player's (their cookie keeps it) if nobody took it first; else they watch."""
    seated = await service.seats.join(game_id, key, player)
    return RedirectResponse(f"/games/{game_id}" if seated else f"/games/{game_id}/watch/{key}", status_code=303)


@router.post("/games/{game_id}/free-seat")
async def free_seat_form(game_id: str, player: Player, service: Service) -> Response:
    """The inviter frees the seat of someone who took it and never moved: a new link to send."""
    await service.seats.free_seat(game_id, player)
    return RedirectResponse(f"/games/{game_id}", status_code=303)


@router.get("/games/{game_id}/watch/{key}")
async def watch_page(request: Request, game_id: str, key: str, service: Service) -> Response:
    """A game of two as a spectator sees it: everything the players see, nothing to click."""
    viewer = watcher(key)
    game, overlay, review = await service.games.look(game_id, viewer, request.session.get("player"))
    context = await game_context(request, service, game_id, game, viewer, overlay, key=key, review=review)
    return page(request, "game.html", context)


async def live_events(
    game_id: str, viewer: str, service: GameService, version: int, room_state: str = "", player: str | None = None
) -> AsyncIterator[ServerSentEvent]:
    """A "changed" event whenever the game's version, who is connected or (in a room) what the room shows
    differs from what the page shows; the page then asks for the fragment. Only these facts travel here,
    never a cell."""
    shown_version, shown_present, shown_room = version, None, room_state
    while True:
        try:
            current, present, room = await service.rooms.live_with_room(game_id, viewer, player)
        except (NotFound, Corrupt, StoreUnavailable):
            return  # the game is gone or cannot be read now: the page's poll says why
        if room is not None:
            # The room's look at its games came after this one's read, and may have seen a newer version.
            current = max(current, room.versions.get(game_id, current))
        if shown_present is None:
            shown_present = present
        signature = room.signature if room is not None else ""
        if (current, present, signature) != (shown_version, shown_present, shown_room):
            shown_version, shown_present, shown_room = current, present, signature
            yield ServerSentEvent(event="changed", data=f"{current}")
            if room is not None:
                await service.seats.wait_for_change(game_id, current, ROOM_NEWS_SECONDS)
        await service.seats.wait_for_change(game_id, current, PRESENCE_CHECK_SECONDS, room)
        if service.seats.changes.closed:
            return  # the server is stopping: the page reconnects to whichever answers next


async def seat_viewer(game_id: str, player: Player, service: Service) -> str:
    """A player who holds a seat in the game (NotFound, a 404, otherwise: checked before a stream starts)."""
    await service.seats.live(game_id, player)
    return player


async def link_viewer(request: Request, game_id: str, key: str, service: Service) -> str:
    """Whoever holds the game's invitation link, to watch it."""
    await service.seats.live(game_id, watcher(key), request.session.get("player"))
    return watcher(key)


@router.get("/games/{game_id}/events", response_class=EventSourceResponse)
async def game_events(
    game_id: str,
    viewer: Annotated[str, Depends(seat_viewer)],
    _slot: Annotated[None, Depends(stream_slot)],
    service: Service,
    version: int = -1,
    room_state: str = "",
) -> AsyncIterator[ServerSentEvent]:
    """Server-sent events of a game several play or watch, for one of its players (htmx's SSE extension listens)."""
    async for event in live_events(game_id, viewer, service, version, room_state):
        yield event


@router.get("/games/{game_id}/watch/{key}/events", response_class=EventSourceResponse)
async def watch_events(
    game_id: str,
    viewer: Annotated[str, Depends(link_viewer)],
    _slot: Annotated[None, Depends(stream_slot)],
    service: Service,
    request: Request,
    version: int = -1,
    room_state: str = "",
) -> AsyncIterator[ServerSentEvent]:
    async for event in live_events(game_id, viewer, service, version, room_state, request.session.get("player")):
        yield event


@router.get("/games/{game_id}/live")
async def game_live(
    request: Request,
    game_id: str,
    player: Player,
    service: Service,
    version: str = "",
    presence: str = "",
    room_state: str = "",
) -> Response:
    """The fallback poll (and what a stream's event asks for): 204 while the page is up to date, else its
    panel and the cells that changed."""
    return await live_answer(request, game_id, player, service, version, presence, room_state=room_state)


@router.get("/games/{game_id}/watch/{key}/live")
async def watch_live(
    request: Request,
    game_id: str,
    key: str,
    service: Service,
    version: str = "",
    presence: str = "",
    room_state: str = "",
) -> Response:
    return await live_answer(request, game_id, watcher(key), service, version, presence, key, room_state)


async def live_answer(
    request: Request,
    game_id: str,
    viewer: str,
    service: GameService,
    version: str,
    presence: str,
    key: str | None = None,
    room_state: str = "",
) -> Response:
    asker = request.session.get("player")
    current, present, room = await service.rooms.live_with_room(game_id, viewer, asker)
    shown = "".join(str(seat) for seat in sorted(present))
    signature = room.signature if room is not None else ""
    if version == str(current) and presence == shown and room_state == signature:
        return Response(status_code=204)
    game, overlay, review = await service.games.look(game_id, viewer, asker)
    context = await game_context(
        request, service, game_id, game, viewer, overlay, present=present, key=key, room=room, review=review, oob=True
    )
    if version == str(game.version):
        return blocks(request, context, "panel")  # the board is as the page shows it: only the panel moved
    changes = one_action_behind(game, overlay, version)
    if changes is not None:
        context.update(changes=[cell_html(cell, look, oob=True) for cell, look in changes], changed_rows=[])
        return blocks(request, context, "panel", "changes")
    return blocks(request, context, "panel", "grid")


def one_action_behind(game: Game, overlay: Overlay, version: str) -> list | None:
    """The cells that look different from what a page one version behind shows, when that version is the
    one before the game's last action (as a live page usually is): only what that action changed. None
    otherwise (the caller sends the grid): after an undo, with an overlay (it moves everywhere), or further behind."""
    if version != str(game.version - 1) or not game.history or game.undone or game.status != "playing":
        return None
    if overlay.statuses is not None or overlay.probabilities is not None:
        return None
    record = game.history[-1]
    if record.get("version") != game.version - 1:
        return None
    before, _ = rewound(game)
    touched = {int(key) for key in (*record["cells"], *record["marks"])}
    return changed_cells(Look(before, None), Look(game, None), touched, max_rows=OOB_ROWS)
