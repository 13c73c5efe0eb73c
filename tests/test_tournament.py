"""`kaboom tournament` (app/play/tournament.py): the KöMaL schedule, the referee, the sets and points."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from app.play.tournament import (
    GameRecord,
    Program,
    ScheduledBoard,
    check_program,
    games,
    komal_points,
    parse_answer,
    play,
    schedule,
    sets,
)
from solver.position import Position
from tests.live import seconds

pytestmark = pytest.mark.subprocess

KABOOM = str(Path(sys.executable).with_name("kaboom"))
PYTHON = sys.executable


def test_the_komal_schedule_is_48_boards_each_played_once_by_each_side_first() -> None:
    boards = schedule()
    assert len(boards) == 48
    assert {(board.width, board.height) for board in boards} == {(20, 20), (20, 100), (100, 100)}
    densities = sorted(
        {
            Fraction(board.mines, board.width * board.height)
            for board in boards
            if board.width == 100 and board.height == 100
        }
    )
    assert densities[0] == Fraction(1, 10) and densities[-1] == Fraction(475, 1000) and len(densities) == 16
    played = games(boards)
    assert len(played) == 96 and {first for _, first in played} == {0, 1}
    assert all(played[2 * n][0] == played[2 * n + 1][0] == boards[n] for n in range(48))
    assert len(schedule(quick=True)) == 6 and schedule(sizes=((20, 100),)) == [
        board for board in boards if board.height == 100 and board.width == 20
    ]


def test_the_same_seed_deals_the_same_boards_and_another_seed_others() -> None:
    board = schedule()[0]
    assert board.layout(1) == board.layout(1) != board.layout(2)
    assert len(board.layout(1)) == board.mines


def record(size: tuple[int, int], winner: int | None) -> GameRecord:
    return GameRecord(ScheduledBoard(*size, 10, 0), 0, [0, 0], winner)


def test_a_set_is_won_with_two_thirds_of_its_games_and_scores_three_points() -> None:
    records = [record((20, 20), 0)] * 3 + [record((20, 20), None)] * 2 + [record((20, 20), 1)]  # A 4 of 6
    records += [record((20, 100), 0)] * 3 + [record((20, 100), 1)] * 3  # 3-3: drawn
    records += [record((100, 100), 1)] * 4 + [record((100, 100), 0)] * 2  # B 4 of 6
    results = sets(records)
    assert [(r.size, r.points, r.winner) for r in results] == [
        ("20x20", (Fraction(4), Fraction(2)), 0),
        ("20x100", (Fraction(3), Fraction(3)), None),
        ("100x100", (Fraction(2), Fraction(4)), 1),
    ]
    assert komal_points(results) == (4, 4)


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ("2 1", None),
        ("2 1\n", None),
        ("1 1", "not covered"),
        ("4 1", "off the 3x2 board"),
        ("0 1", "off the"),
        ("2", "expected 'X Y'"),
        ("2 x", "expected 'X Y'"),
        ("", "expected 'X Y'"),
    ],
)
def test_an_answer_is_read_as_a_covered_cell_or_called_illegal(answer: str, problem: str | None) -> None:
    position = Position(3, 2, 1, ("1..", "..."))
    read = parse_answer(answer, position)
    if problem is None:
        assert read == (1, 0)
    else:
        assert isinstance(read, str) and read.startswith("illegal") and problem in read


SMALL = ScheduledBoard(5, 5, 6, 0)


@pytest.mark.parametrize(
    ("command", "fault"),
    [
        (f"{PYTHON} -c 'import time; time.sleep(60)'", f"late: no answer within {seconds(0.5):g} s"),
        (f"{PYTHON} -c 'import sys; print(\"gone\", file=sys.stderr); sys.exit(3)'", "failed: exit status 3: gone"),
        (f"{PYTHON} -c 'print(\"0 0\")'", "illegal: 0 0 is off the 5x5 board"),
        ("/no/such/program", "failed to start"),
    ],
)
def test_a_late_failed_or_illegal_answer_loses_the_game(command: str, fault: str) -> None:
    for first in (0, 1):
        result = play(SMALL, (Program(command), Program("builtin:easy")), first, seed=1, limit=seconds(0.5))
        assert result.winner == 1 and fault in result.fault
        assert len(result.seconds[0]) == 1, "the game ends at the bad answer"


def test_a_command_is_started_for_each_move_and_plays_a_whole_game() -> None:
    result = play(SMALL, (Program(f"{KABOOM} move --level normal"), Program("builtin:easy")), 0, seed=3)
    assert not result.fault
    assert result.winner in (0, 1, None) and max(result.scores) * 2 > SMALL.mines or sum(result.scores) == SMALL.mines
    assert result.winner is None or result.scores[result.winner] > result.scores[1 - result.winner]
    assert len(result.seconds[0]) >= 1


def test_check_program_refuses_an_unknown_builtin_or_an_unreadable_command() -> None:
    assert check_program("builtin:hard") == Program("builtin:hard")
    with pytest.raises(ValueError, match="unknown built-in player 'expert'"):
        check_program("builtin:expert")
    with pytest.raises(ValueError, match="cannot read the command"):
        check_program("kaboom move 'unclosed")


def kaboom_tournament(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([KABOOM, "tournament", *args], capture_output=True, text=True, timeout=seconds(300))


def test_kaboom_tournament_quick_plays_each_board_twice_and_scores_the_set() -> None:
    result = kaboom_tournament("builtin:normal", "builtin:easy", "--quick", "--jobs", "2", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert len(report["games"]) == 12
    assert [game["first"] for game in report["games"]] == ["A", "B"] * 6
    assert [game["board"] for game in report["games"][::2]] == [game["board"] for game in report["games"][1::2]]
    for game in report["games"]:
        a, b = game["scores"]
        assert game["winner"] == ("A" if a > b else "B" if b > a else None)
    assert sum(report["wins"]) + report["draws"] == 12
    assert report["sets"][0]["games"] == 12 and sum(report["points"]) in (2, 3)
    low, high = report["interval"]
    assert low <= report["a_share"] <= high
    assert set(report["seconds_per_move"]["A"]) == {"20x20"}


def test_kaboom_tournament_prints_games_sets_points_and_share() -> None:
    result = kaboom_tournament("builtin:easy", "builtin:easy", "--quick", "--seed", "5")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:2] == ["A: builtin:easy", "B: builtin:easy"]
    assert sum(1 for line in lines if " first: A " in line) == 12
    assert any(line.startswith("KöMaL points") for line in lines)
    assert any(line.startswith("games: A won") and "95 % interval" in line for line in lines)
    # Each game is also said on stderr as it ends, the same line as the report's.
    said = [line for line in result.stderr.splitlines() if " first: A " in line]
    assert said == [line for line in lines if " first: A " in line]


def test_kaboom_tournament_plays_only_the_games_asked_by_their_numbers() -> None:
    """A stopped run goes on with --games: the numbers are those each game's line showed in the whole schedule."""
    whole = kaboom_tournament("builtin:easy", "builtin:easy", "--quick", "--seed", "5")
    part = kaboom_tournament("builtin:easy", "builtin:easy", "--quick", "--seed", "5", "--games", "4-6", "--json")
    assert whole.returncode == 0 and part.returncode == 0, whole.stderr + part.stderr
    lines = [line for line in whole.stdout.splitlines() if " first: A " in line]
    assert [line.split(".", 1)[0].strip() for line in lines] == [str(number) for number in range(1, 13)]
    games = json.loads(part.stdout)["games"]
    assert [game["number"] for game in games] == [4, 5, 6]
    for game, line in zip(games, lines[3:6], strict=True):
        assert line.startswith(f"{game['number']:>3}. {game['board']}") and f"{game['first']} first" in line
        assert f"A {game['scores'][0]:>4} – {game['scores'][1]:<4} B" in line  # the same game, the same play
    assert len(json.loads(part.stdout)["sets"]) == 1 and json.loads(part.stdout)["sets"][0]["games"] == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["builtin:nobody", "builtin:easy"], "unknown built-in player 'nobody'"),
        (["builtin:easy", "builtin:easy", "--sizes", "30x16"], "none of the sizes 30x16"),
        (["builtin:easy", "builtin:easy", "--quick", "--games", "10-13"], "has 12 games: --games 10-13 goes past"),
        (["builtin:easy", "builtin:easy", "--games", "0-3"], "numbered from 1"),
        (["builtin:easy", "builtin:easy", "--games", "5-2"], "numbered from 1"),
        (["builtin:easy", "builtin:easy", "--games", "three"], "expected a game's number or a range"),
    ],
)
def test_kaboom_tournament_refuses_bad_programs_and_sizes(args: list[str], message: str) -> None:
    result = kaboom_tournament(*args)
    assert result.returncode == 2 and message in result.stderr and result.stdout == ""
