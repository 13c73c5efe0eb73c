"""Cruel but fair (DESIGN.md §1.1): no mine has a place until a click forces one.

A game keeps only what the player has seen; every reveal asks the solver
what the player could have known and deals a layout uniformly among those
consistent with the decision. There is no hidden state to keep: the next
layout does not exist until the next click.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from typing_extensions import TypedDict

from app.game import Game, Hint, Options, Refused, Turn, setting
from app.modes.base import Mode
from app.stored import Count, schema
from solver import Analyzer, Inconsistent, OutOfTime, OutOfWork, Status, describe
from solver.position import FLAG

log = logging.getLogger("kaboom.solver")


@dataclass
class CruelOptions(Options):
    allow_outside: bool = setting("Allow guessing anywhere", order=0)


@schema
class CruelState(TypedDict):
    forced_guesses: Count


class Cruel(Mode):
    name = "cruel"
    title = "Cruel but fair"
    options_class = CruelOptions
    state_schema = CruelState

    def new_state(self) -> dict[str, Any]:
        return {"forced_guesses": 0}

    def reveal_cell(self, turn: Turn, index: int) -> None:
        game, analyzer = turn.game, turn.analyzer
        cell = game.cell(index)
        first = game.started_at is None
        safe, forced, hurried = verdict(game, turn, cell)
        if hurried:
            turn.outcome.message = "The position was too complex to judge in full: this click counted as a guess."
        if first:
            game.started_at = turn.now
        if not safe:
            self._explode(turn, index)
            return
        try:
            with analyzer.limits(turn.limits.for_deal(hurried)):
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
        with turn.analyzer.limits(turn.limits.metered()):
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


def verdict(game: Game, turn: Turn, cell: tuple[int, int]) -> tuple[bool, bool, bool]:
    """(safe, forced guess, hurried) for a click: the rules' answer within the turn's work allowance.

    The answer must not depend on the machine, its load, or what the analyzer
    cache happened to keep, so it is the answer a fresh analysis of this
    position gives within the work allowance, which counts solver work, not
    time. When that work runs out the click is judged as a guess ("hurried"):
    safe unless what was proven within it makes the cell a mine. The cached
    analyzer is asked first because it is usually done at once; whatever it
    says safe a fresh analysis says safe too (exactly or as a guess), so only a
    loss, or a cached analyzer out of work, is checked on a fresh one.
    """
    analyzer = turn.analyzer
    pristine = analyzer.pristine
    # A cached analyzer that stopped short before will stop short again: only the fresh answer counts.
    if pristine or not analyzer.interrupted:
        try:
            with analyzer.limits(turn.limits.metered()):
                safe, forced = judge(game, analyzer, cell)
            if safe or pristine:
                return safe, forced, False
        except OutOfWork:
            if pristine:
                return _guess(analyzer, cell)
        except OutOfTime:
            return _out_of_time(game, analyzer, cell)
    fresh = Analyzer(game.position())
    try:
        with fresh.limits(turn.limits.metered()):
            return (*judge(game, fresh, cell), False)
    except OutOfWork:
        return _guess(fresh, cell)
    except OutOfTime:
        return _out_of_time(game, fresh, cell)


def _guess(analyzer: Analyzer, cell: tuple[int, int]) -> tuple[bool, bool, bool]:
    """A click the solver could not judge in full: a guess, lost only where what it proved says mine."""
    proven = analyzer.proven(cell)
    return proven is not Status.MINE, proven is Status.UNKNOWN, True


def _out_of_time(game: Game, analyzer: Analyzer, cell: tuple[int, int]) -> tuple[bool, bool, bool]:
    # The wall clock is the last guard: where it stops depends on the machine's
    # load, which a verdict should not, so every time it decides one is logged.
    log.warning(
        "wall-clock limit reached judging a click at %s on a %dx%d board with %d mines: judged as a guess",
        describe(cell), game.width, game.height, game.mines,
    )
    return _guess(analyzer, cell)


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
