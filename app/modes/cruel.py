"""Cruel but fair (DESIGN.md §1.1): no mine has a place until a click forces one.

A game keeps only what the player has seen; every reveal asks the solver
what the player could have known and deals a layout uniformly among those
consistent with the decision. There is no hidden state to keep: the next
layout does not exist until the next click.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.game import Game, Hint, Options, Refused, Turn, setting
from app.modes.base import Mode
from solver import Analyzer, Inconsistent, OutOfTime, Status, describe
from solver.position import FLAG


@dataclass
class CruelOptions(Options):
    allow_outside: bool = setting("Allow guessing anywhere", order=0)


class Cruel(Mode):
    name = "cruel"
    title = "Cruel but fair"
    options_class = CruelOptions

    def new_state(self) -> dict[str, Any]:
        return {"forced_guesses": 0}

    def reveal_cell(self, turn: Turn, index: int) -> None:
        game, analyzer = turn.game, turn.analyzer
        cell = game.cell(index)
        first = game.started_at is None
        hurried = False
        try:
            safe, forced = judge(game, analyzer, cell)
        except OutOfTime:
            # The solver ran out of time before it knew this position. The fair
            # reading: no safe cell is known, so the click is a guess, and a guess
            # is safe when the cell can be safe. What was proven already still counts.
            proven = analyzer.proven(cell)
            safe, forced, hurried = proven is not Status.MINE, proven is Status.UNKNOWN, True
            turn.outcome.message = "The position was too complex to judge in time: this click counted as a guess."
        if first:
            game.started_at = turn.now
        if not safe:
            self._explode(turn, index)
            return
        try:
            layout = analyzer.sample_layout(turn.rng, force=(cell, False), budget=turn.budget)
        except Inconsistent:
            if not hurried:
                raise
            # In a hurry the cell turned out to be a mine in every layout.
            self._explode(turn, index)
            return
        if forced:
            game.state["forced_guesses"] += 1
            turn.outcome.forced_guess = True
        board = game.board
        mines = {board.index(x, y) for x, y in layout.mines}
        opened = board.flood(
            index,
            number_at=lambda i: board.mines_around(i, mines),
            opens=lambda i: game.cells[i] == "." and game.marks.get(i) != FLAG,
        )
        turn.open_cells(opened)
        if game.covered == game.mines:
            game.finish("won", turn.now, (i for i, symbol in enumerate(game.cells) if symbol == "."))
            turn.outcome.message = "Cleared: every safe cell is open."

    def _explode(self, turn: Turn, index: int) -> None:
        game = turn.game
        cell = game.cell(index)
        layout = turn.analyzer.sample_layout(turn.rng, force=(cell, True), budget=turn.budget)
        game.exploded = index
        game.finish("lost", turn.now, (game.board.index(x, y) for x, y in layout.mines))
        turn.outcome.message = f"Boom: {describe(cell)} was a mine."

    def hint(self, game: Game, analyzer: Analyzer) -> Hint:
        """What the player could know now: the messages of DESIGN.md §1.1, and one proven-safe cell with its proof."""
        if game.status != "playing":
            raise Refused(f"the game is {game.status}: no hints after the end")
        statuses = analyzer.classify()
        for index, mark in sorted(game.marks.items()):
            if mark == FLAG and statuses[game.cell(index)] is not Status.MINE:
                return Hint("wrong_flag", "You flagged a cell that could be empty", game.cell(index))
        if game.started_at is None:
            return Hint("start", "Click anywhere: the first click is always safe")
        safe = [cell for cell, status in statuses.items() if status is Status.SAFE]
        if safe:
            # A cell next to the numbers, near the last click, has the proof a player can follow.
            last = game.cell(game.last_cell) if game.last_cell is not None else (0, 0)
            cell = min(
                safe,
                key=lambda c: (analyzer.is_outside(c), max(abs(c[0] - last[0]), abs(c[1] - last[1])), c[1], c[0]),
            )
            explanation = analyzer.explain(cell)
            return Hint("safe", "There are safe cells", cell, list(explanation.numbers), explanation.uses_count)
        if analyzer.every_frontier_cell_is_a_mine():
            return Hint("outside", "Every frontier cell is a mine: play outside")
        return Hint("guess", "No safe cells: you may guess")

    def counters(self, game: Game) -> list[tuple[str, str, int, str]]:
        return [("forced", "Forced guesses", game.state["forced_guesses"], "Guesses the rules allowed because no safe cell existed")]

    def result_text(self, game: Game, clock: str) -> str:
        forced = game.state["forced_guesses"]
        if game.status == "won" and forced:
            return f"You won in {clock} with {forced} forced guess{'es' * (forced != 1)}."
        return super().result_text(game, clock)


def judge(game: Game, analyzer: Analyzer, cell: tuple[int, int]) -> tuple[bool, bool]:
    """(safe, forced guess) for a click on a covered cell, by the rules of DESIGN.md §1.1."""
    status = analyzer.status(cell)
    if status is Status.SAFE:
        return True, False
    if status is Status.MINE:
        return False, False
    if not analyzer.frontier_exists():
        # Rule 1: nothing to reason from, so nothing to punish.
        return True, game.started_at is not None
    if not analyzer.is_outside(cell):
        # Rule 2: a risky frontier cell is safe only when no safe cell exists anywhere.
        safe = not analyzer.safe_cell_exists()
        return safe, safe
    if analyzer.every_frontier_cell_is_a_mine():
        # Rule 3: the player has nowhere else to go.
        return True, True
    # Rule 3 (strict) refuses the guess; rule 4 allows it when no safe cell exists.
    safe = game.options.allow_outside and not analyzer.safe_cell_exists()
    return safe, safe
