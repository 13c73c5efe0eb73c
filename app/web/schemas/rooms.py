"""A room's request and answer shapes (app.rooms, app.service.rooms): a new room as the registered modes
shape it, joining one, the room as a member or a watcher sees it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, create_model

from app.core.game import MAX_BOARD_SIDE
from app.core.names import NAME_LENGTH
from app.modes import DEFAULT_MODE, MODES
from app.rooms import KINDS, MAX_PLAYERS
from app.rooms.base import COLOURS
from app.web.schemas.base import STRICT, _joined
from app.web.schemas.games import asked_fields, asked_settings


class NewRoomBase(BaseModel):
    """A new room: its kind, the board its games are played on, and the maker's name and colour;
    `new_room_model` adds the modes' settings, as a new game asks them."""

    model_config = STRICT

    kind: str = Field(
        json_schema_extra={"enum": list(KINDS)},
        description=_joined([f"{kind.name}: {kind.summary}" for kind in KINDS.values()]),
    )
    mode: str = Field(
        DEFAULT_MODE, json_schema_extra={"enum": [name for name, mode in MODES.items() if mode.seat_count == 1]}
    )
    width: int = Field(ge=2, le=MAX_BOARD_SIDE)
    height: int = Field(ge=2, le=MAX_BOARD_SIDE)
    mines: int = Field(ge=1)
    name: str = Field(
        "", max_length=NAME_LENGTH, description="the name the others see (empty: the one of the player's latest room)"
    )
    colour: int | None = Field(None, ge=0, lt=MAX_PLAYERS, description=f"0 to {MAX_PLAYERS - 1}: {', '.join(COLOURS)}")

    def settings(self) -> dict[str, bool]:
        """The settings the caller gave, by the modes' names (as a new game takes them)."""
        return asked_settings(self)


def new_room_model() -> type[NewRoomBase]:
    return create_model("NewRoomIn", __base__=NewRoomBase, **asked_fields(seats=False))


class JoinRoomIn(BaseModel):
    model_config = STRICT

    invite: str = Field(max_length=64, description="the key of the room's invitation (the `invite` its maker got)")
    name: str = Field(
        "", max_length=NAME_LENGTH, description="the name the others see (empty: the one of the player's latest room)"
    )
    colour: int | None = Field(
        None, ge=0, lt=MAX_PLAYERS, description="a colour nobody in the room has (else the first free one)"
    )


class RoomPlayerOut(BaseModel):
    name: str
    colour: int = Field(description=f"0 to {MAX_PLAYERS - 1}: {', '.join(COLOURS)}")
    you: bool = Field(description="the caller")
    present: bool = Field(description="their page is open now")
    racing: bool = Field(description="plays in the current round (a race's late joiner watches until the rematch)")
    progress: float = Field(description="the share of the board's safe cells their game has opened (0 to 1)")
    deaths: int = Field(description="losses they took back with undo")
    status: Literal["playing", "won", "lost"] | None = Field(description="their game's; null without one")
    seconds: float | None = Field(description="the time they cleared the board in, from the start; null until then")
    rank: int | None = Field(description="their place among those who cleared it")
    game: str | None = Field(
        description="their game's id, where the caller may look at it (in a race: once the caller's own board "
        "can change no more)"
    )


class RoomEventOut(BaseModel):
    name: str
    colour: int
    what: str = Field(description="joined, left, started, undo, hint, show, or a mode's action")
    at: float


class RoomOut(BaseModel):
    id: str
    kind: str
    mode: str
    width: int
    height: int
    mines: int
    settings: dict[str, bool]
    invite: str | None = Field(description="the key to join by (POST .../join), for the room's members")
    link: str | None = Field(description="the invitation's address for a browser, for the room's members")
    players: list[RoomPlayerOut]
    watching: bool = Field(description="the caller watches (holds the link, has not joined)")
    phase: str | None = Field(description="a race: lobby until its maker starts it, then racing")
    round: int | None = Field(description="a race: rounds started (a rematch adds one)")
    starts_at: float | None = Field(description="a race: when the round's boards open (seconds since the epoch)")
    over: bool = Field(description="the round has ended: co-op, the shared game; a race, every racer's")
    may_start: bool = Field(description="the caller may start the race (or its rematch): POST .../start")
    log: list[RoomEventOut] = Field(description="what happened lately, oldest first")
    game: dict[str, Any] | None = Field(
        description="co-op: the shared game; a race: the caller's own, once started (as GET /api/games/{id} answers)"
    )


def room_out(view: Any, link: str | None, game: dict[str, Any] | None) -> RoomOut:
    room = view.room
    return RoomOut(
        id=view.room_id,
        kind=room.kind,
        mode=room.mode,
        width=room.width,
        height=room.height,
        mines=room.mines,
        settings=room.settings,
        invite=room.invite if not view.watching else None,
        link=link if not view.watching else None,
        players=[
            RoomPlayerOut(
                name=row.name,
                colour=row.colour,
                you=view.viewer is not None and row.member == view.viewer,
                present=row.present,
                racing=row.racing,
                progress=row.progress,
                deaths=row.deaths,
                status=row.status or None,
                seconds=row.seconds,
                rank=row.rank,
                game=row.game,
            )
            for row in view.standings
        ],
        watching=view.watching,
        phase=view.phase,
        round=view.round,
        starts_at=view.opens_at,
        over=view.over,
        may_start=view.may_start,
        log=[RoomEventOut(**event) for event in room.log],
        game=game,
    )


if TYPE_CHECKING:
    # mypy cannot read models made at run time: the route's body as it checks it.
    NewRoomIn = NewRoomBase
else:
    NewRoomIn = new_room_model()
