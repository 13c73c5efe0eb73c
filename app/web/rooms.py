"""Rooms on the page: their pages and fragments (how a room looks: app.web.views.rooms).

A room's games are drawn by the game page (templates/game.html) with the room's panel beside the board; a
room without a game for the viewer (a race's lobby, a race watched) is the same page with the panel alone.
A kind that shows more has its part in templates/rooms/<kind>/panel.html; nothing here names a kind.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.sse import EventSourceResponse, ServerSentEvent

from app.core.seats import watcher
from app.rooms import RoomNotFound
from app.rooms.base import DEFAULT_NAME
from app.store import Corrupt, NotFound, StoreUnavailable
from app.web.deps import PRESENCE_CHECK_SECONDS, ROOM_NEWS_SECONDS, Player, Service, stream_slot
from app.web.render import FRESH, blocks, page
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
    return page(request, await room_page_context(request, service, view))


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
    return page(request, await room_page_context(request, service, view, key))


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
    return blocks(request, await room_page_context(request, service, view), "room")


@router.get("/rooms/{room_id}/watch/{key}/live")
async def watcher_room_live(
    request: Request, room_id: str, key: str, service: Service, room_state: str = ""
) -> Response:
    view = await service.rooms.room_view(room_id, watcher(key), request.session.get("player"))
    if view.signature == room_state:
        return Response(status_code=204)
    if not view.watching:
        return Response(headers={"HX-Redirect": f"/rooms/{room_id}"})
    return blocks(request, await room_page_context(request, service, view, key), "room", headers=FRESH)
