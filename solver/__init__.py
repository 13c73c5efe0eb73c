"""Reasoning about Minesweeper positions: no web, no sessions, no game rules."""

from solver.analysis import Analyzer, Explanation, Inconsistent, Layout, Probabilities, Status
from solver.counting import Budget
from solver.sat import OutOfTime
from solver.position import Cell, Position, PositionError, describe, parse_position, parse_positions

__all__ = [
    "Analyzer",
    "Budget",
    "Cell",
    "Explanation",
    "Inconsistent",
    "Layout",
    "OutOfTime",
    "Position",
    "PositionError",
    "Probabilities",
    "Status",
    "describe",
    "parse_position",
    "parse_positions",
]
