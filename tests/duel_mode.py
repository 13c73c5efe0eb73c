"""A mode with seats, for tests of the house's interfaces: Duel, two players who take turns on one layout.

Nothing outside tests/ is written for it: its rules are a Mode, its face a Face with templates, a script
and a stylesheet in tests/duel_face/, and a test registers both (`registered`). A seat reveals a cell; a
mine loses the game for it, anything else hands the turn over; once every safe cell is open the game is a
draw.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from app.core.game import Game, Invalid, Move, Outcome, Refused, Switches, Turn, check_revealable
from app.core.stored import Layout, schema
from app.modes import MODES
from app.modes.base import YOU, Mode
from app.web.faces import FACES, Face
from solver import Analyzer, Limits
from solver.position import COVERED

SEAT_NAMES = ("North", "South")


@dataclass
class DuelOptions(Switches):
    """No settings: the rules are the rules."""


@schema
class DuelState(TypedDict):
    turn: Literal[0, 1]
    loser: Literal[0, 1] | None
    moves: Annotated[list[int], Field(min_length=2, max_length=2)]  # reveals per seat


@schema
class DuelSecret(TypedDict):
    layout: Layout


class Duel(Mode):
    name = "test-duel"
    title = "Duel (tests only)"
    presets = {"tiny": (5, 5, 5)}
    seat_count = 2
    options_class = DuelOptions
    state_schema = DuelState
    hidden_schema = DuelSecret

    def new_state(self) -> dict[str, Any]:
        return {"turn": 0, "loser": None, "moves": [0, 0]}

    def deal(self, game: Game, rng: random.Random, secret: bytes = b"") -> None:
        game.hidden = {"layout": sorted(rng.sample(range(game.width * game.height), game.mines))}

    def board_actions(self) -> tuple[str, ...]:
        return ("reveal",)

    def seat_to_move(self, game: Game) -> int:
        return game.state["turn"]

    def seat_name(self, seat: int) -> str:
        return SEAT_NAMES[seat]

    def winner(self, game: Game) -> int | None:
        loser = game.state["loser"]
        return None if loser is None else 1 - loser

    def seat_has_moved(self, game: Game, seat: int) -> bool:
        return game.state["moves"][seat] > 0

    def apply(
        self,
        game: Game,
        move: Move,
        *,
        rng: random.Random,
        now: float,
        analyzer: Analyzer | None = None,
        limits: Limits | None = None,
    ) -> tuple[Game, Outcome]:
        if move.action != "reveal":
            raise Invalid(f"unknown action {move.action!r} in a Duel: expected reveal")
        if game.status != "playing":
            raise Refused("the duel is over")
        seat = game.state["turn"]
        if move.seat is not None and move.seat != seat:
            raise Refused(f"it is {SEAT_NAMES[seat]}'s turn")
        index = game.index(move.x, move.y)
        check_revealable(game, index)
        changed = game.copy()
        turn = Turn(changed, analyzer or Analyzer(game.position()), rng, limits or Limits(), now, move)
        changed.started_at = changed.started_at or now
        changed.state["moves"][seat] += 1
        mines = frozenset(game.hidden["layout"])
        if index in mines:
            changed.exploded = index
            changed.state["loser"] = seat
            changed.finish("lost", now, mines)
            turn.outcome.changed.update(mines)
        else:
            board = changed.board
            turn.open_cells(
                board.flood(
                    index, number_at=lambda i: board.mines_around(i, mines), opens=lambda i: changed.cells[i] == COVERED
                )
            )
            if changed.covered == changed.mines:
                changed.finish("won", now, mines)
            changed.state["turn"] = 1 - seat
        changed.last_cell = index
        changed.history.append(turn.undo)
        changed.version += 1
        turn.outcome.analyzer = turn.analyzer
        return changed, turn.outcome

    def result_text(self, game: Game, clock: str, who: str = YOU) -> str:
        if game.status == "playing":
            return ""
        loser = game.state["loser"]
        return "A draw: every safe cell is open." if loser is None else f"{SEAT_NAMES[1 - loser]} wins."


class DuelOut(BaseModel):
    turn: int
    moves: list[int]


class DuelFace(Face):
    parts = frozenset({"topbar"})
    templates = Path(__file__).parent / "duel_face"
    # Its script and stylesheet, beside its templates: served as /static/modes/test-duel/<name>.
    scripts = ("duel.js",)
    styles = ("duel.css",)
    static = templates
    api_field = "duel"
    api_model = DuelOut
    api_description = "Duel games: whose turn, and each seat's reveals"

    def context(self, game: Game, seating: Any) -> dict[str, Any]:
        return {"duel_moves": game.state["moves"]}

    def api_part(self, game: Game) -> DuelOut:
        return DuelOut(turn=game.state["turn"], moves=game.state["moves"])


def registered(monkeypatch) -> str:
    """Register the mode and its face for one test (both registries are read at every request)."""
    monkeypatch.setitem(MODES, Duel.name, Duel())
    monkeypatch.setitem(FACES, Duel.name, DuelFace())
    return Duel.name
