"""Records: each finished game's result, kept per player, and what they add up to per mode and size.

A result is written once, at a game's first end (app.service), and outlives
the game. A won game of a fixed layout also has its 3BV (the fewest clicks
that clear the board), its 3BV per second and the clicks the player used.
Results come back from the store as JSON and are checked here; one that does
not read is left out and counted, never shown half.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import Field, StrictBool, StrictInt, StrictStr, TypeAdapter, ValidationError
from typing_extensions import NotRequired, TypedDict

from app.game import MAX_BOARD_SIDE, PRESETS, Game
from app.modes import get_mode
from app.stored import schema
from solver.generate import bbbv

BEST_TIMES = 10
Seconds = Annotated[float, Field(ge=0, le=1e12, allow_inf_nan=False)]


@schema
class Result(TypedDict):
    mode: StrictStr
    width: Annotated[StrictInt, Field(ge=2, le=MAX_BOARD_SIDE)]
    height: Annotated[StrictInt, Field(ge=2, le=MAX_BOARD_SIDE)]
    mines: Annotated[StrictInt, Field(ge=1)]
    won: StrictBool
    seconds: Seconds
    finished_at: Seconds
    deaths: Annotated[StrictInt, Field(ge=0)]
    hints: Annotated[StrictInt, Field(ge=0)]
    bbbv: Annotated[StrictInt, Field(ge=0)] | None
    clicks: Annotated[StrictInt, Field(ge=0)] | None
    # Boards of another kind than the mode's usual ("no guessing"); absent from results kept before kinds.
    kind: NotRequired[Annotated[StrictStr, Field(max_length=40)]]


RESULT = TypeAdapter(Result)


def fixed_layout_figures(game: Game) -> tuple[int, float, int] | None:
    """(3BV, 3BV per second, clicks) of a won game whose layout was fixed from the start of play; None
    for any other (cruel-but-fair deals as it goes, so its board has no 3BV to speak of)."""
    if game.status != "won" or "clicks" not in game.state or game.shown_mines is None:
        return None
    value = bbbv(game.width, game.height, frozenset(game.shown_mines))
    seconds = game.elapsed(game.finished_at or 0.0)
    return value, (value / seconds if seconds > 0 else 0.0), game.state["clicks"]


def counts_in_records(game: Game) -> bool:
    """Whether a game's end is a result of the player's: not once the bot played any move of it (Play for
    me), even one undone since. Hints, Show me, the overlays and the assists leave it the player's own."""
    return not game.state.get("bot_moves")


def result_of(game: Game) -> dict[str, Any]:
    figures = fixed_layout_figures(game)
    return {
        "mode": game.mode, "width": game.width, "height": game.height, "mines": game.mines,
        "won": game.status == "won", "seconds": game.elapsed(game.finished_at or 0.0),
        "finished_at": game.finished_at or 0.0, "deaths": game.deaths, "hints": game.hints,
        "bbbv": figures[0] if figures else None, "clicks": figures[2] if figures else None,
        "kind": get_mode(game.mode).record_kind(game),
    }


@dataclass
class Best:
    seconds: float
    finished_at: float
    bbbv: int | None

    @property
    def bbbv_per_second(self) -> float | None:
        return self.bbbv / self.seconds if self.bbbv is not None and self.seconds > 0 else None

    @property
    def date(self) -> str:
        return time.strftime("%Y-%m-%d", time.gmtime(self.finished_at))


@dataclass
class Record:
    """A player's games of one mode at one size."""

    mode: str
    width: int
    height: int
    mines: int
    kind: str = ""  # boards apart from the mode's usual ones ("no guessing")
    games: int = 0
    wins: int = 0
    streak: int = 0  # wins in a row up to the latest game
    best_streak: int = 0
    best: list[Best] = field(default_factory=list)  # the fastest wins, fastest first

    @property
    def size(self) -> str:
        preset = next((name for name, size in PRESETS.items() if size == (self.width, self.height, self.mines)), None)
        described = f"{self.width}×{self.height}, {self.mines} mine{'s' * (self.mines != 1)}"
        size = f"{preset.capitalize()} ({described})" if preset else described
        return f"{size}, {self.kind}" if self.kind else size

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def add(self, result: Result) -> None:
        self.games += 1
        if result["won"]:
            self.wins += 1
            self.streak += 1
            self.best_streak = max(self.best_streak, self.streak)
            self.best.append(Best(result["seconds"], result["finished_at"], result["bbbv"]))
            self.best = sorted(self.best, key=lambda best: (best.seconds, best.finished_at))[:BEST_TIMES]
        else:
            self.streak = 0


@dataclass
class Records:
    records: list[Record]
    unreadable: int  # stored results that did not read back: left out


def records_of(stored: list[str]) -> Records:
    """Per mode and size, in the order of the modes' first games; results taken in the order they ended."""
    results, unreadable = [], 0
    for text in stored:
        try:
            results.append(RESULT.validate_python(json.loads(text)))
        except (ValueError, ValidationError):
            unreadable += 1
    by_kind: dict[tuple[str, int, int, int, str], Record] = {}
    for result in sorted(results, key=lambda result: result["finished_at"]):
        kind = (result["mode"], result["width"], result["height"], result["mines"], result.get("kind", ""))
        by_kind.setdefault(kind, Record(*kind)).add(result)
    return Records(list(by_kind.values()), unreadable)
