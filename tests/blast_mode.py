"""A one-player mode with an action of its own on an area, for tests of the house's seams: Blast.

Classic's board (a layout dealt at the first click) and one more action, a bomb as Flags has one: a blast
names a cell and opens the covered cells of the 3x3 square around it; a mine among them loses the game. Nothing
outside tests/ is written for it: its face's toolbar button, script (the tool that aims a blast) and stylesheet
are in tests/blast_face/, and a test registers mode and face (`registered`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from app.core.game import Game, Move, Refused, Turn
from app.core.stored import Count, schema
from app.modes import MODES
from app.modes.classic import Classic, ClassicState
from app.web.faces import FACES, Face
from solver.position import COVERED, FLAG, describe

# How far a blast reaches from the cell it names, on every side.
REACH = 1


@schema
class BlastState(ClassicState):
    blasts: Count


class Blast(Classic):
    name = "test-blast"
    title = "Blast (tests only)"
    presets = {"medium": (16, 16, 40)}
    state_schema = BlastState
    extra_actions = ("blast",)
    action_notes = {"blast": "opens the 3x3 square around x, y; a mine in it loses"}
    daily: ClassVar[dict[str, bool] | None] = None  # none of its own: Classic's is inherited otherwise

    def new_state(self) -> dict[str, Any]:
        return {**super().new_state(), "blasts": 0}

    def board_data(self, game: Game) -> dict[str, str]:
        # The square the face's script outlines while a blast is aimed: the rules' own reach, said once.
        return {"blast-reach": str(REACH)}

    def act(self, turn: Turn, move: Move) -> None:
        game = turn.game
        centre = game.index(move.x, move.y)
        if game.started_at is None:
            # The first click deals the layout around itself: a blast there would have nothing to spare.
            raise Refused("Blast once the board is open: the first click deals it.")
        square = [
            index
            for index in (centre, *game.neighbours(centre))
            if game.cells[index] == COVERED and game.marks.get(index) != FLAG
        ]
        if not square:
            raise Refused(f"Nothing to blast around {describe(game.cell(centre))}: no covered cell without a flag.")
        game.state["blasts"] += 1
        mines = set(game.mode_secret()["mines"])
        # A mine first: opening the safe cells before it could win a game the blast loses.
        for index in sorted(square, key=lambda index: index not in mines):
            if game.status != "playing":
                break
            if game.cells[index] == COVERED:  # a zero's flood may have opened it already
                self.reveal_cell(turn, index)
        if game.status == "playing":
            turn.outcome.message = f"Blasted around {describe(game.cell(centre))}."

    def public_state(self, game: Game) -> dict[str, Any]:
        return {**super().public_state(game), "blasts": game.state["blasts"]}


class BlastOut(BaseModel):
    blasts: int


class BlastFace(Face):
    parts = frozenset({"toolbar"})
    templates = Path(__file__).parent / "blast_face"
    scripts = ("blast.js",)
    styles = ("blast.css",)
    static = templates
    api_field = "blast"
    api_model = BlastOut
    api_description = "Blast games: the blasts fired"

    def api_part(self, game: Game) -> BlastOut:
        return BlastOut(blasts=game.state["blasts"])


def registered(monkeypatch) -> str:
    """Register the mode and its face for one test (both registries are read at every request)."""
    monkeypatch.setitem(MODES, Blast.name, Blast())
    monkeypatch.setitem(FACES, Blast.name, BlastFace())
    return Blast.name
