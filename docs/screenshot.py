"""Screenshots of every preset in play, at a laptop's size (1366x650) and a phone's (390x844, touch),
in the light and the dark scheme, in Debian's Chromium; the home page, the rules, the New game menu
mid-game, a win with its figures, a finished game's review, the Flags bomb being aimed, cruel Flags against the
computer, rooms (a co-op room of three, a race's lobby and a race under way), the boards of the day (the
day's page with its ladders, the calendar, a board of the day in play), the player's pages (passkeys and a link
code, progress over time), and the API's pages. The README shows two.

    .venv/bin/python docs/screenshot.py            # all of them, into docs/screenshots/
    .venv/bin/python docs/screenshot.py expert     # one preset, or a scene: help-probabilities, …, daily, api, player
    .venv/bin/python docs/screenshot.py --language ar review rooms daily   # in a language, into screenshots/ar/

Each game is dealt from a fixed seed and played by the cruel-but-fair strategy (solver.strategy),
so the pictures come out the same from one run to the next.
"""

import contextlib
import datetime
import json
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from app.core.game import PRESETS  # noqa: E402
from app.results.daily import DailyBoard, day_of  # noqa: E402
from app.service import Deals  # noqa: E402
from solver import Analyzer  # noqa: E402
from solver.position import Position  # noqa: E402
from tests.clock import FakeClock  # noqa: E402
from tests.live import live_server  # noqa: E402
from tests.test_browser import act, analysis, launch_chromium, next_cell  # noqa: E402
from tests.test_daily import a_mine_of  # noqa: E402
from tests.test_daily_pages import played, win_by_proof  # noqa: E402
from tests.test_first_minutes import blue_behind  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
SIZES = {
    "laptop": {"viewport": {"width": 1366, "height": 650}},
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 2,
    },
}
MOVES = {"small": 2, "beginner": 3, "intermediate": 8, "expert": 14}


def show_me(page) -> None:
    page.click("#show-button")
    page.wait_for_selector("#hint")


def ask_the_bot(page) -> None:
    page.click("#bot-button")
    page.wait_for_selector("#hint.bot")


def bot_playing(page) -> None:
    """Play for me at its slowest pace, pictured just after its third move, while the button says Stop."""
    page.select_option("#bot-pace", "2000")
    act(page, lambda: page.click("#play-button"))
    for _ in range(2):
        act(page, lambda: None)


def open_menu(page) -> None:
    """The New game menu, opened mid-game by a click or a tap."""
    if page.viewport_size["width"] < 600:
        page.tap(".new-game summary")
    else:
        page.click(".new-game summary")
    page.wait_for_selector('button[value="classic expert"]')


def win(page) -> None:
    """Open proven-safe cells until the board is cleared (a no-guess board needs nothing else): the win's figures."""
    for _ in range(200):
        if game_status(page) == "won":
            return
        x, y = next((x, y) for y, row in enumerate(analysis(page)) for x, status in enumerate(row) if status == "s")
        act(page, lambda x=x, y=y: page.eval_on_selector(f"#c-{x}-{y}", "cell => cell.click()"))
    raise AssertionError("the no-guess board was not cleared")


def game_status(page) -> str:
    """The game's status as the API says it: the page's own words are in the page's language."""
    game_id = page.get_attribute("#board", "data-game")
    return page.evaluate(f"fetch('/api/games/{game_id}').then(answer => answer.json()).then(game => game.status)")


def reviewed(page) -> None:
    """A classic game played to its end by proven cells, with one needless risk early on, then its replay
    at that risk with what could be known shown."""
    for moves in range(400):
        if game_status(page) in ("won", "lost"):
            break
        rows = analysis(page)
        safe = [(x, y) for y, row in enumerate(rows) for x, status in enumerate(row) if status == "s"]
        unknown = [(x, y) for y, row in enumerate(rows) for x, status in enumerate(row) if status == "?"]
        x, y = safe[0] if safe and moves != 5 else unknown[len(unknown) // 2]
        act(page, lambda x=x, y=y: page.eval_on_selector(f"#c-{x}-{y}", "cell => cell.click()"))
    game_id = page.get_attribute("#board", "data-game")
    page.goto(f"/games/{game_id}/replay")
    touch = page.viewport_size["width"] < 600
    for target in (".moment a", "#replay-overlay"):
        page.tap(target) if touch else page.click(target)
    page.wait_for_selector("#grid .c.os, #grid .c.ou")  # the overlay drawn, whatever it could prove then


# Pictures of the modes' own controls: (mode, preset, settings ticked before the first click, what is shown after it).
SCENES = {
    "menu": ("cruel", "intermediate", (), open_menu),
    "win": ("classic", "beginner", ("no_guess",), win),
    "help-probabilities": ("help", "intermediate", ("probabilities",), show_me),
    "classic-assist": ("classic", "expert", ("assist_local", "debug_overlay"), show_me),
    "classic-bot": ("classic", "intermediate", (), ask_the_bot),
    "classic-play-for-me": ("classic", "expert", ("probabilities",), bot_playing),
    "review": ("classic", "intermediate", (), reviewed),
}


def play(page, preset: str, size: str, mode: str = "cruel", settings: tuple[str, ...] = (), then=show_me) -> None:
    page.goto("/")
    page.click(f'button[value="{mode} {preset}"]')
    page.wait_for_selector("#grid")
    for name in settings:
        act(page, lambda name=name: page.check(f"input[name={name}]"))
    width, height, _ = PRESETS[preset]
    first = f"#c-{width // 2}-{height // 2}"
    act(page, lambda: page.tap(first) if size == "phone" else page.click(first))
    for _ in range(MOVES[preset] if mode == "cruel" else 0):
        x, y = next_cell(page)
        # Clicked by the page's own handler, wherever the cell is scrolled: the picture is of the position.
        act(page, lambda x=x, y=y: page.eval_on_selector(f"#c-{x}-{y}", "cell => cell.click()"))
    then(page)
    page.evaluate("window.scrollTo(0, 0)")


def middle_covered(page) -> str:
    """The covered cell nearest the board's middle (reading order breaks ties): a deterministic move."""
    return page.evaluate(
        """() => { const board = document.getElementById('board');
        const w = Number(board.dataset.width), h = Number(board.dataset.height);
        let best = null, far = Infinity;
        for (const cell of document.querySelectorAll('#grid .c.u')) {
          const [, x, y] = cell.id.split('-').map(Number);
          const d = Math.abs(x - (w - 1) / 2) + Math.abs(y - (h - 1) / 2);
          if (d < far) { far = d; best = cell.id; }
        }
        return '#' + best; }"""
    )


def flags_move(page) -> None:
    # Not act(): a live page always has a request open (its stream), which act() would wait out.
    # Cells swapped in keep their old class for htmx's settle: the board is read once it has settled.
    page.wait_for_function("!document.querySelector('.htmx-settling')")
    before = int(page.input_value("#version"))
    page.eval_on_selector(middle_covered(page), "cell => cell.click()")
    page.wait_for_function(
        f"Number(document.getElementById('version').value) > {before} && !document.querySelector('.htmx-settling')"
    )


def flags_pictures(browser, url: str, size: str, scheme: str, options: dict, deals: Deals) -> None:
    """Flags through an invitation, as Blue (with the link) and as Red see it after a few moves each;
    and a game against the computer with the practice overlay on."""
    contexts = [browser.new_context(base_url=url, color_scheme=scheme, bypass_csp=True, **options) for _ in range(2)]
    blue, red = (context.new_page() for context in contexts)
    deals.reseed(9)
    blue.goto("/")
    blue.select_option("select[name=opponent]", "invite")
    blue.click('button[value="flags msn"]')
    red.goto(blue.input_value("#invite-link"))
    red.wait_for_selector("form.join button")
    red.screenshot(path=str(OUT / f"flags-join-{size}-{scheme}.png"))  # the link opens the game; the seat takes a press
    red.click("form.join button")  # Play as Red
    red.wait_for_url(lambda address: "/watch/" not in address)
    red.wait_for_selector("#grid")
    # Blue's page hears that Red sat down; until Red moves, Blue may free the seat.
    blue.wait_for_selector("form.free-seat button", timeout=20_000)
    blue.locator("form.free-seat").scroll_into_view_if_needed()
    blue.screenshot(path=str(OUT / f"flags-seated-{size}-{scheme}.png"))
    for _ in range(16):
        # The other's move reaches a page through its live updates: whichever says "Your turn" first plays.
        mover = None
        for _ in range(600):
            mover = next((page for page in (blue, red) if page.inner_text("#result").startswith("Your turn")), None)
            if mover is not None:
                break
            blue.wait_for_timeout(50)
        assert mover is not None, "neither page said 'Your turn' within 30 s"
        flags_move(mover)
    for page in (blue, red):
        page.wait_for_function("document.getElementById('panel').innerText.includes('is connected')")
        page.evaluate("window.scrollTo(0, 0)")
    blue.screenshot(path=str(OUT / f"flags-blue-{size}-{scheme}.png"))
    red.screenshot(path=str(OUT / f"flags-red-{size}-{scheme}.png"))
    deals.reseed(9)
    blue.goto("/")
    blue.select_option("select[name=opponent]", "computer")
    blue.select_option("select[name=level]", "hard")
    blue.click('button[value="flags msn"]')
    act(blue, lambda: blue.check("input[name=probabilities]"))
    for _ in range(4):
        blue.wait_for_function("document.getElementById('result').innerText.startsWith('Your turn')")
        flags_move(blue)
    blue.wait_for_function("document.getElementById('result').innerText.startsWith('Your turn')")
    blue.evaluate("window.scrollTo(0, 0)")
    blue.screenshot(path=str(OUT / f"flags-computer-{size}-{scheme}.png"))
    for context in contexts:
        context.close()


def cruel_flags_pictures(browser, url: str, size: str, scheme: str, options: dict, deals: Deals) -> None:
    """Cruel Flags against the hard computer after a few moves each, chosen by the form's Luck; and its rules."""
    context = browser.new_context(base_url=url, color_scheme=scheme, bypass_csp=True, **options)
    page = context.new_page()
    deals.reseed(9)
    page.goto("/")
    page.select_option("select[name=variant-flags]", "cruel-flags")
    page.select_option("select[name=opponent]", "computer")
    page.select_option("select[name=level]", "hard")
    page.click('button[value="flags msn"]')
    for _ in range(6):
        page.wait_for_function("document.getElementById('result').innerText.startsWith('Your turn')")
        flags_move(page)
    page.wait_for_function("document.getElementById('result').innerText.startsWith('Your turn')")
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(OUT / f"cruel-flags-computer-{size}-{scheme}.png"))
    page.goto("/rules#cruel-flags")
    page.screenshot(path=str(OUT / f"cruel-flags-rules-{size}-{scheme}.png"))
    context.close()


def live_click(page, x: int, y: int) -> int:
    """A click on a live page's cell, once its answer is on the page: the game's version after it."""
    page.wait_for_function("!document.querySelector('.htmx-settling')")
    before = int(page.input_value("#version"))
    page.eval_on_selector(f"#c-{x}-{y}", "cell => cell.click()")
    page.wait_for_function(
        f"Number(document.getElementById('version').value) > {before} && !document.querySelector('.htmx-settling')"
    )
    return int(page.input_value("#version"))


def caught_up(pages, version: int) -> None:
    """Every page shows the game at `version` or later: the move reached them through their live updates."""
    for page in pages:
        page.wait_for_function(f"Number(document.getElementById('version').value) >= {version}", timeout=20_000)


def proven_safe(page) -> tuple[int, int]:
    """A cell the numbers on the page's board prove safe, worked out here (a race answers no analysis)."""
    game_id = page.get_attribute("#board", "data-game")
    game = page.evaluate(f"fetch('/api/games/{game_id}').then(r => r.json())")
    analyzer = Analyzer(Position(game["width"], game["height"], game["mines"], tuple(game["board"])))
    return min(analyzer.safe_cells(), key=lambda cell: (cell[1], cell[0]))


def new_room(page, kind: str, name: str, button: str) -> str:
    """A room made from the New game form's Who plays row: its invitation link."""
    page.goto("/")
    page.select_option("select[name=room]", kind)
    page.fill("input[name=name]", name)
    page.click(f'button[value="{button}"]')
    page.wait_for_selector("#room-link")
    return page.input_value("#room-link")


def join_room(page, link: str, name: str) -> None:
    page.goto(link)
    page.fill(".room-join input[name=name]", name)
    page.click(".room-join button")
    page.wait_for_selector("#room")


def room_pictures(browser, url: str, size: str, scheme: str, options: dict, deals: Deals) -> None:
    """A co-op room of three on Intermediate after a few moves each, as its maker sees it; a race's lobby; and
    a race under way, as a racer sees it."""
    contexts = [browser.new_context(base_url=url, color_scheme=scheme, bypass_csp=True, **options) for _ in range(3)]
    ann, bob, cy = pages = [context.new_page() for context in contexts]
    deals.reseed(9)
    link = new_room(ann, "coop", "Ann", "classic intermediate")
    join_room(bob, link, "Bob")
    join_room(cy, link, "Cy")
    caught_up(pages, live_click(ann, 8, 8))
    for mover in (bob, cy, ann, bob, cy):
        caught_up(pages, live_click(mover, *proven_safe(mover)))
    for page in pages:
        page.wait_for_function("document.querySelectorAll('#room .member.here').length === 3", timeout=20_000)
        page.evaluate("window.scrollTo(0, 0)")
    ann.screenshot(path=str(OUT / f"coop-{size}-{scheme}.png"))
    deals.reseed(9)
    link = new_room(ann, "race", "Ann", "classic beginner")
    join_room(bob, link, "Bob")
    join_room(cy, link, "Cy")
    ann.wait_for_function("document.querySelectorAll('#room .member').length === 3", timeout=20_000)
    ann.screenshot(path=str(OUT / f"race-lobby-{size}-{scheme}.png"))
    ann.click(".room-start button")
    for page in pages:
        page.wait_for_selector("#grid .c.start", timeout=20_000)
        page.wait_for_function("!document.querySelector('[data-countdown]')", timeout=20_000)
    start = ann.get_attribute("#grid .c.start", "id").split("-")
    for racer, moves in ((ann, 6), (bob, 3), (cy, 1)):
        live_click(racer, int(start[1]), int(start[2]))
        for _ in range(moves):
            live_click(racer, *proven_safe(racer))
    # Every racer's first click reached Bob's scoreboard: nobody is at 0 %.
    bob.wait_for_function(
        "document.querySelectorAll('.scoreboard .progress').length === 3"
        " && !document.querySelector('.scoreboard .progress[aria-label^=\"0 %\"]')",
        timeout=20_000,
    )
    bob.evaluate("window.scrollTo(0, 0)")
    bob.screenshot(path=str(OUT / f"race-{size}-{scheme}.png"), full_page=size == "phone")
    for context in contexts:
        context.close()


def bomb_aimed(page, database: Path, size: str) -> None:
    """Flags on one screen, Blue behind and aiming the bomb: its square outlined where it would fall."""
    blue_behind(page, database)
    if size == "phone":
        page.tap("#bomb-mode")
        page.tap("#c-6-2")
    else:
        page.click("#bomb-mode")
        page.hover("#c-6-2")
    page.wait_for_selector("#grid .c.aim")


def daily_server_with_ladders(stack) -> tuple[str, list[dict]]:
    """A server whose clock stands on a day of boards, with a few players on the day's ladders: clean wins, one
    helped by a hint, a loss; the pictured player has won the cruel board on that day and the two before, and
    has the no-guess board in play. Its URL, and the pictured player's cookies."""
    clock = FakeClock(datetime.datetime(2026, 11, 26, 9, tzinfo=datetime.UTC).timestamp())
    url = stack.enter_context(
        live_server(Path(stack.enter_context(tempfile.TemporaryDirectory())) / "daily.sqlite3", clock=clock)
    )

    def player(name: str) -> httpx.Client:
        client = stack.enter_context(httpx.Client(base_url=url, timeout=60))
        assert client.put("/api/name", json={"name": name}).status_code == 200
        return client

    you = player("Zoë")
    clock.advance(-2 * 86400)
    for _ in range(2):
        win_by_proof(you, clock, played(you, f"{day_of(clock())}/cruel"))
        clock.advance(86400 - 600)
    today = day_of(clock())
    for name, pace, aid in (("Ada", 0.8, None), ("Grace", 0.7, "hint"), ("Edsger", 1.15, None), ("Zoë", 0.95, None)):
        someone = you if name == "Zoë" else player(name)
        game_id = played(someone, f"{today}/cruel")
        if aid == "hint":
            someone.post(f"/api/games/{game_id}/hint")
        clock.advance(30)
        win_by_proof(someone, clock, game_id, pace)
    loser = player("李小龍")
    game_id = played(loser, f"{today}/classic")
    start = loser.get(f"/api/games/{game_id}").json()["start"]
    loser.post(f"/api/games/{game_id}/moves", json={"action": "reveal", "x": start[0], "y": start[1]})
    mine = a_mine_of(DailyBoard(today, "classic"), clock)
    loser.post(f"/api/games/{game_id}/moves", json={"action": "reveal", "x": mine[0], "y": mine[1]})
    game_id = played(you, f"{today}/classic")
    start = you.get(f"/api/games/{game_id}").json()["start"]
    you.post(f"/api/games/{game_id}/moves", json={"action": "reveal", "x": start[0], "y": start[1]})
    host = url.split("//", 1)[1].split(":", 1)[0]
    cookies = [{"name": cookie.name, "value": cookie.value, "domain": host, "path": "/"} for cookie in you.cookies.jar]
    return url, cookies


def daily_pictures(browser, url: str, cookies: list[dict], size: str, scheme: str, options: dict) -> None:
    """The day's boards with their ladders, the calendar, and a board of the day in play, as the pictured player
    sees them."""
    context = browser.new_context(base_url=url, color_scheme=scheme, bypass_csp=True, **options)
    context.add_cookies(cookies)
    page = context.new_page()
    page.goto("/daily")
    page.screenshot(path=str(OUT / f"daily-{size}-{scheme}.png"), full_page=size == "phone")
    page.goto("/daily#cruel")
    page.screenshot(path=str(OUT / f"daily-ladder-{size}-{scheme}.png"))
    page.goto("/daily/history")
    page.screenshot(path=str(OUT / f"daily-calendar-{size}-{scheme}.png"))
    page.goto("/daily")
    page.click("#classic .daily-play a")
    page.wait_for_selector("#grid")
    page.screenshot(path=str(OUT / f"daily-game-{size}-{scheme}.png"))
    context.close()


# The moment the progress pictures are taken at, so that they come out the same from one run to the next.
PICTURED_AT = datetime.datetime(2026, 11, 26, 12, tzinfo=datetime.UTC).timestamp()


def player_server(stack) -> tuple[str, Path]:
    """A server of its own for the player's pages, on a clock stopped at PICTURED_AT, with room for many passkeys
    and link codes from one address: its address as a host name (browsers make passkeys for names), its file."""
    database = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "games.sqlite3"
    clock = FakeClock(PICTURED_AT)
    url = stack.enter_context(live_server(database, clock=clock, player_limit=1000, sign_in_limit=1000))
    return url.replace("127.0.0.1", "localhost"), database


def a_player_of_ten_weeks(url: str, database: Path, page, name: str) -> None:
    """The page's player with ten weeks of results in three modes and sizes, boards of the day won and lost, a
    name, two passkeys (one used to sign in) and a link code shown: every part of the player's pages drawn."""
    from app.service.kept import KEPT
    from app.store import SQLiteStore
    from tests.authenticator import SoftAuthenticator

    page.goto("/")
    page.request.put("/api/name", data={"name": name})
    for name in ("Laptop", "Phone"):
        authenticator = SoftAuthenticator(url)
        options = page.request.post("/api/player/passkeys/options").json()
        page.request.post("/api/player/passkeys", data={"credential": authenticator.make(options), "name": name})
    options = page.request.post("/api/player/sign-in/options").json()
    page.request.post("/api/player/sign-in", data={"credential": authenticator.use(options)})
    page.request.post("/player/link-codes", max_redirects=0)
    player = page.request.get("/api/player/export").json()["player"]
    chance = random.Random(4)
    store = SQLiteStore(database, kept=KEPT)
    for number in range(160):
        mode, (width, height, mines) = chance.choice(
            [("classic", (9, 9, 10)), ("classic", (16, 16, 40)), ("cruel", (16, 16, 40))]
        )
        won = chance.random() < 0.6
        bbbv = chance.randint(20, 40) if mode == "classic" and won else None
        result = {"mode": mode, "width": width, "height": height, "mines": mines, "won": won}
        result.update(
            seconds=chance.uniform(8, 40) if mines == 10 else chance.uniform(40, 160),
            finished_at=PICTURED_AT - chance.uniform(0, 70 * 86400),
            deaths=0,
            hints=0,
            bbbv=bbbv,
            clicks=bbbv,
            kind="",
            accuracy=chance.uniform(0.6, 1.0),
        )
        store.record_result(player, f"pictured-{number}", result)
    today = datetime.datetime.fromtimestamp(PICTURED_AT, datetime.UTC).date()
    for back in range(50):
        if chance.random() < 0.7:
            won = chance.random() < 0.7
            entry = {"won": won, "clean": won, "aids": [], "deaths": 0, "seconds": 100.0, "bbbv": None}
            entry.update(finished_at=PICTURED_AT - back * 86400, bbbv_per_second=None, accuracy=None)
            entry.update(game_id=f"day{back}", replay=None)
            key = f"{(today - datetime.timedelta(days=back)).isoformat()}/cruel"
            store.enter_ladder(key, player, 0 if won else 2, 100_000, json.dumps(entry))
    store.close()


def player_pictures(browser, url: str, database: Path, size: str, scheme: str, options: dict) -> None:
    """The player page (passkeys, a link code with its QR code, the data) and the progress page's charts."""
    context = browser.new_context(base_url=url, color_scheme=scheme, bypass_csp=True, **options)
    page = context.new_page()
    # A name's look is one player's: each picture's player has their own.
    name = {"laptop": {"light": "Zoë", "dark": "Ada"}, "phone": {"light": "Lin", "dark": "Mia"}}[size][scheme]
    a_player_of_ten_weeks(url, database, page, name)
    page.goto("/player")
    page.screenshot(path=str(OUT / f"player-{size}-{scheme}.png"), full_page=size == "phone")
    page.goto("/progress")
    page.screenshot(path=str(OUT / f"progress-{size}-{scheme}.png"))
    context.close()


def main(presets: list[str], language: str | None = None) -> None:
    """`language`: the browser's (its Accept-Language and locale), each picture in screenshots/<language>/; the
    home page and the rules are pictured with whatever else is asked."""
    global OUT
    if language:
        OUT = OUT / language
    OUT.mkdir(exist_ok=True)
    deals = Deals(seed=9)
    with (
        tempfile.TemporaryDirectory() as data,
        live_server(
            database := Path(data) / "games.sqlite3",
            deals=deals,
            create_limit=1000,
            computer_pause=0.3,
            room_limit=1000,
            rooms_per_player=1000,
            race_countdown=2,
        ) as url,
        sync_playwright() as playwright,
        contextlib.ExitStack() as stack,
    ):
        browser = launch_chromium(playwright)
        daily = daily_server_with_ladders(stack) if "daily" in presets else None
        players = player_server(stack) if "player" in presets else None
        for size, options in SIZES.items():
            if language:
                options = {**options, "locale": language, "extra_http_headers": {"Accept-Language": language}}
            for scheme in ("light", "dark"):
                # bypass_csp: Playwright's waiting helpers evaluate strings, which the page's policy forbids.
                context = browser.new_context(base_url=url, color_scheme=scheme, bypass_csp=True, **options)
                page = context.new_page()
                scenes_apart = ("flags", "cruel-flags", "rooms", "daily", "api", "player")
                for name in (name for name in presets if name not in scenes_apart):
                    deals.reseed(9)
                    if name in SCENES:
                        mode, preset, settings, then = SCENES[name]
                        play(page, preset, size, mode, settings, then)
                    else:
                        play(page, name, size)
                    page.screenshot(path=str(OUT / f"{name}-{size}-{scheme}.png"))
                    if page.locator("#play-button[aria-pressed=true]").count():
                        page.click("#play-button")  # stopped before the next picture's game
                page.goto("/")
                page.screenshot(path=str(OUT / f"home-{size}-{scheme}.png"))
                page.goto("/rules#classic")
                page.screenshot(path=str(OUT / f"rules-{size}-{scheme}.png"))
                if "api" in presets:
                    page.goto("/docs")
                    page.wait_for_selector(".opblock")
                    page.screenshot(path=str(OUT / f"api-{size}-{scheme}.png"))
                if "flags" in presets:
                    bomb_aimed(page, database, size)
                    page.screenshot(path=str(OUT / f"flags-bomb-{size}-{scheme}.png"))
                context.close()
                if "flags" in presets:
                    flags_pictures(browser, url, size, scheme, options, deals)
                if "cruel-flags" in presets:
                    cruel_flags_pictures(browser, url, size, scheme, options, deals)
                if "rooms" in presets:
                    room_pictures(browser, url, size, scheme, options, deals)
                if daily is not None:
                    daily_pictures(browser, *daily, size, scheme, options)
                if players is not None:
                    player_pictures(browser, *players, size, scheme, options)
        browser.close()


if __name__ == "__main__":
    arguments = sys.argv[1:]
    language = arguments[arguments.index("--language") + 1] if "--language" in arguments else None
    names = [name for name in arguments if name not in ("--language", language)]
    main(names or [*PRESETS, *SCENES, "flags", "cruel-flags", "rooms", "daily", "api", "player"], language)
