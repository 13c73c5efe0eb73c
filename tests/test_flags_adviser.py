"""The Flags computer's levels and `kaboom move` (solver/flags.py, app/cli/move.py): sound, legal, in time."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.play.tournament import sample_position
from solver.flags import FLAGS_LEVELS, FLAGS_PLAYERS, FlagsView
from solver.position import COVERED, Position
from tests.live import seconds
from tests.reference import truth
from tests.strategies import examples

KABOOM = str(Path(sys.executable).with_name("kaboom"))
EXACT = ("hard", "greedy", "scorer")  # the players that count with the exact solver


def covered(position: Position) -> set[tuple[int, int]]:
    return {cell for cell in position.cells() if position[cell] == COVERED}


@settings(max_examples=examples(150), deadline=None)
@given(
    width=st.integers(2, 5),
    height=st.integers(2, 5),
    density=st.floats(0.1, 0.6),
    share=st.floats(0, 0.8),
    seed=st.integers(0, 2**32),
    player=st.sampled_from(sorted(FLAGS_PLAYERS)),
)
def test_a_proven_mine_is_taken_first_and_a_mine_called_proven_is_one(
    width, height, density, share, seed, player
) -> None:
    mines = max(1, min(width * height - 1, round(width * height * density)))
    position = sample_position(width, height, mines, round(width * height * share), seed)
    if not covered(position):
        return
    facts = truth(position)
    assert facts.consistent
    certain = {cell for cell, chance in facts.probability.items() if chance == 1}
    choice = FLAGS_PLAYERS[player](FlagsView.of(position), random.Random(seed))
    assert choice.cell in covered(position)
    if choice.mine_probability == 1.0:
        assert choice.cell in certain, f"{player} called {choice.cell} a proven mine:\n{position.format()}"
    if player in EXACT and certain:
        assert choice.cell in certain, (
            f"{player} left the proven mines {sorted(certain)} for {choice.cell}:\n{position.format()}"
        )
    if player in EXACT and choice.mine_probability is not None:
        assert choice.mine_probability == pytest.approx(float(facts.probability[choice.cell]))


def test_every_player_answers_a_covered_cell_in_thousands_of_positions() -> None:
    rng = random.Random(2007)
    positions = 0
    for seed in range(2200):
        width, height = rng.randint(2, 9), rng.randint(2, 9)
        mines = rng.randint(1, width * height - 1)
        position = sample_position(width, height, mines, rng.randint(0, width * height), seed)
        if not covered(position):
            continue
        positions += 1
        for name, player in FLAGS_PLAYERS.items():
            if name in ("hard", "greedy", "scorer") and seed % 4:
                continue  # the exact solver's players, the costliest: every fourth position
            cell = player(FlagsView.of(position), random.Random(seed)).cell
            assert cell in covered(position), f"{name} answered {cell}:\n{position.format()}"
    assert positions >= 2000


def test_the_adviser_keeps_away_from_a_likely_zero() -> None:
    # No number yet: every cell is as likely a mine, and a corner is the likeliest to open an area for the other player.
    position = Position.empty(10, 10, 10)
    for seed in range(5):
        x, y = FLAGS_LEVELS["hard"](FlagsView.of(position), random.Random(seed)).cell
        assert 0 < x < 9 and 0 < y < 9


def kaboom_move(stdin: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([KABOOM, "move", *args], input=stdin, capture_output=True, text=True, timeout=timeout)


@pytest.mark.subprocess
@pytest.mark.parametrize("density", [0.10, 0.475])
def test_kaboom_move_answers_on_a_100x100_board(density: float) -> None:
    mines = round(10_000 * density)
    position = sample_position(100, 100, mines, 400, seed=27)
    # A generous limit: the protocol's 10 seconds are the adviser's own budget; bench/flags.py measures the times.
    result = kaboom_move(position.format(), timeout=seconds(40))
    assert result.returncode == 0, result.stderr
    x, y = (int(field) for field in result.stdout.split())
    assert position[(x - 1, y - 1)] == COVERED


@pytest.mark.subprocess
@pytest.mark.parametrize("level", sorted(FLAGS_PLAYERS))
def test_kaboom_move_prints_one_based_column_and_row_and_reads_f_as_covered(level: str) -> None:
    # Only (3,2) is covered (flagged, as our format may send it): the answer must be it.
    result = kaboom_move("3 2 1\n111\n1F1\n", "--level", level)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "2 2\n"


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("", "expected a header"),
        ("3 2 1\n1.1\n", "expected 2 rows"),
        ("3 2 1\n1x1\n111\n", "expected one of"),
        ("3 2 1\n111\n1*1\n", "no covered cell left"),
        ("3 2 1\n*.*\n...\n", "2 mines uncovered on a board of 1"),
        ("3 2 4\n11.\n11.\n", "mines left but only 2 covered cells"),
        ("3 2 1\n3..\n...\n", "impossible position"),
    ],
)
@pytest.mark.subprocess
def test_kaboom_move_refuses_a_malformed_or_impossible_position_in_one_line(stdin: str, message: str) -> None:
    result = kaboom_move(stdin)
    assert result.returncode == 2 and result.stdout == ""
    assert message in result.stderr and result.stderr.count("\n") == 1, result.stderr


@pytest.mark.subprocess
def test_kaboom_move_refuses_a_thinking_time_past_the_limit() -> None:
    result = kaboom_move("3 2 1\n1.1\n...\n", "--seconds", "12")
    assert result.returncode == 2 and "thinking time must be between" in result.stderr


def test_the_adviser_weighs_boards_whose_layouts_outnumber_floats() -> None:
    # One number on an empty 100x100 board with 2,000 mines: about 10^2100 layouts, far past a float.
    rows = ["." * 100 for _ in range(100)]
    rows[50] = "." * 50 + "2" + "." * 49
    position = Position(100, 100, 2000, tuple(rows))
    choice = FLAGS_LEVELS["hard"](FlagsView.of(position), random.Random(0))
    assert choice.cell in covered(position) and 0 < choice.mine_probability < 1


@pytest.mark.parametrize("rules", ["dealt", "cruel"])
def test_a_level_that_fails_still_answers_a_covered_cell_and_says_why(monkeypatch, capsys, rules: str) -> None:
    import io

    from app import cli
    from app.cli import move

    def broken(view, rng):
        raise RuntimeError("a bug in the level")

    monkeypatch.setitem(move.RULES[rules].players, "hard", broken)
    out = io.StringIO()
    assert cli.main(["move", "--rules", rules], stdin=io.StringIO("3 2 2\n1..\n...\n"), stdout=out) == 0
    x, y = (int(field) for field in out.getvalue().split())
    assert (x, y) != (1, 1) and 1 <= x <= 3 and 1 <= y <= 2
    assert "a bug in the level" in capsys.readouterr().err
