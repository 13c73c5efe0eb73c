"""How a room looks: its members, its kind's part, its log, as its panel draws them for one viewer; a room
in its member's list of rooms; a room page's context.

A kind that shows more has its part in templates/rooms/<kind>/panel.html; nothing here names a kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fastapi import Request
from markupsafe import Markup

from app.core.languages import N_, gettext, unfilled
from app.modes import get_mode
from app.rooms import get_kind
from app.rooms.base import COLOURS, DEFAULT_NAME, Room
from app.service.rooms import RoomView
from app.web.deps import Service, templates
from app.web.render import page_context
from app.web.views.game import board_title, clock_text, set_apart

# What the log says each event was, a sentence about the member who did it; a mode's own actions are worded by the
# mode (Mode.acted_words).
EVENT_WORDS = {
    "joined": N_("%(name)s joined"),
    "left": N_("%(name)s left"),
    "started": N_("%(name)s started a round"),
    "undo": N_("%(name)s took back the last action"),
    "hint": N_("%(name)s asked for a hint"),
    "show": N_("%(name)s asked to be shown a safe cell"),
}


def said_of(event: dict, room: Room) -> Markup:
    """A line of the room's log: what the member did, their name set apart in <bdi> (a name written right to left
    must not turn the sentence around it), wherever the language puts it."""
    words = EVENT_WORDS.get(event["what"]) or get_mode(room.mode).acted_words.get(event["what"])
    name = set_apart(event["name"])
    if words is None:  # an action no mode words any more, kept in an old log
        return Markup("{} {}").format(name, event["what"])
    return Markup(unfilled(words)) % {"name": name}


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
    outcome: str  # their game's status ("playing", "won", "lost"; "" before it is dealt, "watching" for a watcher)
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
            f"{gettext(get_kind(room.kind).title)} · {board_title(room.mode, room.width, room.height, room.mines)}",
            gettext(get_mode(room.mode).title),
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
    log: list[tuple[int, Markup]] = field(default_factory=list)  # (colour, who did what), newest first
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
    board = board_title(room.mode, room.width, room.height, room.mines)
    mode = gettext(get_mode(room.mode).title)
    title = gettext("%(kind)s · %(mode)s · %(board)s", kind=gettext(kind.title), mode=mode, board=board)
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
            outcome=row.status if row.racing else "watching",
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
        log=[(event["colour"], said_of(event, room)) for event in reversed(room.log)],
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


STATUS_WORDS = {"playing": N_("playing"), "won": N_("cleared"), "lost": N_("lost"), "": N_("ready")}


def _status(status: str, racing: bool) -> str:
    if not racing:
        return gettext("watching")
    return gettext(STATUS_WORDS[status]) if status in STATUS_WORDS else status


def _start_words(view: RoomView) -> str:
    return gettext("Rematch") if view.round else gettext("Start")


# The kinds' own parts, as the templates folder has them.
PARTS = frozenset(templates.env.list_templates(filter_func=lambda name: name.startswith("rooms/")))


async def room_page_context(request: Request, service: Service, view: RoomView, key: str | None = None) -> dict:
    player = request.session.get("player")
    kept = await service.rooms.kept_name(player) if view.watching and player else None
    return page_context(None, now=service.clock(), room=room_look(request, view, key, kept=kept))
