"""`kaboom tournament A B`: two Flags move programs play the KöMaL S.27 schedule (app.play.tournament)."""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from app.cli.errors import BadInput, positive
from app.play.bot import wilson_interval
from app.play.tournament import (
    ANSWER_SECONDS,
    RULES,
    GameRecord,
    Program,
    check_program,
    games,
    komal_points,
    move_times,
    play,
    schedule,
    sets,
)


def _play(job: tuple) -> GameRecord:
    board, programs, first, seed, uncover_all, limit, rules = job
    return play(board, programs, first, seed, uncover_all, limit, RULES[rules])


def tournament(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> None:
    try:
        programs = (check_program(args.a, RULES[args.rules]), check_program(args.b, RULES[args.rules]))
    except ValueError as error:
        raise BadInput(str(error)) from None
    boards = schedule(args.quick, args.sizes)
    if not boards:
        raise BadInput(
            f"none of the sizes {', '.join(f'{w}x{h}' for w, h in args.sizes)} "
            f"is in the {'quick ' if args.quick else ''}schedule"
        )
    numbered = list(enumerate(games(boards), start=1))
    if args.games is not None:
        first_game, last_game = args.games
        if last_game > len(numbered):
            raise BadInput(
                f"the schedule chosen has {len(numbered)} games: --games {first_game}-{last_game} goes past its end"
            )
        numbered = numbered[first_game - 1 : last_game]
    numbers = [number for number, _ in numbered]
    jobs = [
        (board, programs, first, args.seed, args.uncover_all, args.limit, args.rules) for _, (board, first) in numbered
    ]
    records: list[GameRecord] = []
    console = Console(file=sys.stderr)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[score]}"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("games", total=len(jobs), score="")
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            for record in pool.map(_play, jobs):
                records.append(record)
                won = [sum(1 for r in records if r.winner == side) for side in (0, 1)]
                progress.update(task, advance=1, score=f"A {won[0]} : {won[1]} B")
                # A full schedule takes hours: each game is said as it ends, with its number in the schedule, so
                # a run stopped early still tells, and --games plays the rest.
                line = game_line(record, numbers[len(records) - 1])
                progress.console.print(line, markup=False, highlight=False, soft_wrap=True)
    report(records, numbers, programs, args, stdout)


def game_line(record: GameRecord, number: int) -> str:
    names = ("A", "B")
    result = "a draw" if record.winner is None else f"{names[record.winner]} wins"
    fault = f" ({names[1 - record.winner]} {record.fault})" if record.fault and record.winner is not None else ""
    return (
        f"{number:>3}. {record.board.describe():<34} {names[record.first]} first: "
        f"A {record.scores[0]:>4} – {record.scores[1]:<4} B  {result}{fault}"
    )


def report(
    records: list[GameRecord],
    numbers: list[int],
    programs: tuple[Program, Program],
    args: argparse.Namespace,
    stdout: TextIO,
) -> None:
    names = ("A", "B")
    results = sets(records)
    points = komal_points(results)
    played = len(records)
    wins = [sum(1 for r in records if r.winner == side) for side in (0, 1)]
    draws = sum(1 for r in records if r.winner is None)
    share = (wins[0] + draws / 2) / played
    low, high = wilson_interval(wins[0] + draws / 2, played)
    # A fault loses the game: its record always names a winner.
    faults = [(record, 1 - record.winner) for record in records if record.fault and record.winner is not None]
    if args.json:
        json.dump(
            {
                "a": programs[0].name,
                "b": programs[1].name,
                "rules": args.rules,
                "games": [
                    {
                        "number": number,
                        "board": record.board.describe(),
                        "first": names[record.first],
                        "scores": record.scores,
                        "winner": None if record.winner is None else names[record.winner],
                        "fault": record.fault or None,
                    }
                    for number, record in zip(numbers, records, strict=True)
                ],
                "sets": [
                    {
                        "size": r.size,
                        "games": r.games,
                        "won": [float(p) for p in r.points],
                        "winner": None if r.winner is None else names[r.winner],
                    }
                    for r in results
                ],
                "points": list(points),
                "wins": wins,
                "draws": draws,
                "a_share": share,
                "interval": [low, high],
                "seconds_per_move": {
                    names[side]: {
                        size: {"median": t[0], "max": t[1], "answers": t[2]}
                        for size, t in move_times(records, side).items()
                    }
                    for side in (0, 1)
                },
            },
            stdout,
        )
        stdout.write("\n")
        return
    stdout.write(f"A: {programs[0].name}\nB: {programs[1].name}\nrules: {args.rules}\n\n")
    for number, record in zip(numbers, records, strict=True):
        stdout.write(game_line(record, number) + "\n")
    stdout.write("\nsets (a program wins a set with two thirds of its games; a draw counts half):\n")
    for set_result in results:
        winner = "drawn" if set_result.winner is None else f"won by {names[set_result.winner]}"
        stdout.write(
            f"  {set_result.size:<8} {set_result.games} games: "
            f"A {float(set_result.points[0]):g} – {float(set_result.points[1]):g} B, {winner}\n"
        )
    stdout.write(f"KöMaL points (3 a set won, 1 each a set drawn): A {points[0]} – {points[1]} B\n")
    stdout.write(
        f"games: A won {wins[0]}, B won {wins[1]}, {draws} drawn; A's share {100 * share:.1f} % "
        f"(95 % interval {100 * low:.1f} to {100 * high:.1f} %)\n"
    )
    if faults:
        stdout.write(f"games lost by a late, failed or illegal answer: {len(faults)}\n")
    stdout.write("seconds per answer (median, max) by board size:\n")
    for side in (0, 1):
        times = ", ".join(
            f"{size} {median:.3f} / {most:.3f} ({count} answers)"
            for size, (median, most, count) in move_times(records, side).items()
        )
        stdout.write(f"  {names[side]}: {times}\n")


def sizes_argument(text: str) -> tuple[tuple[int, int], ...]:
    sizes = []
    for size in text.split(","):
        sides = size.strip().lower().split("x")
        if len(sides) != 2 or not all(side.isdigit() for side in sides):
            raise argparse.ArgumentTypeError(f"expected sizes as WxH separated by commas, got {text!r}")
        sizes.append((int(sides[0]), int(sides[1])))
    return tuple(sizes)


def games_argument(text: str) -> tuple[int, int]:
    """N or N-M: games of the schedule by their numbers, from 1."""
    first, dash, last = text.strip().partition("-")
    if not first.isdigit() or (dash and not last.isdigit()):
        raise argparse.ArgumentTypeError(f"expected a game's number or a range N-M, got {text!r}")
    low = int(first)
    high = int(last) if dash else low
    if not 1 <= low <= high:
        raise argparse.ArgumentTypeError(f"games are numbered from 1, the first no later than the last: got {text!r}")
    return low, high


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "tournament",
        help="play two Flags move programs against each other on the KöMaL schedule",
        description=(
            "Plays two move programs (commands that read a position on stdin and print 'X Y', as `kaboom move` does, "
            "started afresh for every move; or builtin:LEVEL for a level played in this process) against each other "
            "in Minesweeper Flags: 20x20, 20x100 and 100x100 boards at 10 % to 47.5 % mines, each board twice so "
            "that each program starts once (48 boards, 96 games). An answer later than the limit, a failed program "
            "or an illegal move loses the game. Prints each game, the sets, the KöMaL points and A's share of the "
            "games."
        ),
    )
    parser.add_argument("a", metavar="A_CMD", help="program A, e.g. 'kaboom move --level hard' or builtin:hard")
    parser.add_argument("b", metavar="B_CMD", help="program B")
    parser.add_argument(
        "--quick", action="store_true", help="a smaller schedule: 20x20 boards at six densities (12 games)"
    )
    parser.add_argument(
        "--sizes",
        type=sizes_argument,
        metavar="WxH,...",
        help="play only these sets of the schedule, e.g. 20x20,20x100",
    )
    parser.add_argument(
        "--games",
        type=games_argument,
        metavar="N-M",
        help="play only these games of the schedule chosen, by the numbers each game's line shows (to go on "
        "with a run that was stopped, or to share a schedule among machines); sets count the games played",
    )
    parser.add_argument("--jobs", type=positive, default=1, help="games played at once (default %(default)s)")
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="deals the boards: the same seed plays the same boards (default %(default)s)",
    )
    parser.add_argument(
        "--uncover-all",
        action="store_true",
        help="play on until every mine is found (KöMaL's rule; the winners are the same, the scores final)",
    )
    parser.add_argument(
        "--limit", type=float, default=ANSWER_SECONDS, help="seconds an answer may take (default %(default)s)"
    )
    parser.add_argument(
        "--rules",
        choices=list(RULES),
        default="dealt",
        help="dealt: Flags' own rules, a layout dealt at the start (default); cruel: cruel Flags, no layout, only a "
        "proven mine scores and any other cell is empty (give the programs --rules cruel too)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout with every game")
    parser.set_defaults(handler=tournament)
