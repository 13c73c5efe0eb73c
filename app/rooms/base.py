"""A room: several people and the games they play together, and the interface every kind of room offers.

A room holds who is in it (members, each with a name and a colour), the board its games are played on (a
one-player mode, a size, the mode's settings), the key of its invitation link, and its kind's own state.
Its games are ordinary games in the store, each knowing its room (Game.room): a co-op room's one game seats
every member; a race's games seat one racer each. A kind (app/rooms/coop.py, race.py) is a table of
functions the service drives, as a mode is: what happens when a room is made, joined or started, which game
a person plays or watches, and what the room shows. Nothing here knows about HTTP or the store.

Rooms are stored as one JSON object each (`encode`), read back through `decode`, which checks every field
and raises ValueError naming the first that is wrong: a store raises that as Corrupt.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar

from pydantic import Field, StrictBool, StrictInt, StrictStr, StringConstraints, ValidationError
from typing_extensions import TypedDict

from app.core.errors import KaboomError
from app.core.game import MAX_BOARD_SIDE, Game, Refused
from app.core.languages import N_, InSentence, gettext, lazy_gettext
from app.core.names import NAME_LENGTH
from app.core.seats import watcher
from app.core.stored import Count, Key, Time, Version, adapter, schema

# Players a room holds at most: the 2 to 8, and as many colours as the page has.
MAX_PLAYERS = 8
COLOURS = (N_("blue"), N_("red"), N_("green"), N_("purple"), N_("orange"), N_("teal"), N_("pink"), N_("brown"))
assert len(COLOURS) == MAX_PLAYERS
# What a player is called until they choose: a name is shown to every other member, so none is guessed from
# the player's id.
DEFAULT_NAME = "Player"


class RoomFull(Refused):
    """No place left in the room."""


@dataclass(frozen=True)
class Member:
    """A person in a room: their player id (the cookie's), the name the others see, and their colour."""

    player: str
    name: str
    colour: int  # an index into COLOURS


@dataclass
class Room:
    kind: str  # a kind of room (app.rooms.KINDS)
    mode: str  # the one-player mode its games are played in
    width: int
    height: int
    mines: int
    settings: dict[str, bool]  # the mode's settings for the room's games
    invite: str  # the key of the room's link: whoever holds it may watch, and join while there is room
    members: list[Member] = field(default_factory=list)  # the first made the room
    state: dict[str, Any] = field(default_factory=dict)  # the kind's own
    version: int = 0  # every change adds one: live pages hear of it
    created_at: float = 0.0
    # What happened lately, newest last ({"name", "colour", "what", "at"}): who joined, started, took a move
    # back or asked for a hint.
    log: list[dict[str, Any]] = field(default_factory=list)

    @property
    def creator(self) -> str:
        return self.members[0].player

    def players(self) -> list[str]:
        return [member.player for member in self.members]

    def seat_of(self, player: str) -> int | None:
        """The member's place in the room (their colour's owner, their presence mark); None for anyone else."""
        return next((number for number, member in enumerate(self.members) if member.player == player), None)

    def member(self, player: str) -> Member | None:
        number = self.seat_of(player)
        return None if number is None else self.members[number]

    def admits(self, viewer: str) -> bool:
        """Whether `viewer` (a player's id, or the credential of whoever holds the link) may see the room."""
        return viewer == watcher(self.invite) or self.seat_of(viewer) is not None

    def note(self, player: str, what: str, at: float, kept: int = 12) -> None:
        """Remember that the member `player` did `what` (the latest `kept` events stay)."""
        member = self.member(player)
        if member is not None:
            self.log = [*self.log, {"name": member.name, "colour": member.colour, "what": what, "at": at}][-kept:]

    def recast(self, source: str, target: str, kinds: Mapping[str, RoomKind], *, forget: bool = False) -> None:
        """Name `target` wherever the room names `source`: two players made one (a member already there keeps
        their place, and `source`'s goes), or, with `forget`, a deleted player's place kept by a stand-in with
        the name every member has before choosing, in the log too."""
        mine = self.member(source)
        if mine is None:
            return
        if self.member(target) is not None:
            self.members = [member for member in self.members if member.player != source]
        else:
            name = DEFAULT_NAME if forget else mine.name
            self.members = [
                Member(target, name, member.colour) if member.player == source else member for member in self.members
            ]
        if forget:
            self.log = [
                {**event, "name": DEFAULT_NAME}
                if (event.get("name"), event.get("colour")) == (mine.name, mine.colour)
                else event
                for event in self.log
            ]
        kinds[self.kind].recast(self.state, source, target)
        self.version += 1

    def free_colour(self, wished: int | None = None) -> int:
        taken = {member.colour for member in self.members}
        if wished is not None and 0 <= wished < MAX_PLAYERS and wished not in taken:
            return wished
        return next(colour for colour in range(MAX_PLAYERS) if colour not in taken)

    def copy(self) -> Room:
        return Room(
            **{
                **self.__dict__,
                "members": list(self.members),
                "state": json.loads(json.dumps(self.state)),
                "log": list(self.log),
            }
        )

    def to_json(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["members"] = [member.__dict__ for member in self.members]
        return data


def new_invite() -> str:
    return secrets.token_urlsafe(16)


class RoomNotFound(KaboomError):
    """No such room for this viewer (a room they may not see is not found either)."""

    def __init__(self, room_id: str):
        super().__init__(room_id)
        self.message = "no such room"


# ----- kinds ------------------------------------------------------------------------------------------


@dataclass
class Standing:
    """One member as the room shows them: their game's progress, and whether the viewer may look at it."""

    member: int
    name: str
    colour: int
    present: bool
    racing: bool = False  # plays in the room's current round (a race's late joiner watches until the rematch)
    opened: int = 0  # safe cells opened
    safe: int = 0  # safe cells on the board
    deaths: int = 0
    status: str = ""  # their game's status: playing, won, lost; "" without a game
    seconds: float | None = None  # the time they cleared the board in, counted from the start
    rank: int | None = None  # among those who cleared it
    game: str | None = None  # their game's id, where the viewer may look at it

    @property
    def progress(self) -> float:
        return self.opened / self.safe if self.safe else 0.0

    @property
    def percent(self) -> int:
        """The share opened as the scoreboard shows it: 100 only once the board is cleared."""
        shown = int(self.progress * 100)
        return 100 if self.status == "won" else min(shown, 99)


def standing(number: int, member: Member, present: frozenset[int]) -> Standing:
    return Standing(number, member.name, member.colour, number in present)


def opened_cells(game: Game) -> tuple[int, int]:
    """The safe cells a game has opened, and how many it has."""
    safe = game.width * game.height - game.mines
    return safe - game.safe_left, safe


class RoomGames:
    """What a kind may do with the store's games, offered by the service (which holds the store)."""

    # Seconds between a start and the boards opening: everyone sees the board open at the same moment.
    countdown: float = 3.0

    def make(
        self,
        room: Room,
        room_id: str,
        seatings: list[list[str]],
        *,
        opens_at: float | None = None,
        sealed: str | None = None,
    ) -> list[str]:
        """New games of the room's board, one per seating (the players seated in it, in order), every one
        dealing the same cells for the same clicks; their ids, in order. `sealed`, the kind's name for the
        round: the players compete on the board, so no other game of it may be made while the kind says that
        round is contested (RoomKind.contested), and its games show nothing that would make one (Game.sealed)."""
        raise NotImplementedError

    def seat(self, room: Room, game_id: str, player: str) -> None:
        """Seat `player` in a game of the room (a co-op member who joined after it began): the seat they left,
        if they come back, else one another member left, else a new one; the game's seats are never more than
        the room's places."""
        raise NotImplementedError

    def vacate(self, room: Room, game_id: str, player: str) -> None:
        """`player` left the room: their seat in the game keeps its moves, and moves no more."""
        raise NotImplementedError

    def peek(self, game_ids: list[str]) -> dict[str, Game | None]:
        """The games as stored now, without their history (None for a game gone or damaged): for what the
        room shows of them, never for a view of their cells."""
        raise NotImplementedError


class RoomKind:
    """How a kind of room goes: made, joined, started; which game each person sees; what it shows."""

    name: ClassVar[str]
    title: ClassVar[str]
    summary: ClassVar[str] = ""
    rules_link: ClassVar[str] = N_("Rules of this room")  # the room's link to its kind's rules
    state_schema: ClassVar[type]
    # Whether a game of this kind of room counts in its players' own records.
    counts_in_records: ClassVar[bool] = True
    # Whether the players are pitted against each other on one board: the mode's even settings (no guessing)
    # are where its games start from.
    even: ClassVar[bool] = False
    # Whether its games take hints, Show me, the overlays, the assists and the bot (not where players compete).
    assists: ClassVar[bool] = True
    # Settings its games are played with whatever the room asks, each with why, marked with N_ (a mode without the
    # setting has nothing to fix).
    fixed_settings: ClassVar[dict[str, tuple[bool, str]]] = {}

    def new_state(self) -> dict[str, Any]:
        return {}

    def made(self, room: Room, room_id: str, games: RoomGames, now: float) -> None:
        """The room was just stored under `room_id`, with its maker alone in it."""

    def joined(self, room: Room, room_id: str, player: str, games: RoomGames, now: float) -> None:
        """`player` was just added to the room's members (the room is saved after)."""

    def left(self, room: Room, room_id: str, player: str, games: RoomGames, now: float) -> None:
        """`player` was just taken off the room's members (the room is saved after): they move on none of its
        games from now on (RoomGames.vacate), until they join again."""

    def recast(self, state: dict[str, Any], source: str, target: str) -> None:
        """The kind's own state with `source` named `target` instead (Room.recast): its state's keys or values that
        are player ids. Where both are named, `target`'s stays."""

    def start(self, room: Room, room_id: str, player: str, games: RoomGames, now: float) -> None:
        """`player` asks the room to start (a race, or its rematch); Refused where it cannot."""
        raise Refused(lazy_gettext("a %(kind)s has nothing to start", kind=InSentence(self.title)))

    def game_for(self, room: Room, viewer: str) -> str | None:
        """The game `viewer` (a member, or whoever holds the link) plays or watches in the room now; None
        while there is none for them."""
        raise NotImplementedError

    def round(self, room: Room) -> tuple[str | None, int | None, float | None]:
        """Where the room's rounds stand, for kinds that have them: (phase, rounds started, when the current
        round's boards open); (None, None, None) for a room that plays one game."""
        return None, None, None

    def state_text(self, room: Room) -> str:
        """Where the room stands, in a few words, as a list of rooms shows it."""
        return gettext("Playing")

    def standings(
        self, room: Room, viewer: str, present: frozenset[int], games: RoomGames, now: float
    ) -> tuple[list[Standing], bool]:
        """Each member as `viewer` sees them now, and whether the room's round is over."""
        raise NotImplementedError

    def place(self, room: Room, player: str, games: RoomGames, now: float) -> dict[str, Any] | None:
        """What a player's result keeps of the room, once their game ended: {"kind", "rank", "of"} in a
        race (rank None without a clear); None where the room ranks nobody."""
        return None

    def may_start(self, room: Room, viewer: str, over: bool, standings: list[Standing]) -> bool:
        """Whether `viewer` may start the room now (a race from its lobby, or its rematch)."""
        return False

    def contested(self, room: Room, games: RoomGames, now: float) -> str | None:
        """The round whose board the players still compete on (its name, as its games were made `sealed`):
        until it is over no other game of that board is made, for anyone. None when no round is."""
        return None


# ----- stored -----------------------------------------------------------------------------------------

Name = Annotated[str, StringConstraints(min_length=1, max_length=NAME_LENGTH)]


@schema
class _Event(TypedDict):
    name: Name
    colour: Annotated[StrictInt, Field(ge=0, lt=MAX_PLAYERS)]
    what: Annotated[StrictStr, StringConstraints(min_length=1, max_length=20)]
    at: Time


@schema
class _Member(TypedDict):
    player: Annotated[StrictStr, StringConstraints(min_length=1, max_length=200)]
    name: Name
    colour: Annotated[StrictInt, Field(ge=0, lt=MAX_PLAYERS)]


Side = Annotated[StrictInt, Field(ge=2, le=MAX_BOARD_SIDE)]


@schema
class _Room(TypedDict):
    kind: StrictStr
    mode: StrictStr
    width: Side
    height: Side
    mines: Count
    settings: dict[StrictStr, StrictBool]
    invite: Key
    members: Annotated[list[_Member], Field(min_length=1, max_length=MAX_PLAYERS)]
    state: dict[str, Any]  # the kind's state_schema, checked once the kind is known
    version: Version
    created_at: Time
    log: Annotated[list[_Event], Field(max_length=100)]


def encode(room: Room, kinds: Mapping[str, RoomKind]) -> str:
    """The room as stored, if it reads back as it is (ValueError otherwise)."""
    text = json.dumps(room.to_json())
    decode(text, kinds)
    return text


def decode(text: str | bytes, kinds: Mapping[str, RoomKind]) -> Room:
    """A stored room back, every field checked; ValueError naming the first that is wrong."""
    try:
        data = adapter(_Room).validate_json(text)
        kind = kinds.get(data["kind"])
        if kind is None:
            raise ValueError(f"kind: unknown kind of room {data['kind']!r}")
        state: dict[str, Any] = adapter(kind.state_schema).validate_python(data["state"])
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ValueError(f"stored room is malformed: {where}: {first['msg']}") from None
    members = [Member(**member) for member in data["members"]]
    if len({member.player for member in members}) != len(members):
        raise ValueError("stored room is malformed: members: a player is in a room once")
    if len({member.colour for member in members}) != len(members):
        raise ValueError("stored room is malformed: members: two members share a colour")
    return Room(
        kind=data["kind"],
        mode=data["mode"],
        width=data["width"],
        height=data["height"],
        mines=data["mines"],
        settings=data["settings"],
        invite=data["invite"],
        members=members,
        state=state,
        version=data["version"],
        created_at=data["created_at"],
        log=[dict(event) for event in data["log"]],
    )
