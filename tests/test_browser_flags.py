"""End to end, Flags: real Chromium pages on real servers. Two players play a whole game through an
invitation link, each on a server of their own that shares the store with the other (two workers on one
SQLite file; two hosts on one Redis), and a third page watches. Every deal is allowed: each player clicks
a covered cell read from its own page, and what is checked holds for any layout."""

from __future__ import annotations

import statistics
import time

import pytest

from tests.live import kaboom_process, seconds
from tests.redis_server import redis_server
from tests.test_browser import CHROMIUM  # noqa: F401 (skips the module without Chromium)

pytestmark = [pytest.mark.subprocess, pytest.mark.redis]

SECRET = {"KABOOM_SECRET_KEY": "a-long-test-secret-of-32-characters!"}
# Generous: a move shows on the other pages within a second on an idle machine (the test prints the
# figures); a loaded test machine must not fail on timing.
SHOWN_WITHIN = seconds(10.0)


@pytest.fixture(scope="module")
def one_server(tmp_path_factory):
    """One `kaboom serve` on SQLite for the module's tests of one server: starting one costs a second of processor
    time, and these tests each play games of their own on it."""
    database = tmp_path_factory.mktemp("flags") / "games.sqlite3"
    env = {"KABOOM_DATABASE": str(database), "KABOOM_COMPUTER_PAUSE": "0.3", "KABOOM_CREATE_LIMIT": "1000"}
    with kaboom_process(**env, **SECRET) as (_, url):
        yield url


LAPTOP = {"viewport": {"width": 1366, "height": 650}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


def open_page(browser, url: str, **options):
    options = {"viewport": {"width": 1200, "height": 900}, **options}
    context = browser.new_context(base_url=url, bypass_csp=True, **options)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return context, page, errors


# Each cell's look as the server sent it: its classes but the keyboard cursor's (the page's own), and its text.
CELLS = (
    "[...document.querySelectorAll('#grid .c')]"
    ".map(c => [...c.classList].filter(n => n !== 'cur').join(' ') + ':' + c.textContent)"
)


def press(page, selector: str) -> None:
    """A click, or on a touch screen a tap (which the page reads as a tap, not as a mouse)."""
    if page.evaluate("navigator.maxTouchPoints > 0"):
        page.tap(selector)
    else:
        page.click(selector)


def version(page) -> int:
    return int(page.get_attribute("#version", "value"))


def settle(page) -> None:
    """Cells swapped in keep their old class for htmx's settle (20 ms): a cell is read from the board once it
    settled."""
    page.wait_for_function("!document.querySelector('.htmx-settling')", timeout=SHOWN_WITHIN * 1000)


def shows_version(page, wanted: int) -> None:
    page.wait_for_function(f"Number(document.getElementById('version').value) >= {wanted}", timeout=SHOWN_WITHIN * 1000)


def move_at_my_turn(page, my_turn: str) -> int | None:
    """Waits for the game's end or the player's turn (`my_turn`: a script's condition on the page), then presses
    the first covered cell and waits for its answer: the version before the move, or None once the game is over."""
    over = "document.getElementById('result').dataset.status !== 'playing'"
    if page.evaluate(over):
        return None
    page.wait_for_function(f"{over} || {my_turn}", timeout=SHOWN_WITHIN * 1000)
    if page.evaluate(over):
        return None
    settle(page)
    before = version(page)
    press(page, "#grid .c.u")
    page.wait_for_function(f"Number(document.getElementById('version').value) > {before}", timeout=SHOWN_WITHIN * 1000)
    return before


def play_through_an_invitation(
    browser, first: str, second: str, mode: str = "flags", looks: tuple[dict, dict] = ({}, {})
) -> list[float]:
    """Alice invites on `first`, Bob plays on `second` (each page as `looks` says: a viewport, touch, a colour
    scheme), Carol watches on `first`; returns how long each move took to show on the other player's page."""
    alice_context, alice, alice_errors = open_page(browser, first, **looks[0])
    bob_context, bob, bob_errors = open_page(browser, second, **looks[1])
    carol_context, carol, carol_errors = open_page(browser, first)
    try:
        alice.goto("/")
        made = alice.evaluate(
            "fetch('/api/games', {method: 'POST', headers: {'content-type': 'application/json'},"
            f" body: JSON.stringify({{mode: '{mode}', width: 6, height: 6, mines: 9, opponent: 'invite'}})}})"
            ".then(r => r.json())"
        )
        alice.goto(f"/games/{made['id']}")
        link = alice.input_value("#invite-link")
        bob.goto(link)
        bob.wait_for_selector("#board[data-actions]")
        assert "/watch/" in bob.url, "opening the link takes no seat"
        bob.click("form.join button")
        bob.wait_for_url(f"**/games/{made['id']}")
        bob.wait_for_selector("#board[data-actions]")
        assert "Red (you)" in bob.inner_text(".topbar"), "Play as Red takes the seat"
        carol.goto(link)
        carol.wait_for_selector("#board[data-actions]")
        assert "/watch/" in carol.url and "You are watching" in carol.inner_text("#panel")
        assert carol.locator("form.join").count() == 0, "the seat is taken: nothing to join"
        # Alice's page hears that Red has joined (presence is looked at every 5 s).
        alice.wait_for_function(
            "document.getElementById('panel').innerText.includes('Red is connected')",
            timeout=4 * SHOWN_WITHIN * 1000,
        )
        delays = []
        players = {0: alice, 1: bob}
        for _ in range(36):  # every cell of the 6x6 board
            if alice.get_attribute("#result", "data-status") != "playing":
                break
            mover = next(seat for seat, page in players.items() if page.inner_text("#result").startswith("Your turn"))
            page, other = players[mover], players[1 - mover]
            settle(page)
            before = version(page)
            press(page, "#grid .c.u")  # the first covered cell on the mover's own page
            page.wait_for_function(
                f"Number(document.getElementById('version').value) > {before}", timeout=SHOWN_WITHIN * 1000
            )
            started = time.monotonic()
            shows_version(other, before + 1)
            delays.append(time.monotonic() - started)
            shows_version(carol, before + 1)
        for page in (alice, bob, carol):
            page.wait_for_function(
                "document.getElementById('result').dataset.status !== 'playing'", timeout=SHOWN_WITHIN * 1000
            )
        # Every page ends on the same board and result.
        final = [page.evaluate(CELLS) for page in (alice, bob, carol)]
        assert final[0] == final[1] == final[2]
        result = alice.inner_text("#result")
        # The same result for everyone, each player told first whether it is theirs.
        shared = carol.inner_text("#result")
        assert (
            ("wins" in shared or "draw" in shared)
            and result.endswith(shared)
            and bob.inner_text("#result").endswith(shared)
        )
        if "wins" in shared:
            assert {result.split(":")[0], bob.inner_text("#result").split(":")[0]} == {"You win", "You lose"}
        # Carol could not move: her page has nothing to send moves with.
        assert carol.get_attribute("#board", "hx-post") is None
        assert not (alice_errors or bob_errors or carol_errors), (alice_errors, bob_errors, carol_errors)
        return delays
    finally:
        for context in (alice_context, bob_context, carol_context):
            context.close()


def report(where: str, delays: list[float]) -> None:
    print(
        f"\n{where}: {len(delays)} moves shown on the other player's page after "
        f"median {statistics.median(delays):.2f} s, max {max(delays):.2f} s"
    )


def test_a_game_through_an_invitation_on_two_workers_sharing_one_sqlite_file(browser, tmp_path) -> None:
    env = {"KABOOM_DATABASE": str(tmp_path / "games.sqlite3"), "KABOOM_WORKERS": "2", **SECRET}
    with kaboom_process(**env) as (_, url):
        delays = play_through_an_invitation(browser, url, url)
    report("two workers on SQLite", delays)


def test_a_game_through_an_invitation_on_two_hosts_sharing_one_redis(browser) -> None:
    with redis_server() as redis_url:
        env = {"KABOOM_STORE": redis_url, **SECRET}
        with kaboom_process(**env) as (_, first), kaboom_process(**env) as (_, second):
            delays = play_through_an_invitation(browser, first, second)
    report("two hosts on Redis", delays)


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_the_computer_answers_at_a_human_pace_and_its_moves_show_as_they_happen(
    browser, one_server, level: str
) -> None:
    context, page, errors = open_page(browser, one_server)
    try:
        page.goto("/")
        # The form makes the game (the smallest of its sizes is 16x16); then a small one, quicker to play out.
        page.select_option("select[name=opponent]", "computer")
        page.select_option("select[name=level]", level)
        page.click('button[value="flags msn"]')
        page.wait_for_selector("#board[data-actions]")
        assert "(computer)" in page.inner_text("#topbar")
        made = page.evaluate(
            "fetch('/api/games', {method: 'POST', headers: {'content-type': 'application/json'},"
            " body: JSON.stringify({mode: 'flags', width: 6, height: 6, mines: 9, opponent: 'computer', "
            f"level: '{level}'}})}}).then(r => r.json())"
        )
        page.goto(f"/games/{made['id']}")
        page.wait_for_selector("#board[data-actions]")
        assert "(computer)" in page.inner_text("#topbar")
        answered = 0
        for _ in range(200):
            before = move_at_my_turn(page, "document.getElementById('result').innerText.startsWith('Your turn')")
            if before is None:
                break
            if "computer" in page.inner_text("#result"):
                # The computer's move arrives by itself, through the live updates.
                shows_version(page, before + 2)
                answered += 1
        assert page.get_attribute("#result", "data-status") == "won", "a 6x6 game ends within 36 of the player's moves"
        assert answered > 0
        assert not errors, errors
    finally:
        context.close()


# ----- cruel Flags: the same seats and face, no layout -----------------------------------------------------


def test_cruel_flags_through_an_invitation_on_a_laptop_and_a_phone_in_light_and_dark(browser, one_server) -> None:
    looks = ({**LAPTOP, "color_scheme": "light"}, {**PHONE, "color_scheme": "dark"})
    delays = play_through_an_invitation(browser, one_server, one_server, mode="cruel-flags", looks=looks)
    report("cruel Flags, one worker", delays)


@pytest.mark.parametrize(
    ("look", "opponent"),
    [({**PHONE, "color_scheme": "dark"}, "screen"), ({**LAPTOP, "color_scheme": "dark"}, "computer")],
    ids=["hot-seat-phone-dark", "computer-laptop-dark"],
)
def test_cruel_flags_is_chosen_on_the_form_and_played_to_the_end(
    browser, one_server, look: dict, opponent: str
) -> None:
    """The form's Luck choice makes a cruel Flags game; then a small one is played out on one screen, or against
    the hard computer, every move a tap or a click on a covered cell read from the page."""
    context, page, errors = open_page(browser, one_server, **look)
    try:
        page.goto("/")
        page.select_option("select[name=variant-flags]", "cruel-flags")
        page.select_option("select[name=opponent]", opponent)
        if opponent == "computer":
            page.select_option("select[name=level]", "hard")
        press(page, 'button[value="flags msn"]')
        page.wait_for_selector("#board[data-actions]")
        assert "A proven mine is a point" in page.content()  # the rules of this game, beside the board
        level = "'hard'" if opponent == "computer" else "null"
        made = page.evaluate(
            "fetch('/api/games', {method: 'POST', headers: {'content-type': 'application/json'},"
            " body: JSON.stringify({mode: 'cruel-flags', width: 6, height: 6, mines: 9, "
            f"opponent: '{opponent}', level: {level}}})}}).then(r => r.json())"
        )
        assert made.get("mode") == "cruel-flags", made
        page.goto(f"/games/{made['id']}")
        page.wait_for_selector("#board[data-actions]")
        moves = answered = 0
        for _ in range(100):
            before = move_at_my_turn(page, "!document.getElementById('result').innerText.includes('computer')")
            if before is None:
                break
            moves += 1
            if "computer" in page.inner_text("#result"):
                shows_version(page, before + 2)  # the computer's move comes by the live updates
                answered += 1
        assert page.get_attribute("#result", "data-status") == "won", "a 6x6 game ends within 36 moves"
        assert moves > 0 and (answered > 0 or opponent != "computer")
        result = page.inner_text("#result")
        assert "wins" in result or "draw" in result
        # The end shows a layout that fits the numbers: nine mines, found or shown.
        board = page.evaluate("fetch(location.pathname.replace('/games/', '/api/games/')).then(r => r.json())")
        assert sum(row.count("*") for row in board["board"]) == 9, board["board"]
        assert not errors, errors
    finally:
        context.close()
