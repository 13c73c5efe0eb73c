"""Flags' face: each seat's score above the board, the bomb in the panel (aimed and dropped by its script,
static/modes/flags/flags.js, drawn by flags.css), the game's rules beside it, each found mine in its
finder's colour, the last move marked; and the game's part of the JSON answer."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from app.core.game import Game
from app.core.languages import gettext
from app.core.seats import computers, opponent_of
from app.modes import Flags, get_mode
from app.web.faces.base import Face


class FlagsOut(BaseModel):
    turn: int = Field(description="the seat to move: 0 Blue, 1 Red")
    scores: list[int] = Field(description="mines found by Blue and by Red")
    found: list[list[list[int]]] = Field(description="the [x, y] of the mines each seat found, in order")
    bombs_used: list[bool] = Field(description="whether Blue and Red have dropped their bomb")
    last: list[list[int]] = Field(description="the [x, y] of the cells the last move uncovered")
    winner: int | None = Field(description="once the game is over: the winning seat; null is a draw")
    opponent: Literal["screen", "invite", "computer"]
    level: Literal["easy", "normal", "hard"] | None = Field(description="the computer's, in a game against it")


class FlagsFace(Face):
    parts = frozenset({"topbar", "panel", "settings"})
    scripts = ("flags.js",)
    styles = ("flags.css",)
    api_field: ClassVar[str | None] = "two_players"
    api_model = FlagsOut
    api_description = "Flags games: whose turn, the scores, who found which mine; status 'won' means over (see winner)"
    api_after = "bot_moves"

    def context(self, game: Game, seating: Any) -> dict[str, Any]:
        mover = game.state["turn"]
        acting = seating is not None and mover in seating.held
        rules = get_mode(game.mode)
        assert isinstance(rules, Flags)
        _, level = opponent_of(game.seats)
        return {
            "turn_rule": gettext(rules.turn_rule),
            # What the computer does, in the game's rules beside the board.
            "computer_note": (
                gettext(
                    "The computer (%(level)s) %(note)s.",
                    level=gettext(rules.level_titles[level]),
                    note=gettext(rules.level_notes[level]),
                )
                if level in rules.level_notes
                else ""
            ),
            "computer_seats": computers(game.seats),
            # Offered to the player to move while they may drop it (the rules say when).
            "bomb_ready": game.status == "playing" and acting and Flags.bomb_refusal(game, mover) is None,
        }

    def owners(self, game: Game) -> dict[int, int]:
        return {index: seat for seat, cells in enumerate(game.state["found"]) for index in cells}

    def last_move(self, game: Game) -> frozenset[int] | None:
        return frozenset(game.state["last"])

    def api_part(self, game: Game) -> FlagsOut:
        state = game.state
        opponent, level = opponent_of(game.seats)
        return FlagsOut(
            turn=state["turn"],
            scores=state["scores"],
            found=[[list(game.cell(index)) for index in cells] for cells in state["found"]],
            bombs_used=state["bombs"],
            last=[list(game.cell(index)) for index in state["last"]],
            winner=state["winner"],
            opponent=opponent,
            level=level,
        )
