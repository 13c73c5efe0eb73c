"""`kaboom analyze` as a user runs it: the installed console command, stdin to stdout."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.live import seconds

pytestmark = pytest.mark.subprocess

KABOOM = str(Path(sys.executable).with_name("kaboom"))

POSITION = "5 3 3\n1....\n1....\n11...\n"


def kaboom(*args: str, stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run([KABOOM, *args], input=stdin, capture_output=True, text=True, timeout=seconds(60))


def test_text_output_answers_every_position_in_order():
    result = kaboom("analyze", stdin=POSITION + "\n" + "7 1 1\n.1.1...\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "1s???\n1ms??\n11s??\n\ns1m1sss\n"


def test_json_output_has_statuses_and_exact_probabilities():
    result = kaboom("analyze", "--json", stdin=POSITION + "\n" + "7 1 2\n.1.1...\n")
    assert result.returncode == 0, result.stderr
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    assert first["status"] == ["1s???", "1ms??", "11s??"]
    assert first["probability"][0][:3] == [None, 0.0, 2 / 7]
    assert first["probability"][1][1] == 1.0
    assert first["budget_exceeded"] is False
    assert second["probability"][0] == [1 / 3, None, 2 / 3, None, 1 / 3, 1 / 3, 1 / 3]


def test_explain_prints_the_proof():
    result = kaboom("analyze", "--explain", "2,1", stdin=POSITION)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == (
        "column 2, row 1 is safe, proven by the numbers at column 1, row 1; column 1, row 3"
    )
    as_json = json.loads(kaboom("analyze", "--json", "--explain", "2,2", stdin=POSITION).stdout)
    assert as_json["explanation"]["status"] == "mine"
    assert as_json["explanation"]["numbers"] == [[1, 3]]


def test_budget_exhaustion_is_reported_not_hidden():
    result = kaboom("analyze", "--json", "--budget", "1", stdin="7 1 2\n.1.1...\n")
    answer = json.loads(result.stdout)
    assert answer["probability"] is None and answer["budget_exceeded"] is True
    assert answer["status"] == ["?1?1???"]


@pytest.mark.parametrize(
    "args, stdin, message",
    [
        ((), "3 3 1\n...\n.9.\n...\n", "kaboom analyze: line 3, column 2: expected one of"),
        ((), "", "kaboom analyze: line 1: expected a position, got empty input"),
        ((), "3 1 0\n.1.\n", "kaboom analyze: inconsistent: the 1 at column 2, row 1 and a total of 0 mines"),
        ((), POSITION + "\n3 1 0\n.1.\n", "kaboom analyze: position 2: inconsistent:"),
        (("--explain", "4,1"), POSITION, "kaboom analyze: cannot explain: column 4, row 1 is not proven"),
        (("--explain", "9,9"), POSITION, "kaboom analyze: cannot explain column 9, row 9: the board is 5x3"),
        (("--explain", "1,1"), POSITION, "kaboom analyze: cannot explain: column 1, row 1 is not covered"),
    ],
)
def test_bad_input_exits_2_with_one_line(args, stdin, message):
    result = kaboom("analyze", *args, stdin=stdin)
    assert result.returncode == 2
    assert result.stderr.startswith(message), result.stderr
    assert result.stderr.count("\n") == 1


def test_malformed_option_is_a_usage_error():
    result = kaboom("analyze", "--explain", "a,b", stdin=POSITION)
    assert result.returncode == 2
    assert "expected X,Y" in result.stderr


def test_generate_prints_a_layout_as_a_position_the_same_for_the_same_seed():
    result = kaboom("generate", "30", "16", "99", "--seed", "7", "--first", "4,4", stdin="")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert (
        lines[0] == "30 16 99"
        and len(lines) == 17
        and all(len(row) == 30 and set(row) <= {"*", "."} for row in lines[1:])
    )
    assert sum(row.count("*") for row in lines[1:]) == 99
    # The first click (column 4, row 4) and its neighbours are empty: an opening.
    assert all(lines[1 + y][x] == "." for y in (2, 3, 4) for x in (2, 3, 4))
    assert kaboom("generate", "30", "16", "99", "--seed", "7", "--first", "4,4", stdin="").stdout == result.stdout
    assert kaboom("generate", "30", "16", "99", "--seed", "8", "--first", "4,4", stdin="").stdout != result.stdout


def test_generate_no_guess_prints_a_board_a_player_clears_by_deduction():
    from solver import Analyzer, Position
    from solver.position import neighbour_table

    result = kaboom("generate", "16", "16", "40", "--seed", "3", "--first", "8,8", "--no-guess", stdin="")
    assert result.returncode == 0, result.stderr
    rows = result.stdout.splitlines()[1:]
    mines = {y * 16 + x for y, row in enumerate(rows) for x, symbol in enumerate(row) if symbol == "*"}
    shown = ["."] * 256
    analyzer = Analyzer(Position.empty(16, 16, 40))
    opening, cells = [7 * 16 + 7], []
    while opening:
        # Open every cell given (zeros spread), then whatever the solver proves safe, until nothing is.
        while opening:
            index = opening.pop()
            if shown[index] != ".":
                continue
            number = sum(n in mines for n in neighbour_table(16, 16)[index])
            shown[index] = str(number)
            cells.append(index)
            analyzer.reveal({(index % 16, index // 16): str(number)})
            if number == 0:
                opening.extend(neighbour_table(16, 16)[index])
        opening = [y * 16 + x for x, y in analyzer.safe_cells()]
    assert shown.count(".") == 40


@pytest.mark.parametrize(
    "args, message",
    [
        (["9", "9", "81"], "between 1 and 80"),
        (["9", "9", "10", "--first", "10,1"], "off the 9x9 board"),
        (["2", "2", "1", "--no-guess", "--seed", "1"], "try fewer mines"),
    ],
)
def test_generate_refuses_what_it_cannot_do_with_exit_2_and_one_line(args, message):
    result = kaboom("generate", *args, stdin="")
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and message in result.stderr


def test_every_domain_error_a_command_meets_is_one_line_and_status_2(monkeypatch, capsys):
    """The command line maps the domain's errors wholesale (app.core.errors.KaboomError), not one kind at a time:
    a refusal of the rules deep in a command is a line, like bad input."""
    from app import cli
    from app.core.game import Refused

    def refuses(args, stdin, stdout):
        raise Refused("the game is won: no moves after the end")

    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    parser.set_defaults(handler=refuses)
    for subparser in parser._subparsers._group_actions[0].choices.values():
        subparser.set_defaults(handler=refuses)
    assert cli.main(["generate", "9", "9", "10"]) == 2
    assert capsys.readouterr().err == "kaboom generate: the game is won: no moves after the end\n"
