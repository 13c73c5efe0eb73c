"""A race: each racer plays their own game of the same board, started together; the first to clear wins.

Every racer's game is a copy of one board that deals the same cells for the same clicks (Mode.shared_board:
one layout from a board id, or a cruel game's deal secret), opening for all at once after a countdown.
While a racer plays on, no answer shows them another racer's board: the boards are the same, so any of
them would tell where the mines are. Whoever watches sees the scoreboard as it moves, and the boards once
the race is over (a racer could watch through the same link).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import StrictStr
from typing_extensions import TypedDict

from app.core.game import Game, Refused
from app.core.languages import N_, gettext, lazy_gettext, lazy_ngettext
from app.core.stored import Count, Time, schema
from app.rooms.base import Room, RoomGames, RoomKind, Standing, opened_cells, standing

# Racers a race needs before it starts.
MIN_RACERS = 2


@schema
class RaceState(TypedDict):
    round: Count  # races run in the room so far (a rematch adds one)
    phase: Literal["lobby", "racing"]  # waiting for the maker to start, or a round under way (or over)
    starts_at: Time | None  # when the round's boards open: after a short countdown
    games: dict[StrictStr, StrictStr]  # the round's racers (player ids) and their games


class Race(RoomKind):
    name = "race"
    title = N_("Race")
    summary = N_("Two to eight players race on the same board, started together: the first to clear it wins.")
    rules_link = N_("Rules of this race")
    state_schema = RaceState
    even = True
    assists = False  # a race is run on what each racer can see
    # A mine ends a racer's run: undo would buy the layout (lose, see every mine, take it back) for a death.
    fixed_settings = {"undo": (False, N_("a race is played without undo: a mine ends a racer's run"))}

    def new_state(self) -> dict[str, Any]:
        return {"round": 0, "phase": "lobby", "starts_at": None, "games": {}}

    def game_for(self, room: Room, viewer: str) -> str | None:
        return room.state["games"].get(viewer)

    def joined(self, room: Room, room_id: str, player: str, games: RoomGames, now: float) -> None:
        if player in room.state["games"]:
            games.seat(room, room.state["games"][player], player)  # a racer back in the round they left

    def left(self, room: Room, room_id: str, player: str, games: RoomGames, now: float) -> None:
        if player in room.state["games"]:
            games.vacate(room, room.state["games"][player], player)

    def recast(self, state: dict[str, Any], source: str, target: str) -> None:
        racing = state["games"]
        if source in racing:
            game = racing.pop(source)
            racing.setdefault(target, game)

    def round(self, room: Room) -> tuple[str | None, int | None, float | None]:
        return room.state["phase"], room.state["round"], room.state["starts_at"]

    def state_text(self, room: Room) -> str:
        if room.state["phase"] == "lobby":
            return gettext("Waiting to start")
        return gettext("Round %(round)s", round=room.state["round"])

    def start(self, room: Room, room_id: str, player: str, games: RoomGames, now: float) -> None:
        if room.seat_of(player) is None:
            raise Refused(lazy_gettext("only the racers start a race: whoever watches waits for them"))
        if room.state["phase"] == "lobby":
            if player != room.creator:
                raise Refused(lazy_gettext("%(name)s, who made the race, starts it", name=room.members[0].name))
            if len(room.members) < MIN_RACERS:
                raise Refused(
                    lazy_ngettext(
                        "a race needs %(num)s player at least: send the link first",
                        "a race needs %(num)s players at least: send the link first",
                        MIN_RACERS,
                    )
                )
        else:
            standings, over = self.standings(room, player, frozenset(), games, now)
            if not self._rematch_ready(standings, over):
                raise Refused(
                    lazy_gettext("the race is on: a rematch once someone has cleared the board, or everyone is out")
                )
        racers = room.players()
        opens_at = now + games.countdown
        sealed = str(room.state["round"] + 1)
        made = games.make(room, room_id, [[racer] for racer in racers], opens_at=opens_at, sealed=sealed)
        room.state.update(
            round=room.state["round"] + 1,
            phase="racing",
            starts_at=opens_at,
            games=dict(zip(racers, made, strict=True)),
        )

    @staticmethod
    def _rematch_ready(standings: list[Standing], over: bool) -> bool:
        return over or any(row.status == "won" for row in standings)

    def place(self, room: Room, player: str, games: RoomGames, now: float) -> dict[str, Any] | None:
        if player not in room.state["games"]:
            return None
        standings, _ = self.standings(room, player, frozenset(), games, now)
        mine = next(row for row in standings if room.members[row.member].player == player)
        return {"kind": self.name, "rank": mine.rank, "of": len(room.state["games"])}

    def may_start(self, room: Room, viewer: str, over: bool, standings: list[Standing]) -> bool:
        if room.seat_of(viewer) is None:
            return False
        if room.state["phase"] == "lobby":
            return viewer == room.creator and len(room.members) >= MIN_RACERS
        return self._rematch_ready(standings, over)

    def standings(
        self, room: Room, viewer: str, present: frozenset[int], games: RoomGames, now: float
    ) -> tuple[list[Standing], bool]:
        # The round's racers still in the room: one who left is out of it, and the round waits on them no more.
        racing = {player: game for player, game in room.state["games"].items() if room.seat_of(player) is not None}
        peeked = games.peek(sorted(racing.values())) if racing else {}
        rows = [standing(number, member, present) for number, member in enumerate(room.members)]
        played = {player: peeked.get(game_id) for player, game_id in racing.items()}
        over = bool(racing) and all(game is None or game.status != "playing" for game in played.values())
        own = played.get(viewer)
        # A racer sees the others' boards once theirs can change no more, and whoever watches once the race
        # is over: every racer holds the room's link, and a board watched through it would show them the
        # cells of their own.
        may_look = over or (own is not None and self._settled(own))
        for row in rows:
            player = room.members[row.member].player
            game = played.get(player)
            # Before the first round everyone in the room is to race; later, the round's racers.
            row.racing = player in racing or room.state["phase"] == "lobby"
            if game is None:
                continue
            row.opened, row.safe = opened_cells(game)
            row.deaths, row.status = game.deaths, game.status
            if game.status == "won":
                row.seconds = game.elapsed(game.finished_at or now)
            if may_look and player != viewer:
                row.game = racing[player]
        winners = sorted((row for row in rows if row.seconds is not None), key=lambda row: (row.seconds, row.member))
        for rank, row in enumerate(winners, 1):
            row.rank = rank
        rows.sort(key=lambda row: (not row.racing, row.rank or len(rows) + 1, -row.opened, row.deaths, row.member))
        return rows, over

    def contested(self, room: Room, games: RoomGames, now: float) -> str | None:
        if room.state["phase"] != "racing":
            return None
        _, over = self.standings(room, room.creator, frozenset(), games, now)
        return None if over else str(room.state["round"])

    @staticmethod
    def _settled(game: Game) -> bool:
        """A board that can change no more: cleared, or lost where undo cannot take the loss back."""
        return game.status == "won" or (game.status == "lost" and not game.options.undo)
