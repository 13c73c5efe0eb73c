"""SAT reasoning over constraints "these cells hold exactly n mines".

Geometry-free: a cell is any hashable id. Two phases, as measured in
SOLVER-NOTES.md: each component on its own first (whatever it proves stays
proven, the global count can only remove layouts), then the global count over
the cells still undetermined, and only for the questions the models found so
far leave open.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from itertools import combinations
from typing import Generic, NamedTuple, TypeVar

from pysat.card import ITotalizer
from pysat.solvers import Minicard, Minisat22

from solver.limits import Allowance, solve

# A cell: any hashable id, the same kind throughout one question (indices, or (x, y) pairs).
C = TypeVar("C", bound=Hashable)
# Models handed back for later questions, at most. Normal play needs far fewer;
# a huge component (numbers scattered at random) finds thousands, each a set of
# hundreds of cells, which held hundreds of megabytes. Fewer kept models only
# means more questions asked later, never a different answer.
MODELS_KEPT = 256


class Constraint(NamedTuple, Generic[C]):
    cells: frozenset[C]
    mines: int


class Unsatisfiable(Exception):
    """No assignment satisfies the constraints handed to a routine here."""


def direct_clauses(literals: Sequence[int], mines: int) -> list[list[int]]:
    """Exactly `mines` of `literals` true, without auxiliary variables.

    Every (mines+1)-subset has a false literal and every (n-mines+1)-subset a true
    one: at most 2*C(8,4)=112 clauses for a number, never slower than
    CardEnc.equals in the measurements and often much faster.
    """
    size = len(literals)
    if not 0 <= mines <= size:
        return [[]]
    clauses = [[-lit for lit in subset] for subset in combinations(literals, mines + 1)] if mines < size else []
    if mines > 0:
        clauses += [list(subset) for subset in combinations(literals, size - mines + 1)]
    return clauses


class _Witnessed(Generic[C]):
    """Which value each cell was seen to take in some model."""

    def __init__(self) -> None:
        self.mine: set[C] = set()
        self.safe: set[C] = set()

    def add(self, mines: frozenset[C], cells: Iterable[C]) -> None:
        for cell in cells:
            (self.mine if cell in mines else self.safe).add(cell)


def settle_component(
    cells: Sequence[C], constraints: Iterable[Constraint[C]], allowance: Allowance | None = None
) -> tuple[dict[C, bool], list[frozenset[C]]]:
    """Phase 1: which cells the constraints alone decide.

    Returns the decided cells (True for a mine) and the models found on the way,
    each as the frozenset of its mine cells (the first MODELS_KEPT of them).
    Raises Unsatisfiable when no model exists.
    """
    variable = {cell: index for index, cell in enumerate(cells, start=1)}
    with Minisat22() as solver:
        for constraint in constraints:
            solver.append_formula(direct_clauses([variable[cell] for cell in constraint.cells], constraint.mines))
        models: list[frozenset[C]] = []
        seen: _Witnessed[C] = _Witnessed()

        def ask(assumptions: list[int]) -> bool:
            if not solve(solver, assumptions, len(cells), allowance):
                return False
            model = solver.get_model()
            mines = frozenset(cell for cell in cells if model[variable[cell] - 1] > 0)
            if len(models) < MODELS_KEPT:
                models.append(mines)
            seen.add(mines, cells)
            return True

        if not ask([]):
            raise Unsatisfiable
        decided: dict[C, bool] = {}
        for cell in cells:
            for value, witnessed in ((True, seen.mine), (False, seen.safe)):
                if cell in witnessed or cell in decided:
                    continue
                literal = variable[cell] if value else -variable[cell]
                if not ask([literal]):
                    decided[cell] = not value
                    # A unit clause makes every later query cheaper.
                    solver.add_clause([-literal])
    return decided, models


class _Bound:
    """Literals to assume for "at most b of these literals are true", for b in a known set.

    A Bailleux-Boufkhad totalizer truncated at the largest bound asked for;
    only its upward clauses exist, so a lower bound on mines is asked as an
    upper bound on safe cells. "At most n-1 of n" is one guarded clause instead
    of an n x (n-1) totalizer.
    """

    def __init__(
        self,
        solver: Minisat22,
        literals: list[int],
        bounds: Iterable[int],
        top: int,
        allowance: Allowance | None = None,
    ):
        self.size = len(literals)
        self.top = top
        self.totalizer: ITotalizer | None = None
        self.guard: int | None = None
        needed = {bound for bound in bounds if 0 <= bound < self.size}
        if needed == {self.size - 1}:
            self.top += 1
            self.guard = self.top
            solver.add_clause([-lit for lit in literals] + [-self.guard])
        elif needed:
            if allowance is not None:
                # Paid before it is built: over a huge frontier the encoding alone
                # takes seconds and hundreds of megabytes.
                allowance.charge_encoding(totalizer_clauses(self.size, max(needed)))
            self.totalizer = ITotalizer(lits=literals, ubound=max(needed), top_id=top)
            self.top = self.totalizer.top_id
            solver.append_formula(self.totalizer.cnf.clauses)

    def at_most(self, bound: int) -> list[int]:
        """Assumptions for "at most `bound`": none when that holds anyway."""
        if bound >= self.size:
            return []
        if bound < 0:
            raise ValueError("a negative bound cannot be assumed")
        if self.guard is not None and bound == self.size - 1:
            return [self.guard]
        assert self.totalizer is not None, "a bound asked for was not built"
        return [-self.totalizer.rhs[bound]]

    def delete(self) -> None:
        if self.totalizer:
            self.totalizer.delete()


def totalizer_clauses(size: int, bound: int) -> int:
    """About how many clauses a totalizer over `size` literals truncated at `bound` has (an upper bound)."""
    if size <= 1:
        return 0
    left = size // 2
    outputs = bound + 1
    return (
        totalizer_clauses(left, bound)
        + totalizer_clauses(size - left, bound)
        + min(left, outputs) * min(size - left, outputs)
        + min(left, outputs)
        + min(size - left, outputs)
    )


class CountQuestions(NamedTuple, Generic[C]):
    """What phase 2 could not settle from models already known."""

    cells: dict[C, set[bool]]  # cell -> values (True mine / False safe) still to witness
    outside_mine: bool  # whether "some outside cell can hold a mine" is still open
    outside_safe: bool  # whether "some outside cell can be safe" is still open


class CountAnswers(NamedTuple, Generic[C]):
    decided: dict[C, bool]  # cell -> True (mine) / False (safe), proven only with the count
    outside_can_be_mine: bool | None  # None: not asked
    outside_can_be_safe: bool | None
    models: list[frozenset[C]]  # models over the cells, each as its mine set


def settle_with_count(
    cells: Sequence[C],
    constraints: Iterable[Constraint[C]],
    mines_left: int,
    outside: int,
    questions: CountQuestions[C],
    allowance: Allowance | None = None,
) -> CountAnswers[C]:
    """Phase 2: the global count over the undetermined frontier.

    `mines_left` mines lie on `cells` and on `outside` further cells that no
    constraint mentions, so the mines on `cells` number between
    mines_left - outside and mines_left. Only the open questions are asked, and
    every model answers all the questions it can. Raises Unsatisfiable when the
    count cannot be met.
    """
    size = len(cells)
    low, high = mines_left - outside, mines_left
    if low > size or high < 0:
        raise Unsatisfiable
    variable = {cell: index for index, cell in enumerate(cells, start=1)}
    literals = list(variable.values())
    # Outside questions: some outside cell is a mine when the frontier holds at
    # most high-1; some is safe when it holds at least low+1.
    ask_mine = questions.outside_mine and outside > 0 and high >= 1
    ask_safe = questions.outside_safe and outside > 0 and low + 1 <= size
    with Minisat22() as solver:
        for constraint in constraints:
            solver.append_formula(direct_clauses([variable[cell] for cell in constraint.cells], constraint.mines))
        upper = _Bound(solver, literals, [high] + ([high - 1] if ask_mine else []), size, allowance)
        try:
            lower = _Bound(
                solver,
                [-lit for lit in literals],
                [size - low] + ([size - low - 1] if ask_safe else []),
                upper.top,
                allowance,
            )
        except BaseException:
            upper.delete()
            raise
        try:
            base = upper.at_most(high) + lower.at_most(size - low)
            open_cells = {cell: set(values) for cell, values in questions.cells.items()}
            models: list[frozenset[C]] = []
            outside_mine = False
            outside_safe = False

            def ask(extra: list[int]) -> bool:
                nonlocal outside_mine, outside_safe
                if not solve(solver, base + extra, size, allowance):
                    return False
                model = solver.get_model()
                mines = frozenset(cell for cell in cells if model[variable[cell] - 1] > 0)
                if len(models) < MODELS_KEPT:
                    models.append(mines)
                for cell in [cell for cell in open_cells if cell in variable]:
                    open_cells[cell].discard(cell in mines)
                    if not open_cells[cell]:
                        del open_cells[cell]
                outside_mine |= outside > 0 and len(mines) <= high - 1
                outside_safe |= outside > 0 and len(mines) >= low + 1
                return True

            if not ask([]):
                raise Unsatisfiable
            decided: dict[C, bool] = {}
            while open_cells:
                cell, values = next(iter(open_cells.items()))
                value = values.pop()
                if not values:
                    del open_cells[cell]
                literal = variable[cell] if value else -variable[cell]
                if not ask([literal]):
                    decided[cell] = not value
                    solver.add_clause([-literal])
            if ask_mine and not outside_mine:
                ask(upper.at_most(high - 1))
            if ask_safe and not outside_safe:
                ask(lower.at_most(size - low - 1))
        finally:
            upper.delete()
            lower.delete()
    return CountAnswers(
        decided,
        outside_mine if questions.outside_mine else None,
        outside_safe if questions.outside_safe else None,
        models,
    )


def model_with_count(cells: Sequence[C], constraints: Iterable[Constraint[C]], low: int, high: int) -> frozenset[C]:
    """One model (its mine set) with between low and high mines on `cells`; Unsatisfiable if none.

    Minicard's native cardinality constraints: one call, no encoding to build,
    however many cells (the fallback when there is no time for anything else).
    """
    variable = {cell: index for index, cell in enumerate(cells, start=1)}
    literals = list(variable.values())
    with Minicard() as solver:
        for constraint in constraints:
            for clause in direct_clauses([variable[cell] for cell in constraint.cells], constraint.mines):
                solver.add_clause(clause)
        if high < len(literals):
            solver.add_atmost(literals, max(high, -1)) if high >= 0 else solver.add_clause([])
        if low > 0:
            solver.add_atmost([-lit for lit in literals], len(literals) - low) if low <= len(
                literals
            ) else solver.add_clause([])
        if not solver.solve():
            raise Unsatisfiable
        model = solver.get_model() or []
    return frozenset(cell for cell in cells if model[variable[cell] - 1] > 0)


def minimal_unsatisfiable_subset(
    groups: Sequence[Constraint[C]],
    count: tuple[int, int] | None,
    assumptions: Mapping[C, bool],
) -> list[int] | None:
    """The indices of a minimal subset of `groups` (plus "count" if used) that is unsatisfiable.

    `count`, when given, is (low, high): the mines on the cells the groups
    mention must number between low and high; it takes index len(groups).
    `assumptions` fixes cells (True mine). Returns None when even everything
    together is satisfiable. Deletion-based: each member of the core is dropped
    in turn when the rest stays unsatisfiable, so removing any one of the
    answer makes it satisfiable. Members are tried in index order, so the ones
    listed first are the likeliest to be dropped, and the count goes last.
    """
    cells = sorted({cell for group in groups for cell in group.cells} | set(assumptions), key=repr)
    variable = {cell: index for index, cell in enumerate(cells, start=1)}
    top = len(cells)
    selectors = []
    # Minicard's native at-most constraints keep the count compact however many
    # cells the proof spans; a totalizer over a 2,000-cell frontier would not be.
    with Minicard() as solver:
        for group in groups:
            top += 1
            selectors.append(top)
            for clause in direct_clauses([variable[cell] for cell in group.cells], group.mines):
                solver.add_clause(clause + [-top])
        if count is not None:
            top += 1
            selectors.append(top)
            top = _add_guarded_count(
                solver, [variable[c] for c in cells if c not in assumptions], count, assumptions, top
            )
        fixed = [variable[cell] if mine else -variable[cell] for cell, mine in assumptions.items()]
        if solver.solve(assumptions=fixed + selectors):
            return None
        kept = set(solver.get_core() or selectors) & set(selectors)
        index_of = {selector: index for index, selector in enumerate(selectors)}
        for selector in selectors:
            if selector not in kept:
                continue
            trial = [s for s in selectors if s in kept and s != selector]
            if not solver.solve(assumptions=fixed + trial):
                kept = set(solver.get_core() or trial) & set(trial)
        return sorted(index_of[selector] for selector in kept)


def _add_guarded_count(
    solver: Minicard, literals: list[int], count: tuple[int, int], assumptions: Mapping[C, bool], selector: int
) -> int:
    """Add "selector -> low <= mines on literals (plus assumed mines) <= high"; returns the new top variable.

    An at-most-k over n literals is made conditional by n-k extra literals that
    equal the selector: when it is false they are false and the bound is slack.
    """
    low, high = count
    assumed_mines = sum(1 for mine in assumptions.values() if mine)
    high -= assumed_mines
    low -= assumed_mines
    top = selector
    size = len(literals)
    for lits, bound in ((literals, high), ([-lit for lit in literals], size - low)):
        if bound >= size:
            continue
        if bound < 0:
            solver.add_clause([-selector])
            continue
        copies = []
        for _ in range(size - bound):
            top += 1
            copies.append(top)
            solver.add_clause([-top, selector])
            solver.add_clause([top, -selector])
        solver.add_atmost(lits + copies, size)
    return top
