"""Two versions of the bot on the same games: the paired difference in win rate, with its interval.

Games dealt from the same --seed are the same boards, so two runs of `kaboom bot --json` with the same
size, start, --games and --seed can be compared game by game: only the games one version wins and the
other loses (the discordant pairs) carry the difference, which makes it far tighter than comparing two
independent win rates. Run by hand, e.g. before and after a change to solver/strategy.py:

    .venv/bin/kaboom bot --games 10000 --jobs 2 --seed 7 --json > before.json
    (change the strategy)
    .venv/bin/kaboom bot --games 10000 --jobs 2 --seed 7 --json > after.json
    .venv/bin/python bench/bot_compare.py before.json after.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path


def load(path: Path) -> list[bool]:
    try:
        answer = json.loads(path.read_text())
        return [bool(game["won"]) for game in answer["games"]]
    except (OSError, ValueError, KeyError, TypeError) as error:
        sys.exit(f"{path}: not the output of kaboom bot --json ({error})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    before, after = load(args.before), load(args.after)
    if len(before) != len(after):
        sys.exit(f"{len(before)} games against {len(after)}: run both with the same --games and --seed")
    games = len(before)
    only_before = sum(1 for a, b in zip(before, after, strict=True) if a and not b)
    only_after = sum(1 for a, b in zip(before, after, strict=True) if b and not a)
    difference = (only_after - only_before) / games
    # The paired (McNemar) standard error of the difference of two proportions on the same games.
    spread = math.sqrt(max(0.0, only_before + only_after - (only_after - only_before) ** 2 / games)) / games
    print(f"before: won {sum(before)} of {games} = {100 * sum(before) / games:.2f} %")
    print(f"after:  won {sum(after)} of {games} = {100 * sum(after) / games:.2f} %")
    print(f"games only before won: {only_before}; only after: {only_after}")
    print(
        f"difference: {100 * difference:+.2f} points "
        f"(95 % interval {100 * (difference - 1.96 * spread):+.2f} to {100 * (difference + 1.96 * spread):+.2f})"
    )


if __name__ == "__main__":
    main()
