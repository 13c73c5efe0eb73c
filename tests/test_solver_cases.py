"""Hand-made positions for the cases that matter most, and the solver's limits."""

import random
import re
import time
from fractions import Fraction
from pathlib import Path

import pytest

from solver import Analyzer, Budget, Inconsistent, Status, parse_position, sat
from solver.limits import Allowance, OutOfTime, OutOfWork


def statuses(text: str) -> list[str]:
    return Analyzer(parse_position(text)).status_rows()


def test_only_the_global_count_decides_the_frontier():
    # Two 1s share the middle cell: either it is the one mine, or both ends are.
    assert statuses("5 1 1\n.1.1.\n") == ["s1m1s"]
    assert statuses("5 1 2\n.1.1.\n") == ["m1s1m"]


def test_the_count_decides_the_outside_block():
    assert statuses("7 1 1\n.1.1...\n") == ["s1m1sss"]  # every mine is on the frontier
    assert statuses("7 1 4\n.1.1...\n") == ["m1s1mmm"]  # the outside must be full
    assert statuses("7 1 2\n.1.1...\n") == ["?1?1???"]


def test_outside_all_safe_and_all_mine_without_any_number():
    assert statuses("3 2 0\n...\n...\n") == ["sss", "sss"]
    assert statuses("3 2 6\n...\n...\n") == ["mmm", "mmm"]
    assert statuses("3 2 6\n*..\n..*\n") == ["*mm", "mm*"]
    assert statuses("3 2 4\n*..\n..*\n") == ["*??", "??*"]


def test_flags_are_never_knowledge():
    # A flag on a cell that must be safe changes nothing.
    assert statuses("3 1 1\nF1.\n") == ["?1?"]
    assert statuses("3 1 1\n1F.\n") == ["1ms"]


def test_revealed_mines_count_for_numbers_and_the_total():
    assert statuses("3 1 2\n*2.\n") == ["*2m"]
    assert statuses("4 1 1\n*1..\n") == ["*1ss"]


def test_probabilities_are_exact_and_weighted_by_the_outside():
    analyzer = Analyzer(parse_position("7 1 2\n.1.1...\n"))
    probabilities = analyzer.probabilities()
    # A middle mine leaves one mine for the 2 outside cells: 2 layouts; both
    # ends leave none: 1 layout. Each layout of the board counts once.
    assert probabilities[(2, 0)] == Fraction(2, 3)
    assert probabilities[(0, 0)] == Fraction(1, 3)
    assert probabilities[(5, 0)] == Fraction(1, 3)


def test_the_chances_read_like_a_mapping_of_the_covered_cells_and_stay_as_they_were_counted():
    analyzer = Analyzer(parse_position("4 2 2\n.1..\n.1..\n"))
    counted = analyzer.probabilities()
    chances = counted.floats
    covered = [(0, 0), (2, 0), (3, 0), (0, 1), (2, 1), (3, 1)]
    assert list(chances) == covered and len(chances) == 6
    assert (1, 0) not in chances and (9, 9) not in chances and "a cell" not in chances
    with pytest.raises(KeyError):
        chances[(1, 0)]
    assert dict(chances.items()) == {cell: float(counted[cell]) for cell in covered}
    # A later reveal moves the analyzer on, not what it counted before.
    before = dict(chances.items())
    analyzer.reveal({(2, 0): "1"})
    assert analyzer.probabilities().cells != counted.cells
    assert dict(chances.items()) == before and len(chances) == 6


def test_huge_binomials_stay_exact():
    # C(9991, 1999) has thousands of digits; a float would overflow or round.
    analyzer = Analyzer(parse_position("100 100 2000\n" + "\n".join(["1" + "." * 99] + ["." * 100] * 99) + "\n"))
    probabilities = analyzer.probabilities()
    total = sum(probabilities.cells.values())
    assert total == 2000


@pytest.mark.parametrize(
    "text, message",
    [
        ("3 1 0\n.1.\n", "the 1 at column 2, row 1 and a total of 0 mines cannot all hold"),
        ("3 1 3\n.1.\n", "3 mines do not fit on 2 covered cells"),
        ("2 1 1\n2.\n", "the 2 at column 1, row 1 has only 1 covered neighbour"),
        ("3 2 1\n131\n...\n", "the 1 at column 1, row 1 and the 3 at column 2, row 1 cannot all hold"),
        ("3 1 1\n*2*\n", "2 mines are revealed but the board has 1"),
    ],
)
def test_inconsistent_positions_name_the_contradiction(text, message):
    with pytest.raises(Inconsistent) as raised:
        Analyzer(parse_position(text)).classify()
    assert message in str(raised.value)


def test_explanations_are_local_and_say_when_the_count_is_needed():
    analyzer = Analyzer(parse_position("5 3 3\n1....\n1....\n11...\n"))
    explanation = analyzer.explain((1, 0))
    assert explanation.status is Status.SAFE
    assert explanation.numbers == ((0, 0), (0, 2))
    assert not explanation.uses_count
    counted = Analyzer(parse_position("5 1 1\n.1.1.\n")).explain((0, 0))
    # The 1 at the far end needs the one mine: the near 1 is not part of the proof.
    assert counted.uses_count and counted.numbers == ((3, 0),)
    assert "the number of mines left" in counted.as_text()
    with pytest.raises(ValueError, match="not proven"):
        Analyzer(parse_position("3 1 1\n.1.\n")).explain((0, 0))


def test_over_budget_probabilities_say_so_and_statuses_still_come():
    # Scattered numbers make one big component; a tiny budget cannot count it.
    text = (
        "8 8 10\n"
        + "\n".join([".1......", "........", "...2....", ".....1..", "........", ".1....1.", "........", "....1..."])
        + "\n"
    )
    analyzer = Analyzer(parse_position(text))
    result = analyzer.probabilities(Budget(steps=5))
    assert result.budget_exceeded and result.cells is None
    assert set(analyzer.classify().values()) <= set(Status)
    layout = analyzer.sample_layout(random.Random(1), budget=Budget(steps=5))
    assert not layout.uniform and len(layout.mines) == 10
    assert analyzer.probabilities(Budget()).cells is not None


def test_a_count_encoding_that_would_end_past_the_deadline_is_refused_before_it_is_built(monkeypatch):
    # Building a totalizer cannot be interrupted: a 100x100 position's took 9 s of a 3 s deadline.
    built = []
    monkeypatch.setattr(sat, "ITotalizer", lambda **arguments: built.append(arguments))
    cells = list(range(6000))
    questions = sat.CountQuestions({}, outside_mine=True, outside_safe=True)
    allowance = Allowance(deadline=time.monotonic() + 1.0)
    with pytest.raises(OutOfTime):
        sat.settle_with_count(cells, [], mines_left=3000, outside=50, questions=questions, allowance=allowance)
    assert not built and allowance.spent >= sat.totalizer_clauses(6000, 3000)
    with pytest.raises(OutOfWork):
        Allowance(work=1_000_000).charge_encoding(sat.totalizer_clauses(2000, 800))
    Allowance(deadline=time.monotonic() + 3600).charge_encoding(1000)  # small ones are built as before


def test_seeded_layouts_are_reproducible():
    analyzer = Analyzer(parse_position("6 6 8\n......\n.1....\n......\n...2..\n......\n......\n"))
    first = analyzer.sample_layout(random.Random(42), force=((0, 0), True))
    again = analyzer.sample_layout(random.Random(42), force=((0, 0), True))
    assert first == again and (0, 0) in first.mines


def test_reveal_refuses_contradicting_what_was_shown():
    analyzer = Analyzer(parse_position("3 1 1\n.1.\n"))
    with pytest.raises(ValueError, match="already revealed"):
        analyzer.reveal({(1, 0): "2"})
    proven = Analyzer(parse_position("3 1 1\n1..\n"))
    proven.classify()
    with pytest.raises(Inconsistent, match="proven a mine"):
        proven.reveal({(1, 0): "1"})
    assert proven.position.rows == ("1..",)


def test_solver_knows_nothing_of_the_web():
    forbidden = re.compile(r"^\s*(from|import)\s+(fastapi|starlette|jinja2|pydantic|app)\b", re.M)
    for path in Path(__file__).resolve().parent.parent.joinpath("solver").glob("*.py"):
        assert not forbidden.search(path.read_text()), path


def test_models_of_one_component_never_stand_for_another():
    # Found by the stress profile: after the count proved cells in several
    # components, a model of one component, cut down to another component's
    # cells, claimed an empty layout that broke its numbers; the outside cell
    # (0, 3) then looked able to hold the last mine.
    from tests.strategies import render

    mines = {(1, 2), (4, 0), (4, 2), (0, 0)}
    revealed: set = set()
    analyzer = Analyzer(render(6, 4, 4, mines, set(), set()))
    for cell in [(0, 0), (1, 0), (5, 2), (2, 3), (5, 0), (0, 1), (2, 1), (5, 1)]:
        revealed.add(cell)
        position = render(6, 4, 4, mines, revealed, set())
        analyzer.reveal({cell: position[cell]})
        assert analyzer.status_rows() == Analyzer(position).status_rows()
    assert analyzer.status((0, 3)) is Status.SAFE
