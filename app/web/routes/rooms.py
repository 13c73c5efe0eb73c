"""Rooms: their pages and fragments, their live updates, and their part of the JSON API (how a room looks:
app.web.views.rooms).

A room's games are drawn by the game page (templates/game.html) with the room's panel beside the board; a
room without a game for the viewer (a race's lobby, a race watched) is the same page with the panel alone.
A kind that shows more has its part in templates/rooms/<kind>/panel.html; nothing here names a kind.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.sse import EventSourceResponse, ServerSentEvent

from app.core.seats import watcher
from app.rooms import RoomNotFound
from app.rooms.base import DEFAULT_NAME
from app.service import GameService
from app.service.rooms import RoomView
from app.store import Corrupt, NotFound, StoreUnavailable
from app.web.deps import PRESENCE_CHECK_SECONDS, ROOM_NEWS_SECONDS, Client, Player, Service, stream_slot
from app.web.render import FRESH, blocks, page
from app.web.schemas.base import ERROR_RESPONSES, ErrorOut
from app.web.schemas.games import game_out
from app.web.schemas.rooms import JoinRoomIn, NewRoomIn, RoomOut, room_out
from app.web.views.rooms import room_page_context

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)


# ----- pages ----------------------------------------------------------------------------------------------


@router.get("/rooms/{room_id}")
async def room_page(request: Request, room_id: str, player: Player, service: Service) -> Response:
    """A member's room: their game in it when there is one (the board with the room beside it), else the
    room alone (a race's lobby)."""
    view = await service.rooms.room_view(room_id, player)
    if view.game is not None:
        return RedirectResponse(f"/games/{view.game}", status_code=303)
    return page(request, "room.html", await room_page_context(request, service, view))


@router.get("/rooms/{room_id}/join/{key}", name="room_invitation")
async def room_invitation(request: Request, room_id: str, key: str, service: Service) -> Response:
    """A room's link: its members go to the room; anyone else watches it, with a form to join (a link
    preview, which only GETs, joins nobody)."""
    view = await service.rooms.room_view(room_id, watcher(key), request.session.get("player"))
    if not view.watching:
        return RedirectResponse(f"/rooms/{room_id}", status_code=303)
    return RedirectResponse(f"/rooms/{room_id}/watch/{key}", status_code=303)


@router.get("/rooms/{room_id}/watch/{key}")
async def room_watch(request: Request, room_id: str, key: str, service: Service) -> Response:
    """A room as whoever holds its link sees it: the shared board, or the room alone; a form to join."""
    view = await service.rooms.room_view(room_id, watcher(key), request.session.get("player"))
    if not view.watching:
        return RedirectResponse(f"/rooms/{room_id}", status_code=303)
    if view.game is not None:
        return RedirectResponse(f"/games/{view.game}/watch/{key}", status_code=303)
    return page(request, "room.html", await room_page_context(request, service, view, key))


@router.post("/rooms/{room_id}/join/{key}")
async def join_room_form(
    request: Request,
    room_id: str,
    key: str,
    player: Player,
    service: Service,
    name: Annotated[str, Form()] = DEFAULT_NAME,
    colour: Annotated[str, Form()] = "",
) -> Response:
    """Join the room by its link, with the name and colour chosen (kept for the next room)."""
    wished = int(colour) if colour.isdigit() else None
    await service.rooms.join_room(room_id, key, player, name, wished)
    return RedirectResponse(f"/rooms/{room_id}", status_code=303)


@router.post("/rooms/{room_id}/start")
async def start_room_form(room_id: str, player: Player, service: Service) -> Response:
    await service.rooms.start_room(room_id, player)
    return RedirectResponse(f"/rooms/{room_id}", status_code=303)


@router.post("/rooms/{room_id}/leave")
async def leave_room_form(room_id: str, player: Player, service: Service) -> Response:
    await service.rooms.leave_room(room_id, player)
    return RedirectResponse("/", status_code=303)


# ----- live -----------------------------------------------------------------------------------------------


async def room_events(
    room_id: str, viewer: str, player: str | None, service: Service, shown: str
) -> AsyncIterator[ServerSentEvent]:
    """A "changed" event whenever what the room's panel shows differs from what the page shows."""
    while True:
        try:
            view = await service.rooms.room_view(room_id, viewer, player)
        except (RoomNotFound, NotFound, Corrupt, StoreUnavailable):
            return
        if view.signature != shown:
            shown = view.signature
            yield ServerSentEvent(event="changed", data=shown)
            await asyncio.sleep(ROOM_NEWS_SECONDS)
        await service.seats.changes.wait_any(view.versions, PRESENCE_CHECK_SECONDS)
        if service.seats.changes.closed:
            return


async def room_member(room_id: str, player: Player, service: Service) -> str:
    """A member of the room (RoomNotFound, a 404, otherwise): checked before a stream starts, as a stream's
    answer is sent before its first event."""
    await service.rooms.room_view(room_id, player)
    return player


async def room_link_holder(request: Request, room_id: str, key: str, service: Service) -> str:
    """Whoever holds the room's link (its credential), checked before a stream starts."""
    await service.rooms.room_view(room_id, watcher(key), request.session.get("player"))
    return watcher(key)


@router.get("/rooms/{room_id}/events", response_class=EventSourceResponse)
async def member_room_events(
    room_id: str,
    viewer: Annotated[str, Depends(room_member)],
    _slot: Annotated[None, Depends(stream_slot)],
    service: Service,
    shown: str = "",
) -> AsyncIterator[ServerSentEvent]:
    async for event in room_events(room_id, viewer, None, service, shown):
        yield event


@router.get("/rooms/{room_id}/watch/{key}/events", response_class=EventSourceResponse)
async def watcher_room_events(
    request: Request,
    room_id: str,
    viewer: Annotated[str, Depends(room_link_holder)],
    _slot: Annotated[None, Depends(stream_slot)],
    service: Service,
    shown: str = "",
) -> AsyncIterator[ServerSentEvent]:
    async for event in room_events(room_id, viewer, request.session.get("player"), service, shown):
        yield event


@router.get("/rooms/{room_id}/live")
async def member_room_live(
    request: Request, room_id: str, player: Player, service: Service, room_state: str = ""
) -> Response:
    """The room page's poll (and what its stream's event asks for): 204 while it is up to date, else its panel;
    the member whose round began goes to their board."""
    view = await service.rooms.room_view(room_id, player)
    if view.signature == room_state:
        return Response(status_code=204)
    if view.game is not None:
        return Response(headers={"HX-Redirect": f"/games/{view.game}"})
    return blocks(request, await room_page_context(request, service, view), "room", template="room.html")


@router.get("/rooms/{room_id}/watch/{key}/live")
async def watcher_room_live(
    request: Request, room_id: str, key: str, service: Service, room_state: str = ""
) -> Response:
    view = await service.rooms.room_view(room_id, watcher(key), request.session.get("player"))
    if view.signature == room_state:
        return Response(status_code=204)
    if not view.watching:
        return Response(headers={"HX-Redirect": f"/rooms/{room_id}"})
    return blocks(
        request, await room_page_context(request, service, view, key), "room", template="room.html", headers=FRESH
    )


# ----- the JSON API ---------------------------------------------------------------------------------------

api_router = APIRouter(prefix="/api/rooms", tags=["rooms"], responses=ERROR_RESPONSES)

ROOM_404: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorOut, "description": "no such room, or the caller is neither in it nor holds its link"}
}


async def room_answer(request: Request, service: GameService, view: RoomView, viewer: str) -> RoomOut:
    """The room as the API shows it to `viewer`, with its game for them (co-op: the shared one; a race:
    their own, once started)."""
    game = None
    if view.game is not None:
        game = game_out(view.game, await service.games.load(view.game, viewer), service.clock())
    link = str(request.url_for("room_invitation", room_id=view.room_id, key=view.room.invite))
    return room_out(view, link, game)


ROOM_429: dict[int | str, dict[str, Any]] = {
    429: {"model": ErrorOut, "description": "too many rooms: the player's, or new ones from this address"}
}


@api_router.post("", status_code=201, response_model=RoomOut, responses=ROOM_429)
async def new_room(body: NewRoomIn, request: Request, player: Player, client: Client, service: Service) -> RoomOut:
    """Make a room: "coop", one game every member plays; "race", a game each of the same board, started
    together. The maker is its first member; others join with its `invite` (POST .../join)."""
    room_id, _ = await service.rooms.create_room(
        player,
        client,
        body.kind,
        body.mode,
        body.width,
        body.height,
        body.mines,
        body.settings(),
        body.name,
        body.colour,
    )
    return await room_answer(request, service, await service.rooms.room_view(room_id, player), player)


@api_router.post("/{room_id}/join", response_model=RoomOut, responses=ROOM_404)
async def join_room(room_id: str, body: JoinRoomIn, request: Request, player: Player, service: Service) -> RoomOut:
    """Join a room by its invitation's key, as `name` (up to 8 players; joining again changes nothing). A
    co-op member moves in the shared game at once (POST /api/games/{game}/moves); a race's late joiner
    watches until the rematch."""
    await service.rooms.join_room(room_id, body.invite, player, body.name, body.colour)
    return await room_answer(request, service, await service.rooms.room_view(room_id, player), player)


@api_router.get("/{room_id}", response_model=RoomOut, responses=ROOM_404)
async def read_room(
    room_id: str, request: Request, player: Player, service: Service, invite: str | None = None
) -> RoomOut:
    """The room: its players (name, colour, whether their page is open, and in a race each one's progress,
    deaths and time) and its game. Whoever holds the link and has not joined passes `invite` and watches;
    a racer still playing is never shown another racer's board."""
    viewer = watcher(invite) if invite is not None else player
    view = await service.rooms.room_view(room_id, viewer, player)
    return await room_answer(request, service, view, player if not view.watching else viewer)


@api_router.post("/{room_id}/start", response_model=RoomOut, responses=ROOM_404)
async def start_room(room_id: str, request: Request, player: Player, service: Service) -> RoomOut:
    """Start a race (its maker, with two players at least), or its rematch (any racer, once someone cleared
    the board or every racer is out): every racer's board opens after a short countdown (`starts_at`)."""
    await service.rooms.start_room(room_id, player)
    return await room_answer(request, service, await service.rooms.room_view(room_id, player), player)


@api_router.post("/{room_id}/leave", status_code=204, responses=ROOM_404)
async def leave_room(room_id: str, player: Player, service: Service) -> Response:
    """Leave a room; its games stay as they were played. The last to leave takes the room away."""
    await service.rooms.leave_room(room_id, player)
    return Response(status_code=204)
