"""A co-op room: every member plays one shared game of a one-player mode; anyone may move at any time."""

from __future__ import annotations

from typing import Any

from pydantic import StrictStr
from typing_extensions import TypedDict

from app.core.languages import N_
from app.core.stored import schema
from app.rooms.base import Room, RoomGames, RoomKind, Standing, opened_cells, standing


@schema
class CoopState(TypedDict):
    game: StrictStr | None  # the shared game, once made


class Coop(RoomKind):
    name = "coop"
    title = N_("Co-op room")
    summary = N_("Two to eight players share one board: anyone may move, everyone sees every move.")
    rules_link = N_("Rules of this co-op room")
    state_schema = CoopState
    counts_in_records = False  # a board cleared by several is nobody's own record

    def new_state(self) -> dict[str, Any]:
        return {"game": None}

    def made(self, room: Room, room_id: str, games: RoomGames, now: float) -> None:
        (room.state["game"],) = games.make(room, room_id, [room.players()])

    def joined(self, room: Room, room_id: str, player: str, games: RoomGames, now: float) -> None:
        games.seat(room, room.state["game"], player)

    def left(self, room: Room, room_id: str, player: str, games: RoomGames, now: float) -> None:
        games.vacate(room, room.state["game"], player)

    def game_for(self, room: Room, viewer: str) -> str | None:
        return room.state["game"]

    def standings(
        self, room: Room, viewer: str, present: frozenset[int], games: RoomGames, now: float
    ) -> tuple[list[Standing], bool]:
        game = games.peek([room.state["game"]]).get(room.state["game"]) if room.state["game"] else None
        rows = [standing(number, member, present) for number, member in enumerate(room.members)]
        if game is None:
            return rows, False
        opened, safe = opened_cells(game)
        for row in rows:
            row.racing, row.opened, row.safe, row.status = True, opened, safe, game.status
        return rows, game.status != "playing"
