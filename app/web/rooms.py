"""Rooms on the page: how a room looks (its members, its kind's part, its log), and its pages and fragments.

A room's games are drawn by the game page (templates/game.html) with the room's panel beside the board; a
room without a game for the viewer (a race's lobby, a race watched) is the room page (templates/room.html), the
panel alone.
A kind that shows more has its part in templates/rooms/<kind>/panel.html; nothing here names a kind.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.sse import EventSourceResponse, ServerSentEvent

from app.core.seats import watcher
from app.modes import get_mode
from app.rooms import RoomNotFound, get_kind
from app.rooms.base import COLOURS, DEFAULT_NAME, Room
from app.service.rooms import RoomView
from app.store import Corrupt, NotFound, StoreUnavailable
from app.web.deps import PRESENCE_CHECK_SECONDS, ROOM_NEWS_SECONDS, Player, Service, stream_slot, templates
from app.web.render import FRESH, blocks, page, page_context
from app.web.view import board_title, clock_text

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)

# What the log says each event was.
EVENT_WORDS = {
    "joined": "joined",
    "left": "left",
    "started": "started a round",
    "undo": "took back the last action",
    "hint": "asked for a hint",
    "show": "asked to be shown a safe cell",
}


@dataclass
class MemberRow:
    name: str
    colour: int
    present: bool
    you: bool
    racing: bool
    percent: int
    deaths: int
    status: str  # what their game stands at, in words
    time: str  # their time, once they cleared the board
    rank: int | None
    watch: str | None  # their board, where the viewer may look at it


@dataclass
class RoomRow:
    """A room in its member's list of rooms (the home page)."""

    room_id: str
    title: str  # the kind and the board
    mode: str
    members: list[tuple[str, int]]  # each member's name and colour
    state: str


def room_rows(rooms: list[tuple[str, Room]]) -> list[RoomRow]:
    return [
        RoomRow(
            room_id,
            f"{get_kind(room.kind).title} · {board_title(room.mode, room.width, room.height, room.mines)}",
            get_mode(room.mode).title,
            [(member.name, member.colour) for member in room.members],
            get_kind(room.kind).state_text(room),
        )
        for room_id, room in rooms
    ]


@dataclass
class RoomLook:
    """A room as its panel draws it for one viewer."""

    view: RoomView
    title: str  # the kind, the mode and the board
    members: list[MemberRow]
    live_path: str  # the room's page: its stream and its poll are under it
    invite: str | None = None  # the link to send, for the members
    join: str | None = None  # where whoever watches joins (a POST), while there is room
    log: list[tuple[int, str, str]] = field(default_factory=list)  # (colour, who, what they did), newest first
    countdown: float | None = None  # seconds until the boards open
    start: str = ""  # the start button's words, where the viewer may start
    part: str | None = None  # the kind's own part of the panel
    name: str = DEFAULT_NAME  # the name the join form offers
    colour: int = 0  # the colour it offers
    own_game: str | None = None  # the viewer's game in the room now (a race's new round), to go to
    game_live_path: str = ""  # the page's game's live updates (for whoever watches: by the link)
    colours: tuple[str, ...] = COLOURS

    @property
    def signature(self) -> str:
        return self.view.signature


def room_look(
    request: Request,
    view: RoomView,
    key: str | None = None,
    game_id: str | None = None,
    kept: tuple[str, int | None] | None = None,
) -> RoomLook:
    """How the room looks to the viewer of `view`; `key`, the link they came by (whoever watches);
    `game_id`, the game the page shows, if any; `kept`, the name and colour the join form offers."""
    room, kind = view.room, view.kind
    rules = get_mode(room.mode)
    size = next((name for name, size in rules.presets.items() if size == (room.width, room.height, room.mines)), None)
    board = f"{room.width}×{room.height}, {room.mines} mines"
    title = f"{kind.title} · {rules.title} · {rules.preset_title(size) + ' ' if size else ''}{board}"
    base = f"/rooms/{view.room_id}"
    watch_key = key or room.invite
    members = [
        MemberRow(
            name=row.name,
            colour=row.colour,
            present=row.present,
            you=view.viewer is not None and room.members[row.member].player == room.members[view.viewer].player,
            racing=row.racing,
            percent=row.percent,
            deaths=row.deaths,
            status=_status(row.status, row.racing),
            time=clock_text(row.seconds, tenths=True) if row.seconds is not None else "",
            rank=row.rank,
            watch=f"/games/{row.game}/watch/{watch_key}" if row.game else None,
        )
        for row in view.standings
    ]
    look = RoomLook(
        view,
        title,
        members,
        live_path=base if not view.watching else f"{base}/watch/{key}",
        log=[
            (event["colour"], event["name"], EVENT_WORDS.get(event["what"], event["what"]))
            for event in reversed(room.log)
        ],
        part=f"rooms/{room.kind}/panel.html" if f"rooms/{room.kind}/panel.html" in PARTS else None,
        game_live_path=f"/games/{game_id}" + (f"/watch/{key}" if view.watching and key else ""),
    )
    if not view.watching:
        look.invite = str(request.url_for("room_invitation", room_id=view.room_id, key=room.invite))
        look.start = _start_words(view) if view.may_start else ""
        if view.game is not None and view.game != game_id:
            look.own_game = view.game
    elif key is not None and len(room.members) < len(COLOURS):
        look.join = f"{base}/join/{key}"
        look.name, colour = kept or (DEFAULT_NAME, None)
        look.colour = room.free_colour(colour)
    if view.opens_at is not None and view.opens_at > view.now:
        look.countdown = view.opens_at - view.now
    return look


def _status(status: str, racing: bool) -> str:
    if not racing:
        return "watching"
    return {"playing": "playing", "won": "cleared", "lost": "lost", "": "ready"}.get(status, status)


def _start_words(view: RoomView) -> str:
    return "Rematch" if view.round else "Start"


# The kinds' own parts, as the templates folder has them.
PARTS = frozenset(templates.env.list_templates(filter_func=lambda name: name.startswith("rooms/")))


# ----- pages ----------------------------------------------------------------------------------------------


async def room_page_context(request: Request, service: Service, view: RoomView, key: str | None = None) -> dict:
    player = request.session.get("player")
    kept = await service.rooms.kept_name(player) if view.watching and player else None
    return page_context(None, now=service.clock(), room=room_look(request, view, key, kept=kept))


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


__all__ = ["RoomLook", "room_look", "router"]
