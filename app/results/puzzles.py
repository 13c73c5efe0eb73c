"""Puzzles from finished games: every position a player saw before a move that holds a puzzle (solver.puzzles), each
kept once whatever the game and whatever its turn or mirror. Rules over games, no I/O: a feature keeps what these
find."""

from __future__ import annotations

from collections.abc import Iterable

from app.core.game import Game
from app.results.review import walk
from solver import Allowance, Interrupted, Position
from solver.puzzles import Puzzle, puzzle_in, settled, unflagged


def puzzles_of(games: Iterable[Game], work: int | None = None) -> dict[Position, Puzzle]:
    """The puzzles these finished games passed through, by their canonical position: each position before each
    move of a one-player game (a move taken back included: the player saw it). A position the reasoning cannot
    settle within `work` units (solver.limits, the same on every machine: the same games find the same puzzles)
    is left out."""
    found: dict[Position, Puzzle] = {}
    # Positions already looked at: the steps of a game settle to the same position, one after another, often.
    looked_at: set[Position] = set()
    for game in games:
        if len(game.seats) > 1:
            continue  # a game of seats is two players' story: no one saw it all as one player's position
        # The layout the game showed at its end (a cruel game's, consistent with every number it dealt): with it,
        # each position is first taken as far as one fact at a time goes, as a player would.
        width = game.width
        mines = frozenset((index % width, index // width) for index in game.shown_mines or ())
        for step in walk(game):
            before = step.before
            position = Position(before.width, before.height, before.mines, tuple(before.board_rows()))
            if mines:
                position = settled(unflagged(position), mines)
            if position in looked_at:
                continue
            looked_at.add(position)
            try:
                puzzle = puzzle_in(position, Allowance(work) if work is not None else None)
            except Interrupted:
                continue
            if puzzle is not None:
                found.setdefault(puzzle.position, puzzle)
    return found
