"""How much reasoning a question may take: a work allowance, and a wall-clock guard.

Work is counted in units that do not depend on the machine or on its load
(SAT propagations, plus a fixed charge per solver call and per clause a
cardinality encoding would add), so reasoning cut short for work stops at the
same point everywhere: a game's verdicts must not change because the server
is busy. The deadline is the last guard of a request on an overloaded
machine; where it fires depends on the clock, so callers log it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol

# What a solver call costs beyond its propagations, in propagations' worth:
# a fixed part (the call, its assumptions) and a part per cell of the formula
# (reading the model back and noting what it witnesses, in Python). Measured
# with bench/solver.py --work; a unit is about 0.2 microseconds on a 2-core machine.
CALL_UNITS = 400
CELL_UNITS = 4
# How many verdicts' worth of work an overlay or a hint may take, within the deadline.
INFORMING_WORK = 4
# How many verdicts' worth of work making a no-guess board may take: at the default allowance, 24 M units,
# about a second of one core (bench/generate.py --work --solver-work 4000000). A 100x100 board with 2,000
# mines took at most 16 M, one with 2,500 more than 24 M 7 times in 10, one with 3,000 some 110-120 M.
GENERATING_WORK = 6
# Seconds a cardinality encoding takes to build per clause (pysat's totalizer, then its clauses handed to
# Minisat), per clause totalizer_clauses estimates: 0.8-1.0 microseconds on a 2-core machine running two
# other processes, about half that idle. The build cannot be interrupted, so one that a busy machine would
# end past the deadline is refused before it starts: a 100x100 position's 7-million-clause totalizer took
# 9 seconds of a 3-second `kaboom move` deadline.
ENCODING_SECONDS_PER_CLAUSE = 1e-6


class SatSolver(Protocol):
    """What a call within an allowance asks of a pysat solver (Minisat22, Minicard): True or False, or None
    when solve_limited stopped at its propagation budget."""

    def solve(self, assumptions: list[int] = ...) -> bool | None: ...

    def solve_limited(self, assumptions: list[int] = ...) -> bool | None: ...

    def prop_budget(self, budget: int) -> None: ...

    def accum_stats(self) -> dict[str, int]: ...


class Interrupted(Exception):
    """The reasoning stopped before its answer was complete; nothing was concluded from the part left undone."""


class OutOfTime(Interrupted):
    """The wall-clock deadline passed."""


class OutOfWork(Interrupted):
    """The work allowance was used up: the same question stops here on any machine."""


@dataclass
class Allowance:
    """Work units and a deadline (time.monotonic() seconds) for one piece of reasoning; None means no limit."""

    work: int | None = None
    deadline: float | None = None
    spent: int = 0

    def check(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise OutOfTime
        if self.work is not None and self.spent >= self.work:
            raise OutOfWork

    def charge(self, units: int) -> None:
        """Count work done (or about to be done) outside a solver call; raises once the allowance is gone."""
        self.spent += units
        self.check()

    def charge_encoding(self, clauses: int) -> None:
        """Pay for an encoding of about `clauses` clauses before building it: raises when it is past the work
        allowance, or would end past the deadline."""
        self.charge(clauses)
        if self.deadline is not None and time.monotonic() + clauses * ENCODING_SECONDS_PER_CLAUSE > self.deadline:
            raise OutOfTime

    def solve(self, solver: SatSolver, assumptions: list[int], cells: int) -> bool:
        """One SAT call on a formula over `cells` cells within the allowance: its answer, or OutOfWork/OutOfTime."""
        self.check()
        self.spent += CALL_UNITS + CELL_UNITS * cells
        before = solver.accum_stats()["propagations"]
        if self.work is None:
            answer = solver.solve(assumptions=assumptions)
        else:
            # Minisat stops at the first decision past this many propagations:
            # a deterministic point, unlike a timer.
            solver.prop_budget(max(1, self.work - self.spent))
            answer = solver.solve_limited(assumptions=assumptions)
        self.spent += solver.accum_stats()["propagations"] - before
        if answer is None:
            raise OutOfWork
        return answer


def solve(solver: SatSolver, assumptions: list[int], cells: int, allowance: Allowance | None) -> bool:
    """A SAT call on a formula over `cells` cells, within `allowance` when there is one."""
    if allowance is None:
        return bool(solver.solve(assumptions=assumptions))
    return allowance.solve(solver, assumptions, cells)


@dataclass(frozen=True)
class Limits:
    """What one request may spend on reasoning.

    `work` bounds each verdict (and each deal) the same way on every machine;
    `deadline` (time.monotonic() seconds) is one wall-clock end for everything
    the request asks, verdicts, deals and overlays together.
    """

    work: int | None = None
    deadline: float | None = None

    @classmethod
    def starting_now(cls, seconds: float | None, work: int | None = None) -> Limits:
        return cls(work, None if seconds is None else time.monotonic() + seconds)

    def metered(self) -> Allowance:
        """For reasoning whose outcome must not depend on the machine: the work allowance and the deadline."""
        return Allowance(self.work, self.deadline)

    def for_deal(self, hurried: bool) -> Allowance:
        """For a deal after a verdict: none of the work a hurried verdict showed this position would need."""
        return Allowance(0 if hurried else self.work, self.deadline)

    def generating(self) -> Allowance:
        """For making a board (a no-guess layout): several verdicts' worth of work, so that the same seed makes
        the same board or stops at the same point on any machine, and the deadline as the last guard."""
        return Allowance(None if self.work is None else GENERATING_WORK * self.work, self.deadline)

    def timed(self) -> Allowance:
        """For reasoning that only informs (overlays, hints): whatever time the request has left.

        Its work is capped too, generously: a cardinality encoding is paid for
        before it is built, and only a work cap can refuse one too big to build in time.
        """
        return Allowance(None if self.work is None else INFORMING_WORK * self.work, self.deadline)

    def left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()
