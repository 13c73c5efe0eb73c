"""A one-player mode with an action of its own that names no cell, for tests of the house's seams: Ask.

Classic's board and one more action, as Help adds its own to Classic: an ask names no cell and says how many
covered cells the numbers prove safe, never which. Two asks a game are free and counted; a third gives the game
up: it is lost, and the cells proven safe then are shown (`missed_cells`). Before a guess, the bot asks once a
game, in words of the mode's own (`bot_actions`, `bot_words`). Nothing outside tests/ is written for it: its
face's toolbar button and script are in tests/ask_face/, and a test registers mode and face (`registered`).
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from app.core.game import BotChoice, Game, Move, Refused, Turn
from app.core.stored import Cell, Count, schema
from app.modes import MODES
from app.modes.base import YOU
from app.modes.classic import Classic, ClassicState
from app.web.faces import FACES, Face
from solver import Analyzer, Interrupted

FREE_ASKS = 2


@schema
class AskState(ClassicState):
    asks: Count  # free asks taken
    missed: list[Cell]  # once the game is given up: the cells proven safe then


class Ask(Classic):
    name = "test-ask"
    title = "Ask (tests only)"
    presets = {"medium": (16, 16, 40)}
    state_schema = AskState
    extra_actions = ("ask",)
    bot_actions = ("reveal", "ask")
    action_notes = {"ask": "how many covered cells can be proven safe; the third ask gives the game up"}
    daily: ClassVar[dict[str, bool] | None] = None  # none of its own: Classic's is inherited otherwise

    def new_state(self) -> dict[str, Any]:
        return {**super().new_state(), "asks": 0, "missed": []}

    def act(self, turn: Turn, move: Move) -> None:
        game = turn.game
        if game.started_at is None:
            raise Refused("Nothing to ask before the first click: it is safe wherever it falls.")
        try:
            with turn.analyzer.limits(turn.limits.timed()):
                proven = sorted(game.index(*cell) for cell in turn.analyzer.safe_cells())
        except Interrupted:
            # An answer from half an analysis could be wrong, and a give-up would outline too few cells.
            raise Refused("The position is too complex to count in time; the ask is not taken.") from None
        if game.state["asks"] == FREE_ASKS:
            game.state["missed"] = proven
            game.finish("lost", turn.now, game.mode_secret()["mines"])
            return
        game.state["asks"] += 1
        turn.outcome.message = f"Asked: {len(proven)} covered cell{'s' * (len(proven) != 1)} can be proven safe."

    def bot_choice(self, game: Game, analyzer: Analyzer, rng: random.Random) -> BotChoice:
        choice = super().bot_choice(game, analyzer, rng)
        return replace(choice, action="ask") if not choice.safe and game.state["asks"] == 0 else choice

    def bot_words(self, choice: BotChoice, played: bool, guess: str) -> str | None:
        if choice.action != "ask":
            return None
        return f"The bot {'asked' if played else 'would ask'} before its first guess ({guess})."

    def missed_cells(self, game: Game) -> list[int]:
        return list(game.state["missed"])

    def missed_words(self, game: Game) -> str:
        return "The cells outlined in green could be proven safe when you gave up."

    def result_text(self, game: Game, clock: str, who: str = YOU) -> str:
        if game.status == "lost" and game.exploded is None:
            return f"{who} gave up after {FREE_ASKS} asks ({clock})."
        return super().result_text(game, clock, who)

    def counters(self, game: Game) -> list[tuple[str, str, int, str]]:
        return [("asks", "Asks", game.state["asks"], f"Free asks taken, of {FREE_ASKS}"), *super().counters(game)]

    def public_state(self, game: Game) -> dict[str, Any]:
        # The missed cells are what the numbers proved: nothing of the layout.
        return {**super().public_state(game), "asks": game.state["asks"], "missed": game.state["missed"]}


class AskOut(BaseModel):
    asks: int
    free_left: int
    missed: list[list[int]] = Field(description="once the game is given up: the [x, y] of the cells proven safe then")


class AskFace(Face):
    parts = frozenset({"toolbar"})
    templates = Path(__file__).parent / "ask_face"
    scripts = ("ask.js",)
    static = templates
    api_field = "ask"
    api_model = AskOut
    api_description = "Ask games: the free asks taken and left"

    def api_part(self, game: Game) -> AskOut:
        asks = game.state["asks"]
        missed = [list(game.cell(index)) for index in game.state["missed"]]
        return AskOut(asks=asks, free_left=FREE_ASKS - asks, missed=missed)


def registered(monkeypatch) -> str:
    """Register the mode and its face for one test (both registries are read at every request)."""
    monkeypatch.setitem(MODES, Ask.name, Ask())
    monkeypatch.setitem(FACES, Ask.name, AskFace())
    return Ask.name
