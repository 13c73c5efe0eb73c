"""Fuzzing: schemathesis against the running app's OpenAPI schema, and random move
sequences (valid and invalid) through the rules and the API."""

from __future__ import annotations

import random

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from schemathesis.checks import positive_data_acceptance

from app.core.game import Game, Move, Refused, set_options
from app.modes import apply_move, new_game
from solver import Analyzer
from tests.live import live_server, seconds


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # Generous limits: the fuzzer creates many games from one address.
    with live_server(tmp_path_factory.mktemp("fuzz") / "games.sqlite3", create_limit=100_000) as url:
        yield url


def operations(server: str):
    schema = schemathesis.openapi.from_url(f"{server}/openapi.json")
    return [result.ok() for result in schema.get_all_operations()]


# Schema-valid data can still break a rule the schema cannot state (mines
# below width x height, x below the board's width): a 422 for it is right.
EXCLUDED = [positive_data_acceptance]


def test_the_api_never_fails_and_always_matches_its_schema(server):
    for operation in operations(server):

        @given(case=operation.as_strategy())
        @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
        def call(case):
            # No 5xx, and every answer, errors included, is what the schema promises.
            case.call_and_validate(excluded_checks=EXCLUDED)

        call()


def test_the_api_holds_on_a_real_game_too(server):
    # Random ids only ever find 404s: aim the same requests at a game the caller owns.
    for operation in operations(server):
        if "{game_id}" not in operation.path:
            continue

        @given(case=operation.as_strategy())
        @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
        def call(case):
            with httpx.Client(base_url=server) as client:
                game = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10}).json()
                case.path_parameters["game_id"] = game["id"]
                cookie = "; ".join(f"{name}={value}" for name, value in client.cookies.items())
            case.call_and_validate(headers={"cookie": cookie}, excluded_checks=EXCLUDED)

        call()


def check_invariants(game: Game) -> None:
    assert len(game.cells) == game.width * game.height
    assert game.status in ("playing", "won", "lost")
    covered = game.cells.count(".")
    assert all(game.cells[index] == "." for index in game.marks)
    if game.status == "won":
        assert covered == game.mines and sorted(game.shown_mines) == [i for i, s in enumerate(game.cells) if s == "."]
    if game.status == "lost":
        assert (
            game.exploded in game.shown_mines
            and game.cells[game.exploded] == "."
            and len(game.shown_mines) == game.mines
        )
    if game.status == "playing":
        assert game.shown_mines is None and game.exploded is None
        Analyzer(game.position()).check()  # what the player sees always has a layout


class RulesMachine(RuleBasedStateMachine):
    """Any sequence of moves, valid or not: refused ones change nothing, the rest keep the game sound."""

    @initialize(
        width=st.integers(2, 7), height=st.integers(2, 7), density=st.floats(0.05, 0.6), seed=st.integers(0, 2**16)
    )
    def start(self, width, height, density, seed):
        mines = max(1, min(width * height - 1, round(width * height * density)))
        self.game = new_game(width, height, mines, rng=random.Random(0))
        self.rng = random.Random(seed)
        self.analyzer = None

    @rule(
        action=st.sampled_from(["reveal", "flag", "chord", "undo", "explode"]),
        x=st.integers(-1, 7),
        y=st.integers(-1, 7),
        mark=st.sampled_from([None, None, "flag", "question", "none", "star"]),
    )
    def move(self, action, x, y, mark):
        before = self.game.to_json(), list(self.game.history)
        try:
            self.game, outcome = apply_move(
                self.game,
                Move(action, x, y, mark if action == "flag" else None),
                rng=self.rng,
                now=1.0,
                analyzer=self.analyzer,
            )
            self.analyzer = outcome.analyzer if action != "undo" else None
        except Refused:
            assert (self.game.to_json(), self.game.history) == before

    @rule(name=st.sampled_from(["allow_outside", "undo", "countdown", "made_up"]), value=st.booleans())
    def option(self, name, value):
        try:
            self.game = set_options(self.game, {name: value})
        except Refused:
            # Unknown settings, and undo turned on once the game is over (it would take back the result).
            late_undo = name == "undo" and value and not self.game.options.undo and self.game.status != "playing"
            assert name == "made_up" or late_undo

    @invariant()
    def sound(self):
        check_invariants(self.game)
        if self.analyzer is not None and self.game.status == "playing":
            assert self.analyzer.position == self.game.position()


TestRulesMachine = RulesMachine.TestCase
TestRulesMachine.settings = settings(max_examples=60, stateful_step_count=25, deadline=None)


def test_random_moves_through_the_api_keep_the_game_sound(server):
    @given(
        st.lists(
            st.tuples(
                st.sampled_from(["reveal", "flag", "chord", "undo", "bogus"]), st.integers(-2, 9), st.integers(-2, 9)
            ),
            max_size=25,
        )
    )
    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
    def play(moves):
        with httpx.Client(base_url=server, timeout=seconds(60)) as client:
            game = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10}).json()
            for action, x, y in moves:
                response = client.post(f"/api/games/{game['id']}/moves", json={"action": action, "x": x, "y": y})
                assert response.status_code in (200, 409, 422), response.text
                state = client.get(f"/api/games/{game['id']}").json()
                if response.status_code != 200:
                    assert state == {**game, "elapsed": state["elapsed"]}
                game = state
                rows = game["board"]
                assert len(rows) == 9 and all(len(row) == 9 for row in rows)
                assert ("*" in "".join(rows)) == (game["status"] != "playing")
                assert (game["exploded"] is not None) == (game["status"] == "lost")

    play()
