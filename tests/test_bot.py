"""The bot (issue 11, first part): strategies on hand-made positions, games reproducible by seed, and
`kaboom bot` reading layouts exactly and answering in their order."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import main
from app.play.bot import GameResult, GameSetup, calibration, play, wilson_interval
from solver import Analyzer, Position
from solver.strategy import approximate_chances, exact, groups, groups_with_probabilities
from tests.live import seconds

KABOOM = str(Path(sys.executable).with_name("kaboom"))


def choose(strategy, rows: list[str], mines: int):
    position = Position(len(rows[0]), len(rows), mines, tuple(rows))
    symbols = "".join(rows)
    return strategy(position.width, position.height, symbols, Analyzer(position), random.Random(0))


def test_the_exact_strategy_opens_every_proven_safe_cell_before_any_guess():
    # The count decides: one mine, and the two 1s share only the middle cell.
    choice = choose(exact, [".1.1..."], 1)
    assert not choice.guess and set(choice.cells) == {(0, 0), (4, 0), (5, 0), (6, 0)}


def test_the_exact_strategy_guesses_the_cell_least_likely_to_be_a_mine():
    # The 1 in the corner has three covered neighbours and one mine among them; the far cells share
    # the other two mines: 2 / 5 each, against 1 / 3 beside the 1.
    rows = ["1...", "....", "...."]
    choice = choose(exact, rows, 3)
    analyzer = Analyzer(Position(4, 3, 3, tuple(rows)))
    chances = analyzer.probabilities().cells
    assert choice.guess and float(chances[choice.cells[0]]) == min(float(c) for c in chances.values())
    assert choice.mine_probability == pytest.approx(float(chances[choice.cells[0]]))


def test_the_groups_strategy_uses_the_local_rules_and_guesses_otherwise():
    choice = choose(groups, ["12110", "....."], 2)
    assert not choice.guess and set(choice.cells) == {(3, 1), (4, 1), (1, 1)}


def test_a_game_is_the_same_for_the_same_seed():
    board = GameSetup(16, 16, 40, (0, 0), opening=False)
    first = [play(board, "exact", seed) for seed in range(5)]
    again = [play(board, "exact", seed) for seed in range(5)]
    assert [(r.won, r.guesses, r.guessed) for r in first] == [(r.won, r.guesses, r.guessed) for r in again]


def test_a_given_layout_is_played_as_given():
    # Every mine in the last row: the corner click opens the rest, a win without a guess.
    layout = frozenset(range(8 * 7, 8 * 8 - 1)) | {8 * 8 - 1}
    result = play(GameSetup(8, 8, 8, (0, 0), opening=False, layout=layout), "exact", 0)
    assert result.won and result.guesses == 0


def test_the_interval_holds_the_rate():
    low, high = wilson_interval(412, 1000)
    assert low < 0.412 < high and high - low < 0.07


def kaboom(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([KABOOM, "bot", *args], capture_output=True, text=True, timeout=seconds(120))


@pytest.mark.subprocess
def test_kaboom_bot_reads_layouts_and_gives_each_games_result_in_file_order(tmp_path):
    layouts = tmp_path / "layouts.txt"
    # An easy board (every mine on the bottom row) between two others.
    easy = "9 9 9 " + " ".join(f"{x},8" for x in range(9))
    layouts.write_text(
        f"9 9 10 0,3 4,4 1,1 8,8 7,7 6,6 5,5 2,8 8,2 3,6\n{easy}\n9 9 10 1,0 2,0 3,0 4,0 5,0 6,0 7,0 8,0 0,8 1,8\n"
    )
    result = kaboom("--layouts", str(layouts), "--first", "0,0", "--json")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["played"] == 3 and len(answer["games"]) == 3
    assert answer["games"][1] == {"won": True, "guesses": 0, "seconds": answer["games"][1]["seconds"]}
    assert answer["wins"] == sum(game["won"] for game in answer["games"])


@pytest.mark.parametrize(
    "line, words",
    [
        ("9 9 2 0,0 9,9", "0-based"),
        ("9 9 2 1,1", "2 mines"),
        ("9 9 2 1,1 1,1", "listed twice"),
        ("9 9 1 0,0", "is a mine"),
        ("nine", "expected 'W H K'"),
    ],
)
def test_kaboom_bot_refuses_a_bad_layout_line_with_exit_2_and_one_line(tmp_path, capsys, line, words):
    layouts = tmp_path / "layouts.txt"
    layouts.write_text(line + "\n")
    code, out, err = bot_in_process(capsys, "--layouts", str(layouts), "--first", "0,0")
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and words in err


def bot_in_process(capsys, *args: str) -> tuple[int, str, str]:
    """`kaboom bot` run by its own entry point in this process (a refusal needs no process of its own)."""
    try:
        code = main(["bot", *args])
    except SystemExit as exit:  # argparse's refusals
        code = exit.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "args, words",
    [
        (["--games", "0"], "at least 1"),
        (["--jobs", "x"], "at least 1"),
        (["--size", "3x3/20"], "between 1 and 8"),
        (["--first", "40,0"], "off the 30x16 board"),
        (["--mode", "cruel", "--opening"], "for classic games"),
        (["--calibration", "plot.svg"], "PNG"),
        (["--strategy", "best"], "invalid choice"),
    ],
)
def test_kaboom_bot_refuses_bad_arguments_with_exit_2(capsys, args, words):
    code, out, err = bot_in_process(capsys, *args, *(() if "--games" in args else ("--games", "1")))
    assert code == 2 and words in err and out == ""


def test_groups_with_probabilities_guesses_the_cell_its_estimate_calls_safest():
    # No group rule applies: the 1 shares one mine among three cells, the 2 two among three, the rest
    # is outside. The estimate puts the 1's own corner cell lowest of the numbers' cells.
    rows = ["1.2..", ".....", "....."]
    chances = approximate_chances(5, 3, "".join(rows), 4, set())
    choice = choose(groups_with_probabilities, rows, 4)
    index = choice.cells[0][1] * 5 + choice.cells[0][0]
    assert choice.guess and chances[index] == min(chances.values()) == choice.mine_probability
    # Each group is rescaled to hold its mines, and the rest of the mines spread evenly outside.
    assert sum(chances[i] for i in (1, 5, 6)) == pytest.approx(1, abs=0.02)
    assert sum(chances[i] for i in (1, 3, 6, 7, 8)) == pytest.approx(2, abs=0.02)
    outside = [i for i in range(15) if i not in (0, 2, 1, 3, 5, 6, 7, 8)]
    assert len({chances[i] for i in outside}) == 1
    assert sum(chances.values()) == pytest.approx(4)


def test_calibration_bins_what_was_predicted_against_what_happened():
    results = [
        GameResult(True, 3, 0.1, guessed=[(0.02, False), (0.04, True), (0.21, False)]),
        GameResult(False, 1, 0.1, guessed=[(0.5, True)]),
    ]
    bins = calibration(results)
    assert [(b.low, b.guesses, b.observed) for b in bins] == [(0.0, 2, 0.5), (0.2, 1, 0.0), (0.5, 1, 1.0)]
    assert bins[0].predicted == pytest.approx(0.03) and bins[0].interval[0] < 0.5 < bins[0].interval[1]


def test_kaboom_bot_draws_the_calibration_plot_and_prints_its_table(tmp_path, capsys):
    plot = tmp_path / "calibration.png"
    code, out, err = bot_in_process(capsys, "--size", "beginner", "--games", "20", "--calibration", str(plot))
    assert code == 0, err
    assert plot.read_bytes().startswith(b"\x89PNG")
    assert "predicted mine chance" in out and "observed" in out


def test_in_cruel_mode_the_bot_never_loses_and_counts_forced_guesses(capsys):
    code, out, err = bot_in_process(
        capsys, "--mode", "cruel", "--size", "intermediate", "--games", "12", "--json", "--seed", "3"
    )
    answer = json.loads(out)
    assert code == 0 and answer["wins"] == answer["played"] == 12
    assert answer["forced_guesses_per_game"] == sum(game["guesses"] for game in answer["games"]) / 12
