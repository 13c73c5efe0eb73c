"""Golden answers: the JSON, the pages and their fragments of seeded games in every mode, byte for byte.

A refactor must not change what a player or a client receives. Each scripted game below is dealt from a
seed on a clock that moves only when the script moves it, and every answer is compared with its file in
tests/golden/. The game ids and invitation keys (random by design) are replaced by names first.

A deliberate change of an answer: `KABOOM_GOLDEN=write pytest tests/test_golden.py`, then read the diff
of tests/golden/ before committing it, and name the change in the commit.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.service import Deals
from tests.clock import FakeClock
from tests.live import live_server, seconds, wait_until

pytestmark = pytest.mark.server

GOLDEN = Path(__file__).parent / "golden"
HTMX = {"HX-Request": "true"}


class Recorder:
    """The answers of one scripted game, by name, with its random names replaced."""

    def __init__(self, client: httpx.Client, clock: FakeClock):
        self.client, self.clock = client, clock
        self.answers: dict[str, str] = {}
        self.names: dict[str, str] = {}

    def name(self, secret: str, kind: str) -> None:
        self.names.setdefault(secret, f"{kind}{sum(known.startswith(kind) for known in self.names.values()) + 1}")

    def keep(self, label: str, response: httpx.Response, expected: int | tuple[int, ...] = 200) -> httpx.Response:
        assert response.status_code in (expected if isinstance(expected, tuple) else (expected,)), (
            label,
            response.status_code,
            response.text[:500],
        )
        text = f"status: {response.status_code}\n{response.text}"
        if response.headers.get("content-type", "").startswith("application/json") and text:
            if isinstance(response.json(), dict) and "id" in response.json():
                self.name(response.json()["id"], "GAME")
            text = f"status: {response.status_code}\n{json.dumps(response.json(), indent=1)}\n"
        location = response.headers.get("location")
        if location:
            text = f"location: {location}\n{text}"
        for secret, name in sorted(self.names.items(), key=lambda item: -len(item[0])):
            text = text.replace(secret, name)
        assert label not in self.answers, label
        self.answers[label] = text
        return response

    def api(self, game_id: str, label: str | None = None) -> dict:
        response = self.client.get(f"/api/games/{game_id}")
        if label:
            self.keep(label, response)
        assert response.status_code == 200, response.text
        return response.json()


def covered(game: dict) -> list[tuple[int, int]]:
    """The covered cells of an answer, read from it: what a script may click next."""
    return [(x, y) for y, row in enumerate(game["board"]) for x, symbol in enumerate(row) if symbol == "."]


def redirected(recorder: Recorder, label: str, response: httpx.Response, kind: str = "GAME") -> str:
    """The id a redirect's location ends with (a game's, a room's), kept under a name, the answer with it."""
    recorder.keep(label, response, 303)
    found = response.headers["location"].rsplit("/", 1)[1]
    recorder.name(found, kind)
    recorder.answers[label] = recorder.answers[label].replace(found, recorder.names[found])
    return found


def created(recorder: Recorder, label: str, form: dict[str, str]) -> str:
    return redirected(recorder, label, recorder.client.post("/games", data=form))


def page_move(
    recorder: Recorder,
    label: str,
    game_id: str,
    action: str,
    x: int | None = None,
    y: int | None = None,
    expected: int = 200,
) -> httpx.Response:
    version = recorder.api(game_id)["version"]
    form = {"action": action, "version": str(version)}
    if x is not None:
        form.update(x=str(x), y=str(y))
    recorder.clock.advance(3)
    return recorder.keep(label, recorder.client.post(f"/games/{game_id}/moves", data=form, headers=HTMX), expected)


def play_one_player(recorder: Recorder, mode: str) -> None:
    client = recorder.client
    recorder.keep("home-new", client.get("/"))
    game_id = created(recorder, "create", {"choice": f"{mode} beginner"})
    recorder.keep("page-new", client.get(f"/games/{game_id}"))
    recorder.api(game_id, "api-new")
    page_move(recorder, "move-reveal", game_id, "reveal", 4, 4)
    game = recorder.api(game_id, "api-after-reveal")
    if game["status"] == "playing":
        x, y = covered(game)[0]
        page_move(recorder, "move-flag", game_id, "flag", x, y)
        page_move(recorder, "move-unflag", game_id, "flag", x, y)
        recorder.keep("hint", client.post(f"/games/{game_id}/hint", data={"show": "yes"}, headers=HTMX))
        # The bot plays fixed layouts only: elsewhere the refusal is the answer kept.
        recorder.keep("bot-choice", client.get(f"/games/{game_id}/bot", headers=HTMX), (200, 409))
        recorder.keep("options", client.post(f"/games/{game_id}/options", data={"probabilities": "on"}, headers=HTMX))
        recorder.keep("page-probabilities", client.get(f"/games/{game_id}"))
        recorder.clock.advance(2)
        recorder.keep("api-move", client.post(f"/api/games/{game_id}/moves", json={"action": "reveal", "x": x, "y": y}))
        recorder.keep("api-probabilities", client.get(f"/api/games/{game_id}/probabilities"))
        recorder.keep("api-analysis", client.get(f"/api/games/{game_id}/analysis"))
    recorder.keep("page-later", client.get(f"/games/{game_id}"))
    recorder.clock.advance(5)  # the game list orders by time: a tie would fall back to the random ids
    recorder.keep(
        "api-created", client.post("/api/games", json={"width": 8, "height": 8, "mines": 10, "mode": mode}), 201
    )
    recorder.keep("home-later", client.get("/"))


def play_flags_on_one_screen(recorder: Recorder) -> None:
    client = recorder.client
    game_id = created(
        recorder,
        "create",
        {"mode": "flags", "preset": "custom", "width": "6", "height": "6", "mines": "9", "opponent": "screen"},
    )
    recorder.keep("page-new", client.get(f"/games/{game_id}"))
    recorder.api(game_id, "api-new")
    for step in range(6):
        game = recorder.api(game_id)
        if game["status"] != "playing":
            break
        x, y = covered(game)[step % 3]
        page_move(recorder, f"move-{step}", game_id, "reveal", x, y)
    recorder.api(game_id, "api-later")
    recorder.keep("page-later", client.get(f"/games/{game_id}"))
    recorder.keep("home", client.get("/"))
    recorder.keep("rules", client.get("/rules"))
    recorder.keep("records", client.get("/records"))


def play_flags_invitation(recorder: Recorder, guest: httpx.Client) -> None:
    client = recorder.client
    game_id = created(
        recorder,
        "create",
        {"mode": "flags", "preset": "custom", "width": "6", "height": "6", "mines": "9", "opponent": "invite"},
    )
    page = client.get(f"/games/{game_id}")
    key = re.search(r'/join/([A-Za-z0-9_-]+)"', page.text).group(1)
    recorder.name(key, "KEY")
    recorder.keep("page-inviter", page)
    recorder.keep("invitation", guest.get(f"/games/{game_id}/join/{key}"), 303)
    recorder.keep("watch-before-join", guest.get(f"/games/{game_id}/watch/{key}"))
    recorder.keep("live-unchanged", client.get(f"/games/{game_id}/live", params={"version": "0", "presence": "0"}), 204)
    recorder.keep("join", guest.post(f"/games/{game_id}/join/{key}"), 303)
    recorder.keep("page-guest", guest.get(f"/games/{game_id}"))
    recorder.keep("live-after-join", client.get(f"/games/{game_id}/live", params={"version": "0", "presence": "0"}))
    game = recorder.api(game_id, "api-joined")
    x, y = covered(game)[0]
    recorder.keep(
        "refused-turn",
        guest.post(
            f"/games/{game_id}/moves",
            data={"action": "reveal", "x": str(x), "y": str(y), "version": str(game["version"])},
            headers=HTMX,
        ),
        409,
    )
    page_move(recorder, "move-blue", game_id, "reveal", x, y)
    after = recorder.api(game_id)
    recorder.keep(
        "live-guest", guest.get(f"/games/{game_id}/live", params={"version": str(game["version"]), "presence": "01"})
    )
    recorder.keep("api-guest", guest.get(f"/api/games/{game_id}"))
    recorder.keep("watch-later", httpx.get(f"{client.base_url}/games/{game_id}/watch/{key}"))
    recorder.keep(
        "watch-live",
        httpx.get(
            f"{client.base_url}/games/{game_id}/watch/{key}/live",
            params={"version": str(game["version"]), "presence": ""},
        ),
    )
    assert after["version"] > game["version"]


def play_flags_computer(recorder: Recorder) -> None:
    client = recorder.client
    game_id = created(
        recorder,
        "create",
        {
            "mode": "flags",
            "preset": "custom",
            "width": "6",
            "height": "6",
            "mines": "9",
            "opponent": "computer",
            "level": "easy",
        },
    )
    recorder.keep("page-new", client.get(f"/games/{game_id}"))
    game = recorder.api(game_id)
    x, y = covered(game)[0]
    page_move(recorder, "move-blue", game_id, "reveal", x, y)

    # The computer moves after the player, in the background: wait (with a deadline) for Blue's turn again.
    def blues_turn() -> bool:
        game = recorder.api(game_id)
        return game["status"] != "playing" or game["two_players"]["turn"] == 0

    wait_until(blues_turn, 10, "the computer did not move within 10 seconds", every=0.02)
    recorder.api(game_id, "api-after-computer")
    recorder.keep("page-after-computer", client.get(f"/games/{game_id}"))


def first_move(recorder: Recorder, label: str, game_id: str) -> None:
    """The first reveal, on the cell a board that opens at one outlines (a no-guess deal's), else in its corner."""
    page_move(recorder, label, game_id, "reveal", *(recorder.api(game_id)["start"] or (4, 4)))


def lose(recorder: Recorder, game_id: str, prefix: str) -> None:
    """Reveals covered cells in reading order until the game ends (on a beginner board, soon by a mine)."""
    for step in range(100):
        game = recorder.api(game_id)
        if game["status"] != "playing":
            return
        x, y = covered(game)[0]
        page_move(recorder, f"{prefix}-{step}", game_id, "reveal", x, y)
    raise AssertionError("the game did not end in 100 reveals")


def play_pages(recorder: Recorder, guest: httpx.Client) -> None:
    """The pages beside a game: the API's, the error pages, a finished game's replay (its owner's and a shared
    one), the records, and the boards of the day with their calendar."""
    client = recorder.client
    recorder.keep("docs", client.get("/docs"))
    recorder.keep("gone", client.get("/games/no-such-game"), 404)
    recorder.keep("refused-form", client.post("/games", data={"mode": "cruel", "width": "x", "height": "9"}), 422)
    game_id = created(recorder, "create", {"choice": "classic beginner"})
    page_move(recorder, "move-first", game_id, "reveal", 4, 4)
    recorder.keep("replay-in-play", client.get(f"/games/{game_id}/replay"), 404)
    lose(recorder, game_id, "move")
    recorder.keep("page-ended", client.get(f"/games/{game_id}"))
    recorder.keep("replay", client.get(f"/games/{game_id}/replay"))
    recorder.keep("share", client.post(f"/games/{game_id}/share", data={"shared": "1"}), 303)
    shared = client.get(f"/games/{game_id}/replay")
    key = re.search(rf"/replays/{game_id}/([A-Za-z0-9_-]+)", shared.text).group(1)
    recorder.name(key, "KEY")
    recorder.keep("replay-shared", shared)
    seen = guest.get(f"/replays/{game_id}/{key}")
    recorder.name(re.search(r"anonymous [0-9a-f]{4}", seen.text).group(0), "ANONYMOUS")
    recorder.keep("replay-seen", seen)
    recorder.keep("records", client.get("/records"))
    today = client.get("/daily")
    recorder.name(re.search(r'placeholder="(anonymous [0-9a-f]{4})"', today.text).group(1), "ANONYMOUS")
    recorder.keep("daily", today)
    recorder.keep("daily-name-refused", client.post("/daily/name", data={"name": "<b>me</b>"}), 303)
    recorder.keep("daily-refused", client.get("/daily"))
    recorder.keep("daily-name", client.post("/daily/name", data={"name": "Ada"}), 303)
    date = re.search(r'action="/daily/([0-9-]+)/classic/games"', today.text).group(1)
    daily_id = redirected(recorder, "daily-play", client.post(f"/daily/{date}/classic/games"))
    recorder.keep("daily-page-new", client.get(f"/games/{daily_id}"))
    first_move(recorder, "daily-move", daily_id)
    lose(recorder, daily_id, "daily-move")
    later = client.get("/daily")
    recorder.name(re.search(rf"/replays/{daily_id}/([A-Za-z0-9_-]+)", later.text).group(1), "KEY")
    recorder.keep("daily-later", later)
    seen_today = guest.get("/daily")
    recorder.name(re.search(r'placeholder="(anonymous [0-9a-f]{4})"', seen_today.text).group(1), "ANONYMOUS")
    recorder.keep("daily-seen", seen_today)
    before = re.search(r'href="/daily/([0-9-]+)">← The day before', today.text).group(1)
    recorder.keep("daily-before", client.get(f"/daily/{before}"))
    recorder.keep("daily-history", client.get("/daily/history"))
    recorder.keep("home", client.get("/"))


def play_rooms(recorder: Recorder, guest: httpx.Client) -> None:
    """A race's lobby, as its maker and as whoever holds its link, joined and started; a co-op room's game."""
    client = recorder.client
    room_id = redirected(
        recorder,
        "race-create",
        client.post("/games", data={"choice": "classic beginner", "room": "race", "name": "Ann"}),
        "ROOM",
    )
    lobby = client.get(f"/rooms/{room_id}")
    key = re.search(rf"/rooms/{room_id}/join/([A-Za-z0-9_-]+)", lobby.text).group(1)
    recorder.name(key, "KEY")
    recorder.keep("race-lobby", lobby)
    recorder.keep("race-live", client.get(f"/rooms/{room_id}/live", params={"room_state": ""}, headers=HTMX))
    recorder.keep("race-invitation", guest.get(f"/rooms/{room_id}/join/{key}"), 303)
    recorder.keep("race-watch", guest.get(f"/rooms/{room_id}/watch/{key}"))
    recorder.keep(
        "race-watch-live", guest.get(f"/rooms/{room_id}/watch/{key}/live", params={"room_state": ""}, headers=HTMX)
    )
    recorder.keep("race-join", guest.post(f"/rooms/{room_id}/join/{key}", data={"name": "Bob", "colour": "1"}), 303)
    recorder.keep("race-lobby-joined", client.get(f"/rooms/{room_id}"))
    recorder.keep("race-lobby-guest", guest.get(f"/rooms/{room_id}"))
    recorder.keep("race-start", client.post(f"/rooms/{room_id}/start"), 303)
    race_id = redirected(recorder, "race-room", client.get(f"/rooms/{room_id}"))
    recorder.keep("race-page", client.get(f"/games/{race_id}"))
    recorder.clock.advance(5)
    first_move(recorder, "race-move", race_id)
    recorder.keep("race-page-later", client.get(f"/games/{race_id}"))
    coop_room = redirected(
        recorder,
        "coop-create",
        client.post("/games", data={"choice": "classic beginner", "room": "coop", "name": "Ann"}),
        "ROOM",
    )
    coop_id = redirected(recorder, "coop-room", client.get(f"/rooms/{coop_room}"))
    page = client.get(f"/games/{coop_id}")
    coop_key = re.search(rf"/rooms/{coop_room}/join/([A-Za-z0-9_-]+)", page.text).group(1)
    recorder.name(coop_key, "KEY")
    recorder.keep("coop-page", page)
    recorder.keep("coop-watch", guest.get(f"/rooms/{coop_room}/watch/{coop_key}"), 303)
    recorder.keep("coop-watch-page", guest.get(f"/games/{coop_id}/watch/{coop_key}"))
    first_move(recorder, "coop-move", coop_id)
    recorder.keep("coop-hint", client.post(f"/games/{coop_id}/hint", data={"show": "yes"}, headers=HTMX))
    recorder.keep(
        "coop-live",
        client.get(f"/games/{coop_id}/live", params={"version": "0", "presence": "", "room_state": ""}, headers=HTMX),
    )
    recorder.keep(
        "coop-watch-live",
        guest.get(f"/games/{coop_id}/watch/{coop_key}/live", params={"version": "0", "room_state": ""}, headers=HTMX),
    )
    recorder.keep("home", client.get("/"))


SCRIPTS = {
    "classic": lambda recorder, guest: play_one_player(recorder, "classic"),
    "cruel": lambda recorder, guest: play_one_player(recorder, "cruel"),
    "help": lambda recorder, guest: play_one_player(recorder, "help"),
    "flags-screen": lambda recorder, guest: play_flags_on_one_screen(recorder),
    "flags-invite": play_flags_invitation,
    "flags-computer": lambda recorder, guest: play_flags_computer(recorder),
    "pages": play_pages,
    "rooms": play_rooms,
}


@pytest.fixture
def recorded(tmp_path, request) -> Iterator[Recorder]:
    clock = FakeClock()
    with live_server(
        tmp_path / "games.sqlite3",
        deals=Deals(seed=7),
        clock=clock,
        computer_pause=0.0,
        secret_key="golden answers, not a real key",
    ) as url:
        with (
            httpx.Client(base_url=url, timeout=seconds(30)) as client,
            httpx.Client(base_url=url, timeout=seconds(30)) as guest,
        ):
            recorder = Recorder(client, clock)
            recorder.names[url] = "http://kaboom.test"  # the port is free one, a new one every run
            SCRIPTS[request.param](recorder, guest)
            yield recorder


def compare(folder: Path, answers: dict[str, str]) -> None:
    if os.environ.get("KABOOM_GOLDEN") == "write":
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
        for label, text in answers.items():
            (folder / label).write_text(text)
        return
    stored = sorted(path.name for path in folder.iterdir()) if folder.exists() else []
    assert stored == sorted(answers), f"the answers recorded differ from {folder}'s files"
    for label, text in answers.items():
        expected = (folder / label).read_text()
        assert text == expected, f"{folder.name}/{label} differs from its golden file"


@pytest.mark.parametrize("recorded", sorted(SCRIPTS), indirect=True)
def test_answers_are_byte_identical_to_the_golden_files(recorded, request) -> None:
    compare(GOLDEN / request.node.callspec.id, recorded.answers)


def test_the_openapi_document_is_the_golden_one(tmp_path) -> None:
    with live_server(tmp_path / "games.sqlite3") as url:
        document = httpx.get(f"{url}/openapi.json").json()
    compare(GOLDEN / "openapi", {"openapi.json": json.dumps(document, indent=1) + "\n"})
