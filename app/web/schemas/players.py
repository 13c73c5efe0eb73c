"""A player's data as one JSON document (the download of the player page and GET /api/player/export), and what
the API takes to delete it all."""

from __future__ import annotations

import datetime
import json
from typing import Any, Literal

from pydantic import BaseModel, Field

from app.core.seats import held_by
from app.results.progress import Progress
from app.results.records import tallied
from app.service.devices import Passkey
from app.service.players import Export
from app.web.schemas.base import STRICT
from app.web.schemas.games import game_out
from app.web.schemas.records import RecordOut

# What the document says it is, and the version of its shape: a later shape is a new number.
EXPORT_FORMAT = "kaboom-player"
EXPORT_VERSION = 1


class ExportedGame(BaseModel):
    id: str
    listed: bool = Field(description="on the player's list of games (false: they took it off, their seat kept)")
    damaged: bool = Field(description="its stored data cannot be read: its id is all there is")
    left_room: bool = Field(
        description="a game of a room they left: their seat keeps its moves and no longer opens the game"
    )
    seats: list[int] = Field(description="the seats the player holds in it, from 0 (every seat on one screen)")
    game: dict[str, Any] | None = Field(
        description="the game as the player's API shows it (GET /api/games/{id}): nothing of a layout it hides"
    )
    moves: list[dict[str, Any]] = Field(
        description="the moves made in it, in order, as its replay replays them (an undo taken back is a move too)"
    )


class ExportedRoom(BaseModel):
    id: str
    damaged: bool
    kind: str | None = None
    mode: str | None = None
    name: str | None = Field(None, description="the player's name in the room")
    colour: int | None = Field(None, description="the player's colour in the room, from 0")
    members: int | None = Field(None, description="how many are in the room")


class ExportedLadderEntry(BaseModel):
    ladder: str = Field(description="the board of the day's ladder: daily:<date>:<mode>")
    entry: dict[str, Any] | str = Field(description="the entry as the ladder keeps it (as stored, if it does not read)")


class ExportOut(BaseModel):
    format: Literal["kaboom-player"]
    version: int = Field(description="the shape of this document: 1")
    exported_at: str = Field(description="when the document was made (UTC, ISO 8601)")
    player: str = Field(description="the player's id: what their cookie holds")
    name: str | None = Field(description="the display name they chose for the ladders")
    games: list[ExportedGame] = Field(description="every game they hold a seat in, listed or not")
    results: dict[str, dict[str, Any] | str] = Field(
        description="by game id: each game's first end, as the records count it (a result outlives its game)"
    )
    records: list[RecordOut] = Field(description="what the results add up to, per mode and size")
    boards_seen: dict[str, str] = Field(
        description="by board id: the game whose end first showed them that board (later games of it are no result)"
    )
    ladders: list[ExportedLadderEntry] = Field(description="their entries on the boards of the day's ladders")
    rooms: list[ExportedRoom] = Field(description="the rooms they are in")
    claims: dict[str, str] = Field(
        description="what the server holds in their name so that only one request wins: the look of their name, "
        "their game of a board of the day in play"
    )
    passkeys: list[PasskeyOut] = Field(description="their passkeys' names and dates (a passkey's secret is never here)")
    link_codes: int = Field(description="how many of their link codes are still to be used")


def export_document(export: Export, now: float) -> dict[str, Any]:
    """The JSON document of everything the server holds about a player, nothing of a layout the game hides."""
    holdings = export.holdings
    records = tallied(holdings.tallies)
    return ExportOut(
        format=EXPORT_FORMAT,
        version=EXPORT_VERSION,
        exported_at=datetime.datetime.fromtimestamp(now, datetime.UTC).isoformat(timespec="seconds"),
        player=export.player,
        name=holdings.name,
        games=[_game(export, game_id, now) for game_id in holdings.games],
        results={game_id: _read(text) for game_id, text in holdings.results.items()},
        records=[RecordOut.of(record) for record in records.records] if records is not None else [],
        boards_seen=holdings.boards,
        ladders=[ExportedLadderEntry(ladder=ladder, entry=_read(entry)) for ladder, entry in holdings.ladders.items()],
        rooms=[_room(export, room_id) for room_id in holdings.rooms],
        claims=holdings.claims,
        passkeys=[PasskeyOut.of(passkey) for passkey in export.passkeys],
        link_codes=sum(key.startswith("link:") for key in holdings.tokens),
    ).model_dump(mode="json")


def _read(text: str) -> dict[str, Any] | str:
    """A stored JSON object, or the text as it is when it does not read as one."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, dict) else text


def _game(export: Export, game_id: str, now: float) -> ExportedGame:
    game = export.games.get(game_id)
    listed = game_id not in export.holdings.left
    if game is None:
        damaged, left_room = game_id in export.damaged, game_id in export.closed
        return ExportedGame(
            id=game_id, listed=listed, damaged=damaged, left_room=left_room, seats=[], game=None, moves=[]
        )
    moves = [record["move"] for record in game.history if "move" in record]
    seats = sorted(held_by(game.seats, export.player))
    return ExportedGame(
        id=game_id,
        listed=listed,
        damaged=False,
        left_room=False,
        seats=seats,
        game=game_out(game_id, game, now),
        moves=moves,
    )


def _room(export: Export, room_id: str) -> ExportedRoom:
    room = export.rooms.get(room_id)
    if room is None:
        return ExportedRoom(id=room_id, damaged=True)
    member = room.member(export.player)
    return ExportedRoom(
        id=room_id,
        damaged=False,
        kind=room.kind,
        mode=room.mode,
        name=member.name if member else None,
        colour=member.colour if member else None,
        members=len(room.members),
    )


class DeleteIn(BaseModel):
    model_config = STRICT
    confirm: Literal["delete everything"] = Field(
        description='the words "delete everything", so that no request deletes a player by mistake'
    )


class PasskeyOut(BaseModel):
    id: str = Field(description="the credential's id (base64url), as the browser names it")
    name: str
    created_at: float = Field(description="when it was made, in seconds since 1970 (UTC)")
    last_used_at: float | None = Field(description="when it last signed in, in seconds since 1970; null: never")

    @classmethod
    def of(cls, passkey: Passkey) -> PasskeyOut:
        return cls(
            id=passkey.credential_id,
            name=passkey.name,
            created_at=passkey.created_at,
            last_used_at=passkey.last_used_at,
        )


class NewPasskeyIn(BaseModel):
    model_config = STRICT
    credential: dict[str, Any] = Field(
        description="what navigator.credentials.create answered, as its toJSON() writes it"
    )
    name: str = Field(description="what the player calls it: 1 to 40 characters")


class PasskeyNameIn(BaseModel):
    model_config = STRICT
    name: str = Field(description="what the player calls it: 1 to 40 characters")


class SignInIn(BaseModel):
    model_config = STRICT
    credential: dict[str, Any] = Field(description="what navigator.credentials.get answered, as its toJSON() writes it")


class LinkIn(BaseModel):
    model_config = STRICT
    code: str = Field(description="the link code another device shows (any case; spaces and dashes are left out)")


class JoinIn(BaseModel):
    model_config = STRICT
    bring: bool = Field(
        description="true: this device's games, results, records and ladder entries become the signed-in "
        "player's (merged); false: they stay with the player this device was, and the device leaves them"
    )


class SignInOut(BaseModel):
    signed_in: bool = Field(description="this device is the player now")
    choice: bool = Field(
        description="this device has games of its own: it becomes the player once POST /api/player/join says "
        "whether to bring them along (within ten minutes)"
    )
    next: str = Field(description="the page to go to: the home page, or the one that asks about the games")


class LinkCodeOut(BaseModel):
    code: str = Field(description="the code to type on the other device: three groups of four letters and digits")
    expires_at: float = Field(description="when it stops linking, in seconds since 1970 (UTC)")
    url: str = Field(description="a link that opens the page where the code is entered, the code filled in")


class WeekOut(BaseModel):
    start: str = Field(description="the week's Monday (UTC), ISO 8601")
    games: int
    wins: int
    bbbv_per_second: float | None = Field(description="the mean 3BV per second of its wins that have a 3BV")
    accuracy: float | None = Field(description="the mean accuracy of its graded games, 0 to 1")


class WeekTimesOut(BaseModel):
    start: str
    best: float = Field(description="the week's best winning time, in seconds")
    median: float = Field(description="the week's median winning time, in seconds")
    wins: int


class GroupTimesOut(BaseModel):
    mode: str
    width: int
    height: int
    mines: int
    kind: str
    weeks: list[WeekTimesOut] = Field(description="the weeks it was won in, oldest first")


class ProgressOut(BaseModel):
    weeks: list[WeekOut] = Field(description="every week of the last year from the player's first result, oldest first")
    groups: list[GroupTimesOut] = Field(description="each mode and size won in, in the order of its first win")
    finished: int = Field(description="how many finished games the results count (their list: GET /api/player/export)")

    @classmethod
    def of(cls, progress: Progress) -> ProgressOut:
        return cls(
            weeks=[
                WeekOut(
                    start=week.start.isoformat(),
                    games=week.games,
                    wins=week.wins,
                    bbbv_per_second=week.bbbv_per_second,
                    accuracy=week.accuracy,
                )
                for week in progress.weeks
            ],
            groups=[
                GroupTimesOut(
                    mode=group.mode,
                    width=group.width,
                    height=group.height,
                    mines=group.mines,
                    kind=group.kind,
                    weeks=[
                        WeekTimesOut(start=week.start.isoformat(), best=week.best, median=week.median, wins=week.wins)
                        for week in group.weeks
                    ],
                )
                for group in progress.groups
            ],
            finished=len(progress.finished),
        )
