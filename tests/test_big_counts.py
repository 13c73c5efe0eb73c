"""The bot on big boards (issue 23, point 9): past about 10**308 layouts a count has no float, and the bot
answered 500 at the first move on 40x40/300, 50x50/400 and 100x100 with thousands of mines, and at guesses
later in 100x100 games. Every game is dealt from its seed, and every move is a cell the bot's answer names."""

from __future__ import annotations

import random
import sys

import httpx
import pytest

from app.core.game import Move
from app.modes import ClassicOptions, apply_move, bot_choice, new_game
from app.service.kept import KEPT
from solver import Analyzer
from solver.counting import Budget
from tests.live import seconds

# A count with more bits than this has no float: the largest float is just under 2**1024.
FLOAT_BITS = sys.float_info.max_exp
SERVER_SETTINGS = {"create_limit": 100_000}


def dealt(width: int, height: int, mines: int, seed: int):
    game = new_game(width, height, mines, "classic", ClassicOptions(), rng=random.Random(seed))
    return game, Analyzer(game.position())


def choose(game, analyzer, seed: int):
    return bot_choice(game, analyzer, random.Random(f"{seed}:{game.version}"))


def play(game, analyzer, choice, seed: int):
    """The game once the choice is played as the bot's move, and its analyzer (the one given moves on with it)."""
    after, outcome = apply_move(
        game, Move(choice.action, *choice.cell, bot=True), rng=random.Random(seed), now=0.0, analyzer=analyzer
    )
    return after, outcome.analyzer or Analyzer(after.position())


@pytest.mark.parametrize(
    "size",
    [(40, 40, 300), (50, 50, 400), (100, 100, 2000), (100, 100, 3000)],
    ids=lambda size: "x".join(map(str, size)),
)
def test_the_bot_takes_the_first_move_on_a_big_board(size, deal_seed):
    width, height, mines = size
    game, analyzer = dealt(width, height, mines, deal_seed)
    # Before the first click every way to place the mines is a layout.
    assert analyzer.frontier(Budget()).layouts.bit_length() > FLOAT_BITS
    choice = choose(game, analyzer, deal_seed)
    after, _ = play(game, analyzer, choice, deal_seed)
    x, y = choice.cell
    assert choice.safe and choice.first_click and 0 <= x < width and 0 <= y < height
    # The first click is safe by the rules: it opens the cell the bot named, as the bot's move.
    assert after.status == "playing" and after.cells[after.index(x, y)] != "." and after.state["bot_moves"] == 1


def check_guess(game, analyzer, choice) -> None:
    """A guess named where nothing is proven safe and the layouts left outnumber floats, with its exact chance."""
    assert game.started_at is not None and not analyzer.safe_cells()
    assert analyzer.frontier(Budget()).layouts.bit_length() > FLOAT_BITS
    x, y = choice.cell
    assert not choice.safe and game.cells[game.index(x, y)] == "."
    # Past its thinking time the bot guesses without counting (None); counted, its chance is the exact one.
    if choice.mine_probability is not None:
        assert choice.mine_probability == pytest.approx(float(analyzer.probabilities().cells[(x, y)]))


def test_the_bot_guesses_after_the_opening_of_a_100x100_game(deal_seed):
    # At 30 % mines the proven-safe cells around the first click's opening soon run out.
    game, analyzer = dealt(100, 100, 3000, deal_seed)
    for _ in range(100 * 100):  # each move opens a cell at least
        assert game.status == "playing"
        choice = choose(game, analyzer, deal_seed)
        if choice.safe:
            game, analyzer = play(game, analyzer, choice, deal_seed)
            continue
        check_guess(game, analyzer, choice)
        after, _ = play(game, analyzer, choice, deal_seed)
        # The guess is played like any move: it shows a number, or the game is lost on it.
        index = after.index(*choice.cell)
        assert (after.status, after.exploded) == ("lost", index) or (
            after.status == "playing" and after.cells[index] != "."
        )
        return
    raise AssertionError("no guess")


def test_the_bot_guesses_again_and_again_in_a_100x100_help_game(deal_seed):
    # Help opens a guess safely (or flags the mine under it), so no deal is lost before its third guess.
    game = new_game(100, 100, 3000, "help", ClassicOptions(), rng=random.Random(deal_seed))
    analyzer, guesses = Analyzer(game.position()), 0
    for _ in range(2 * 100 * 100):  # a cell opened, or help asked for the next
        assert game.status == "playing"
        choice = choose(game, analyzer, deal_seed)
        if choice.action == "help":
            check_guess(game, analyzer, choice)
            guesses += 1
            if guesses == 3:
                return
        game, analyzer = play(game, analyzer, choice, deal_seed)
    raise AssertionError(f"{guesses} guesses")


@pytest.mark.usefixtures("seeded")
def test_the_bot_answers_on_a_100x100_board_with_3000_mines(server):
    with httpx.Client(base_url=server, timeout=seconds(60)) as client:
        created = client.post("/api/games", json={"width": 100, "height": 100, "mines": 3000, "mode": "classic"})
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        named = client.get(f"/api/games/{game_id}/bot")
        assert named.status_code == 200, named.text
        x, y = named.json()["x"], named.json()["y"]
        played = client.post(f"/api/games/{game_id}/bot")
        assert played.status_code == 200, played.text
        assert played.json()["board"][y][x] != "." and played.json()["bot_moves"] == 1


@pytest.mark.parametrize(("size", "slow"), [((40, 40, 300), True), ((30, 16, 99), False)])
def test_the_bot_on_a_big_board_plays_where_slow_work_runs(size, slow, deal_seed, tmp_path):
    """One client asking the bot for 100x100 moves without a pause kept a worker's processor busy (another
    player's p95: 6 ms to 144 ms); a big board's bot requests leave the cheap threads, Expert's stay."""
    import asyncio

    from app.core.config import Settings
    from app.service import Deals, GameService
    from app.store import MemoryStore

    async def scene() -> tuple[bool, bool]:
        settings = Settings(database=tmp_path / "games.sqlite3")  # its key is made there, not in the working tree
        service = GameService(MemoryStore(kept=KEPT), settings, Deals(seed=deal_seed), clock=lambda: 100.0)
        game_id, _ = await service.games.create("alice", "client", "classic", *size, {})
        _, choice = await service.aids.bot_choice(game_id, "alice")
        asked = game_id in service.runner.slow_games
        result = await service.games.bot_move(game_id, "alice")
        assert result.bot is not None and result.bot.cell == choice.cell, "the move opens the cell the bot named"
        return asked, game_id in service.runner.slow_games

    assert asyncio.run(scene()) == (slow, slow)
