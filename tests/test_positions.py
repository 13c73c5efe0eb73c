"""The text format: parsing, formatting and every parser error."""

import pytest

from solver import Position, PositionError, parse_position, parse_positions


def test_round_trip():
    text = "4 2 3\n.F*1\n0123\n"
    position = parse_position(text)
    assert (position.width, position.height, position.mines) == (4, 2, 3)
    assert position[(1, 0)] == "F"
    assert position.format() == text


def test_several_positions_separated_by_blank_lines_keep_their_line_numbers():
    positions = parse_positions("1 1 0\n0\n\n\n2 1 1\n..\n")
    assert [p.width for p in positions] == [1, 2]
    with pytest.raises(PositionError) as raised:
        parse_positions("1 1 0\n0\n\n2 1 1\n.x\n")
    assert str(raised.value).startswith("line 5, column 2:")


@pytest.mark.parametrize(
    "text, where, fragment",
    [
        ("", "line 1", "expected a position"),
        ("3 3\n...\n", "line 1", "expected a header 'W H K'"),
        ("3 3 1 4\n", "line 1", "expected a header 'W H K'"),
        ("3 x 1\n", "line 1, column 3", "expected the height as a whole number, got 'x'"),
        ("3 3 -1\n", "line 1, column 5", "expected the mine count as a whole number"),
        ("0 3 1\n", "line 1", "width must be between 1 and 1000, got 0"),
        ("3 1001 1\n", "line 1", "height must be between 1 and 1000"),
        ("2 2 5\n..\n..\n", "line 1", "5 mines do not fit on a 2x2 board"),
        ("3 2 1\n.a.\n...\n", "line 2, column 2", "expected one of '.', 'F', '*', '0'-'8', got 'a'"),
        ("3 2 1\n.9.\n...\n", "line 2, column 2", "got '9'"),
        ("3 2 1\n..\n...\n", "line 2, column 3", "expected a row of 3 cells, got 2"),
        ("3 2 1\n....\n...\n", "line 2, column 4", "expected a row of 3 cells, got 4"),
        ("3 2 1\n...\n", "line 3", "expected 2 rows, got 1"),
        ("3 1 1\n...\n...\n", "line 3", "expected 1 rows, got more"),
    ],
)
def test_malformed_input_names_line_column_and_expectation(text, where, fragment):
    with pytest.raises(PositionError) as raised:
        parse_positions(text)
    message = str(raised.value)
    assert message.startswith(where + ":"), message
    assert fragment in message


def test_positions_built_in_code_are_checked_too():
    with pytest.raises(ValueError):
        Position(2, 1, 0, ("..", ".."))
    with pytest.raises(ValueError):
        Position(2, 1, 0, ("x.",))
