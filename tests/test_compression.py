"""Compression by Kaboom alone, with no proxy in front (a real uvicorn server): what is worth it goes
gzip-encoded when the client asks, small answers and the live event stream go as they are.

Bodies are read raw, as they were sent, and unpacked here; tests/test_proxy.py checks the same
through Caddy, which compresses in Kaboom's place."""

from __future__ import annotations

import gzip
import re
import time
from collections.abc import Iterator

import httpx
import pytest

from app.core.config import Settings
from app.service import Deals
from app.web import COMPRESS_MIN_BYTES
from app.web.deps import STATIC
from tests.clock import FakeClock
from tests.live import live_server, seconds

GZIP = {"Accept-Encoding": "gzip"}
PLAIN = {"Accept-Encoding": "identity"}
HTMX = {"HX-Request": "true"}
BIG_BOARD = {"preset": "custom", "width": "100", "height": "100", "mines": "2000"}
# The longest wait for an event. The client's read timeout ends a silence; FastAPI's keep-alive
# comments (every 15 s) would not end a stream that tells nothing, so events() counts too.
STREAM_SECONDS = seconds(10)


@pytest.fixture
def server(tmp_path, deal_seed):
    # The clock stands still: a page fetched twice is the same page, whatever it shows of time.
    with live_server(tmp_path / "games.sqlite3", deals=Deals(seed=deal_seed), clock=FakeClock()) as url:
        yield url


def fetch(client: httpx.Client, method: str, path: str, headers: dict, **request) -> tuple[httpx.Response, bytes]:
    """An answer and its body as it was sent, before any decoding."""
    with client.stream(method, path, headers=headers, **request) as response:
        return response, b"".join(response.iter_raw())


def new_game(client: httpx.Client, **form: str) -> str:
    response = client.post("/games", data=form)
    assert response.status_code == 303, response.text
    return response.headers["location"].rsplit("/", 1)[1]


def version_of(client: httpx.Client, game_id: str) -> int:
    return client.get(f"/api/games/{game_id}").json()["version"]


def a_covered_cell(client: httpx.Client, game_id: str) -> tuple[int, int]:
    board = client.get(f"/api/games/{game_id}").json()["board"]
    return next((x, y) for y, row in enumerate(board) for x, symbol in enumerate(row) if symbol == ".")


def move(
    client: httpx.Client, game_id: str, version: int, headers: dict, action: str = "flag"
) -> tuple[httpx.Response, bytes]:
    """A click on the first covered cell, as the page sends it, from a page showing `version`."""
    x, y = a_covered_cell(client, game_id)
    form = {"action": action, "x": str(x), "y": str(y), "version": str(version)}
    return fetch(client, "POST", f"/games/{game_id}/moves", {**HTMX, **headers}, data=form)


def check_gzipped(response: httpx.Response, body: bytes, plain: bytes) -> None:
    assert response.headers.get("content-encoding") == "gzip", response.headers
    assert gzip.decompress(body) == plain
    # Sent whole, its length is the packed one; sent in chunks (a static file), it has none.
    assert response.headers.get("content-length", str(len(body))) == str(len(body))
    # A cache keeps the two forms apart.
    assert "accept-encoding" in response.headers["vary"].lower()


def test_a_100x100_page_and_a_whole_grid_answer_go_gzipped_when_asked(server):
    with httpx.Client(base_url=server, timeout=seconds(60)) as client:
        game_id = new_game(client, **BIG_BOARD)
        plain, page = fetch(client, "GET", f"/games/{game_id}", PLAIN)
        packed, body = fetch(client, "GET", f"/games/{game_id}", GZIP)
        assert plain.status_code == packed.status_code == 200
        assert "content-encoding" not in plain.headers and int(plain.headers["content-length"]) == len(page)
        assert "accept-encoding" in plain.headers["vary"].lower()
        check_gzipped(packed, body, page)
        # Ten thousand covered cells, alike but for their place: far smaller packed, for every deal.
        assert len(body) * 5 < len(page)
        # Guard's headers, Server-Timing among them, are on the packed page as on the plain one.
        for name in ("content-security-policy", "x-content-type-options", "referrer-policy", "x-frame-options"):
            assert packed.headers[name] == plain.headers[name]
        assert packed.headers["server-timing"].startswith("app;dur=")

        # From a page older than the game, a move's answer is the whole grid.
        version = version_of(client, game_id)
        grid, packed_grid = move(client, game_id, version - 1, GZIP)
        assert grid.status_code == 200
        assert grid.headers["content-encoding"] == "gzip"
        answer = gzip.decompress(packed_grid).decode()
        assert len(re.findall(r'id="c-\d+-\d+"', answer)) == 100 * 100


def test_a_small_answer_goes_as_it_is(server):
    with httpx.Client(base_url=server, timeout=seconds(60)) as client:
        game_id = new_game(client, **BIG_BOARD)
        answer, body = move(client, game_id, version_of(client, game_id), GZIP)
        assert answer.status_code == 200
        assert len(body) < COMPRESS_MIN_BYTES, "a one-cell answer outgrew COMPRESS_MIN_BYTES: measure both again"
        assert "content-encoding" not in answer.headers
        assert b'id="c-' in body, "the cell, readable as it was sent"
        health, body = fetch(client, "GET", "/healthz", GZIP)
        assert "content-encoding" not in health.headers and body == b'{"status":"ok"}'


def test_static_files_go_gzipped_when_asked(server):
    with httpx.Client(base_url=server, timeout=seconds(60)) as client:
        # Vendored files, which nobody edits while the tests run: htmx in one piece, Swagger UI's
        # bundle (1.7 MB) read and packed in chunks.
        for name in ("htmx.min.js", "swagger-ui/swagger-ui-bundle.js"):
            plain, body = fetch(client, "GET", f"/static/{name}", PLAIN)
            assert "content-encoding" not in plain.headers and body == (STATIC / name).read_bytes()
            packed, body = fetch(client, "GET", f"/static/{name}", GZIP)
            check_gzipped(packed, body, (STATIC / name).read_bytes())
        # The script's entry is under the threshold; its modules the page loads with it are not.
        for name in ("kaboom.css", "js/game.js"):
            packed, body = fetch(client, "GET", f"/static/{name}", GZIP)
            assert packed.headers["content-encoding"] == "gzip" and gzip.decompress(body)


def test_refusals_still_answer_with_their_headers_when_gzip_is_asked(server):
    limit = Settings.model_fields["max_body_bytes"].default
    with httpx.Client(base_url=server, timeout=seconds(60)) as client:
        big = b"{" + b" " * limit + b"}"
        refused, body = fetch(client, "POST", "/api/games", {**GZIP, "Content-Type": "application/json"}, content=big)
        assert refused.status_code == 413 and f"larger than {limit} bytes".encode() in body
        cross_site = {**GZIP, "Sec-Fetch-Site": "cross-site"}
        cross, body = fetch(client, "POST", "/games", cross_site, data={"preset": "beginner"})
        assert cross.status_code == 403 and b"Cross-site" in body
        for response in (refused, cross):
            assert "content-encoding" not in response.headers
            assert response.headers["x-content-type-options"] == "nosniff"
            assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


def live_game(alice: httpx.Client, bob: httpx.Client) -> str:
    """A Flags game of two: Alice (Blue, to move) invites, Bob (Red) joins by the link."""
    game_id = new_game(alice, mode="flags", preset="custom", width="6", height="6", mines="9", opponent="invite")
    page = alice.get(f"/games/{game_id}").text
    link = re.search(r'id="invite-link" type="text" readonly value="([^"]+)"', page).group(1)
    assert bob.post(link).status_code == 303  # Play as Red
    return game_id


def events(stream: httpx.Response) -> Iterator[list[str]]:
    """The stream's events, each as its lines, as they come, keep-alive comments skipped; fails past
    STREAM_SECONDS without one."""
    deadline = time.monotonic() + STREAM_SECONDS
    event: list[str] = []
    for line in stream.iter_lines():
        assert time.monotonic() < deadline, f"no event within {STREAM_SECONDS} s"
        if line and not line.startswith(":"):
            event.append(line)
        elif not line and event:
            yield event
            event = []
            deadline = time.monotonic() + STREAM_SECONDS
    raise AssertionError("the stream ended")


def check_live_stream(url: str, headers: dict) -> None:
    """Bob's stream of a game of two, asked for with `headers`, comes uncompressed, and tells of Alice's move."""
    with (
        httpx.Client(base_url=url, timeout=seconds(60)) as alice,
        httpx.Client(base_url=url, timeout=STREAM_SECONDS) as bob,
    ):
        game_id = live_game(alice, bob)
        # A page older than the game hears of it at once.
        with bob.stream("GET", f"/games/{game_id}/events", params={"version": "-1"}, headers=headers) as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
            assert "content-encoding" not in stream.headers
            heard = events(stream)
            assert next(heard)[0] == "event: changed"
            answer, _ = move(alice, game_id, version_of(alice, game_id), {}, action="reveal")
            assert answer.status_code == 200
            # Then of the move (a presence change may be told first: it says the version it saw).
            now = f'data: "{version_of(alice, game_id)}"'
            for _ in range(5):
                event = next(heard)
                if event == ["event: changed", now]:
                    break
            else:
                raise AssertionError(f"no event told of the move: the last was {event}")


def test_the_live_stream_is_never_compressed_and_its_events_arrive(server):
    check_live_stream(server, {"Accept-Encoding": "gzip, deflate"})
