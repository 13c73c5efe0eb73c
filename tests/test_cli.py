"""`kaboom analyze` as a user runs it: the installed console command, stdin to stdout."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

KABOOM = str(Path(sys.executable).with_name("kaboom"))

POSITION = "5 3 3\n1....\n1....\n11...\n"


def kaboom(*args: str, stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run([KABOOM, *args], input=stdin, capture_output=True, text=True, timeout=60)


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
