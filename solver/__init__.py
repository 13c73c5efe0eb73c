"""Reasoning about Minesweeper positions: no web, no sessions, no game rules."""

from solver.analysis import Analyzer, Chances, Explanation, Inconsistent, Layout, Probabilities, Status
from solver.counting import Budget
from solver.limits import Allowance, Interrupted, Limits, OutOfTime, OutOfWork
from solver.position import Cell, Position, PositionError, describe, parse_position, parse_positions

__all__ = [
    "Allowance",
    "Analyzer",
    "Budget",
    "Cell",
    "Chances",
    "Explanation",
    "Inconsistent",
    "Interrupted",
    "Layout",
    "Limits",
    "OutOfTime",
    "OutOfWork",
    "Position",
    "PositionError",
    "Probabilities",
    "Status",
    "describe",
    "parse_position",
    "parse_positions",
]
