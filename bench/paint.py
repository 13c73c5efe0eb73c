"""Paint benchmark: from a click on a board cell to the frame that shows the answer, in a real Chromium.

Starts `kaboom serve` as its own process on a fresh SQLite file (what a self-hoster runs), opens
Debian's Chromium through Playwright at a laptop's size (1366x650, mouse) and a phone's (390x844,
touch, device scale 2), and plays Expert and 100x100/2000 games with a seeded, solver-guided player
(solver.strategy.progress_cell: every click is a real move). Each click is a real input event at the
cell's centre (page.mouse.click, or a touchscreen tap), after scrolling the cell into the board's view.

Timed inside the page, on the page's clock (performance.now):
  click→paint   the click event's timeStamp to the end of the first frame rendered after the clicked
                cell lost its covered class (the page has htmx settle at once; with a settle delay,
                swapped cells would keep their old classes that long); "end of frame" is a
                MessageChannel message posted from requestAnimationFrame
  input         click → htmx:beforeRequest (kaboom.js and htmx's queue)
  round trip    the move request's Resource Timing, startTime → responseEnd
  server        the answer's Server-Timing header (app;dur=…)
  after resp.   responseEnd → paint: swap, settle, style, layout, paint
  swap          htmx:beforeSwap → htmx:afterSwap (parsing and inserting the fragment)
and, from the DevTools protocol (Performance.getMetrics before and after each click), the main thread's
style recalculation, layout, script and other task time per move; each board's first page load
(Navigation Timing: the response's end, DOMContentLoaded, load, the first contentful paint). Also the bytes of the
game pages, of each move's answer and of the static files, raw, as transferred, and gzipped here (level 6) for
comparison.

Every move is checked: one answer, to a reveal of that very cell (a press that landed on a neighbour
shows here even when its flood opened ours), the page's #version went up, the clicked cell changed on
the page and is uncovered on the server, the game is playing or over. A failed check is listed and the
exit status is 1. The load average is printed at the start and the end (the end's includes this run's
own browser and server). Run by hand (under a minute while the pages are fast):

    .venv/bin/python bench/paint.py
    .venv/bin/python bench/paint.py --sizes expert --viewports phone --moves 80
    .venv/bin/python bench/paint.py --mode classic --seed 7

The server deals from its own randomness: only the player's choices follow --seed.
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import parse_qs

import httpx
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402
from web import numbers_shown  # noqa: E402

from solver import Analyzer, Position  # noqa: E402
from solver.strategy import progress_cell  # noqa: E402
from tests.live import free_port, wait_until  # noqa: E402
from tests.test_browser import launch_chromium  # noqa: E402

SIZES = {"expert": (30, 16, 99), "100x100": (100, 100, 2000)}
VIEWPORTS = {
    "laptop": {"viewport": {"width": 1366, "height": 650}},
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 2,
    },
}
CDP_KEYS = (
    "RecalcStyleDuration",
    "LayoutDuration",
    "ScriptDuration",
    "TaskDuration",
    "DevToolsCommandDuration",
    "RecalcStyleCount",
    "LayoutCount",
)

# Installed before the page's own scripts. One move is armed at a time; its promise settles at the
# frame after the clicked cell loses `u`, or with an error after 10 s (no request, a cell that never changed).
# The round trip comes from Resource Timing, not htmx:afterRequest: htmx 2 fires that after it has
# swapped the answer in, so it would count the swap as network time.
PROBE = """
window.__paint = (() => {
  let armed = null, latest = null;
  const now = () => performance.now();
  const onBoard = (event) => event.target && event.target.closest && event.target.closest('#board');
  document.addEventListener('pointerdown', (e) => {
    if (armed && armed.press === null && onBoard(e)) armed.press = e.timeStamp;
  }, true);
  document.addEventListener('click', (e) => {
    if (armed && armed.click === null && onBoard(e)) armed.click = e.timeStamp;
  }, true);
  const marks = [['htmx:beforeRequest', 'send'], ['htmx:beforeSwap', 'response'], ['htmx:afterSwap', 'swapped']];
  for (const [type, key] of marks) {
    document.addEventListener(type, () => { if (armed && armed[key] === null) armed[key] = now(); }, true);
  }
  return {
    arm(id) {
      performance.clearResourceTimings();
      const record = armed = latest = {
        id, press: null, click: null, send: null, response: null, swapped: null,
        changed: null, paint: null, error: null,
      };
      const deadline = now() + 10000;
      record.done = new Promise((resolve) => {
        const finish = () => {
          armed = null;
          const timing = performance.getEntriesByType('resource').find((entry) => entry.name.endsWith('/moves'));
          const cell = document.getElementById(id);
          resolve({
            ...record, done: undefined,
            fetchStart: timing ? timing.startTime : null, responseEnd: timing ? timing.responseEnd : null,
            version: Number(document.getElementById('version').value), className: cell ? cell.className : null,
          });
        };
        // Polled in requestAnimationFrame: the frame whose rAF first sees the change is the one that paints it.
        const poll = () => {
          const cell = document.getElementById(id);
          if (record.click !== null && cell && !cell.classList.contains('u')) {
            record.changed = now();
            const channel = new MessageChannel();
            channel.port1.onmessage = () => { record.paint = now(); finish(); };
            channel.port2.postMessage(null);
          } else if (now() > deadline) {
            record.error = record.send === null ? 'no request was sent' : 'the clicked cell did not change';
            finish();
          } else {
            requestAnimationFrame(poll);
          }
        };
        requestAnimationFrame(poll);
      });
    },
    // The answer may be painted before Python asks: the last move's promise is kept.
    done() { return latest ? latest.done : Promise.resolve({error: 'not armed', className: null, version: null}); },
  };
})();
"""

# The cell brought into the board's view (only when it is not wholly visible), two frames to let the
# scroll paint outside the measurement, then its centre, and whether a press there lands on it.
PREPARE = """async (id) => {
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  while (document.querySelector('.htmx-settling, .htmx-request')) await frame();
  const cell = document.getElementById(id), board = document.getElementById('board');
  const visible = () => {
    const c = cell.getBoundingClientRect(), b = board.getBoundingClientRect();
    const left = b.left + board.clientLeft, top = b.top + board.clientTop, root = document.documentElement;
    return c.left >= left && c.right <= left + board.clientWidth && c.top >= top && c.bottom <= top + board.clientHeight
      && c.left >= 0 && c.top >= 0 && c.right <= root.clientWidth && c.bottom <= root.clientHeight;
  };
  const scrolled = !visible();
  if (scrolled) cell.scrollIntoView({block: 'center', inline: 'center'});
  await frame(); await frame();
  const r = cell.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  return {x, y, scrolled, onCell: hit === cell, hit: hit ? (hit.id || hit.tagName) : null,
          version: Number(document.getElementById('version').value), className: cell.className};
}"""


def start_server(data: Path) -> tuple[subprocess.Popen, str, Path]:
    """`kaboom serve` as a self-hoster runs it; its log goes to a file, where a pipe nobody reads could fill and
    stall it."""
    port, log = free_port(), data / "server.log"
    env = {
        **os.environ,
        "KABOOM_DATABASE": str(data / "bench.sqlite3"),
        "KABOOM_HOST": "127.0.0.1",
        "KABOOM_PORT": str(port),
        "KABOOM_CREATE_LIMIT": "10000",
    }
    with log.open("w") as sink:
        server = subprocess.Popen(
            [str(Path(sys.executable).with_name("kaboom")), "serve"], env=env, stdout=subprocess.DEVNULL, stderr=sink
        )
    url = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        if server.poll() is not None:
            raise SystemExit(f"kaboom serve exited:\n{log.read_text()}")
        try:
            return httpx.get(f"{url}/healthz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    wait_until(answers, 30, "kaboom serve did not answer /healthz", every=0.1)
    return server, url, log


def server_ms(headers: dict) -> float:
    timing = headers.get("server-timing", "")
    return float(timing.split("dur=")[1].split(",")[0]) if "dur=" in timing else float("nan")


def sizes_of(response) -> dict:
    """One response's body: raw, as transferred (the network's count, so a compressed answer shows), gzipped here."""
    headers = response.all_headers()
    body = response.body()
    return {
        "raw": len(body),
        "sent": response.request.sizes()["responseBodySize"],
        "gzip6": len(gzip.compress(body, compresslevel=6)),
        "length": headers.get("content-length", "–"),
        "encoding": headers.get("content-encoding", "none"),
    }


def sent_move(response) -> tuple:
    """What the page asked for: a click that landed on another cell shows here even when its flood opened ours."""
    form = parse_qs(response.request.post_data or "")
    return form.get("action", ["?"])[0], int(form.get("x", ["-1"])[0]), int(form.get("y", ["-1"])[0])


def cdp_metrics(cdp) -> dict[str, float]:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] in CDP_KEYS}


# The first page of a board, on the page's clock from the navigation's start: once its frames are painted.
LOAD_TIMES = """new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const paint = performance.getEntriesByName('first-contentful-paint')[0];
  done([nav.responseEnd, nav.domContentLoadedEventEnd, nav.loadEventEnd, paint ? paint.startTime : NaN]);
})))"""


class Run:
    """One board at one viewport: its games, its moves' timings, its first page load, and the failures."""

    load: list[float] | None = None

    def __init__(self, board: str, viewport: str):
        self.board, self.viewport = board, viewport
        self.timings: dict[str, list[float]] = {
            k: [] for k in ("paint", "press", "input", "trip", "server", "after", "swap")
        }
        self.cdp: list[dict[str, float]] = []
        self.answers: list[dict] = []
        self.games: list[str] = []  # each game's end: playing (cut at --moves), won or lost
        self.errors: list[str] = []


def play(browser, url: str, run: Run, args, rng: random.Random, bytes_rows: list) -> None:
    width, height, mines = SIZES[run.board]
    touch = VIEWPORTS[run.viewport].get("has_touch", False)
    # bypass_csp: Playwright's evaluate helpers run strings, which the page's policy forbids.
    context = browser.new_context(base_url=url, bypass_csp=True, **VIEWPORTS[run.viewport])
    context.add_init_script(PROBE)
    page = context.new_page()
    statics: dict[str, object] = {}
    page.on("response", lambda r: statics.setdefault(r.url.rsplit("/", 1)[-1], r) if "/static/" in r.url else None)
    answers: list = []
    page.on(
        "response", lambda r: answers.append(r) if r.url.endswith("/moves") and r.request.method == "POST" else None
    )
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    moves = 0
    try:
        while moves < args.moves:
            # The JSON API and the page share the context's cookie: the game is this browser's player's.
            created = page.request.post(
                "/api/games", data={"width": width, "height": height, "mines": mines, "mode": args.mode}
            )
            if created.status != 201:
                raise SystemExit(f"POST /api/games answered {created.status}: {created.text()}")
            game_id = created.json()["id"]
            loaded = page.goto(f"/games/{game_id}")
            page.wait_for_function("typeof htmx !== 'undefined' && document.getElementById('grid') !== null")
            if not run.games:
                run.load = page.evaluate(LOAD_TIMES)
            if not run.games and not any(row[0] == f"page {run.board}" for row in bytes_rows):
                bytes_rows.append((f"page {run.board}", sizes_of(loaded)))
                if not any(row[0].startswith("static") for row in bytes_rows):
                    # Every static file the page loaded: the script is an entry module and its modules now.
                    bytes_rows.extend((f"static {name}", sizes_of(statics[name])) for name in sorted(statics))
            analyzer = Analyzer(Position.empty(width, height, mines))
            board = ["." * width] * height
            status = "playing"
            while status == "playing" and moves < args.moves:
                x, y = progress_cell(analyzer, rng)
                where = f"{run.board} {run.viewport} game {len(run.games) + 1} move {moves + 1} at ({x}, {y})"
                moves += 1
                ready = page.evaluate(PREPARE, f"c-{x}-{y}")
                if "u" not in ready["className"].split():
                    run.errors.append(
                        f"{where}: the page shows the cell uncovered before the click (class {ready['className']!r})"
                    )
                    break
                if not ready["onCell"]:
                    run.errors.append(
                        f"{where}: a press at the cell's centre would land on {ready['hit']}, not on the cell"
                    )
                    break
                answers.clear()
                page.evaluate("id => window.__paint.arm(id)", f"c-{x}-{y}")
                before = cdp_metrics(cdp)
                if touch:
                    page.touchscreen.tap(ready["x"], ready["y"])
                else:
                    page.mouse.click(ready["x"], ready["y"])
                probe = page.evaluate("window.__paint.done()")
                after = cdp_metrics(cdp)
                for _ in range(100):  # the response event may trail the page's own promise
                    if answers or probe["error"]:
                        break
                    page.wait_for_timeout(10)
                game = page.request.get(f"/api/games/{game_id}").json()
                status = game["status"]
                problem = probe["error"] or (
                    f"{len(answers)} answers to one click"
                    if len(answers) != 1
                    else f"the page sent {sent} for this click"
                    if (sent := sent_move(answers[0])) != ("reveal", x, y)
                    else f"the answer was {answers[0].status}"
                    if answers[0].status != 200
                    else f"#version went from {ready['version']} to {probe['version']}"
                    if probe["version"] <= ready["version"]
                    else f"the game is {status!r}"
                    if status not in ("playing", "won", "lost")
                    else "the server shows the cell covered"
                    if game["board"][y][x] in ".F"
                    else None
                )
                if problem:
                    run.errors.append(f"{where}: {problem} (cell now {probe['className']!r})")
                    break
                t = run.timings
                t["paint"].append(probe["paint"] - probe["click"])
                t["press"].append(probe["click"] - probe["press"] if probe["press"] is not None else 0.0)
                t["input"].append(probe["send"] - probe["click"])
                t["trip"].append(probe["responseEnd"] - probe["fetchStart"] if probe["responseEnd"] else float("nan"))
                t["after"].append(probe["paint"] - (probe["responseEnd"] or probe["response"]))
                t["swap"].append(probe["swapped"] - probe["response"])
                t["server"].append(server_ms(answers[0].all_headers()))
                run.cdp.append({key: after[key] - before[key] for key in CDP_KEYS})
                run.answers.append(sizes_of(answers[0]))
                if status == "playing":
                    analyzer.reveal(numbers_shown(board, game["board"]))
                board = game["board"]
            run.games.append(status)
            if len(run.errors) >= 3:
                break
    finally:
        context.close()


def quantiles(values: list[float]) -> tuple[float, float, float]:
    ordered = sorted(v for v in values if v == v)
    if not ordered:
        return (float("nan"),) * 3
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], ordered[-1]


def median(values: list[float]) -> str:
    return f"{quantiles(values)[0]:.1f}"


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default=",".join(SIZES), help=f"boards, from {', '.join(SIZES)}")
    parser.add_argument("--viewports", default=",".join(VIEWPORTS), help=f"from {', '.join(VIEWPORTS)}")
    parser.add_argument(
        "--moves",
        type=int,
        default=40,
        help="clicks per board and viewport, over as many games as it takes (default 40)",
    )
    parser.add_argument("--mode", default="cruel", choices=("cruel", "classic"))
    parser.add_argument("--seed", type=int, default=1, help="the player's choices")
    args = parser.parse_args()
    console = Console(width=180)
    console.print(f"load average at start: {load()} ({os.cpu_count()} cores)")
    rng = random.Random(args.seed)
    runs: list[Run] = []
    bytes_rows: list = []
    with tempfile.TemporaryDirectory() as data, sync_playwright() as playwright:
        server, url, log = start_server(Path(data))
        try:
            browser = launch_chromium(playwright)
            console.print(
                f"Chromium {browser.version}, kaboom serve at {url}, mode {args.mode}, seed {args.seed}, "
                f"{args.moves} moves per board and viewport"
            )
            with Progress(console=Console(stderr=True), transient=True) as progress:
                task = progress.add_task("boards", total=len(args.sizes.split(",")) * len(args.viewports.split(",")))
                for board in args.sizes.split(","):
                    for viewport in args.viewports.split(","):
                        progress.update(task, description=f"{board} {viewport}")
                        runs.append(Run(board, viewport))
                        play(browser, url, runs[-1], args, rng, bytes_rows)
                        progress.advance(task)
            browser.close()
        finally:
            server.terminate()
            server.wait(10)
            warnings = [line for line in log.read_text().splitlines() if "WARNING" in line or "ERROR" in line]

    table = Table(title="Click to paint, ms (page clock); the other columns are medians")
    for column in (
        "board",
        "viewport",
        "moves",
        "games",
        "click→paint med",
        "p95",
        "max",
        "press→click",
        "input",
        "round trip",
        "server",
        "after resp.",
        "swap",
    ):
        table.add_column(column, justify="left" if column in ("board", "viewport", "games") else "right")
    for run in runs:
        t = run.timings
        games = ", ".join(f"{run.games.count(s)} {s}" for s in ("won", "lost", "playing") if s in run.games)
        table.add_row(
            run.board,
            run.viewport,
            str(len(t["paint"])),
            games,
            *(f"{v:.1f}" for v in quantiles(t["paint"])),
            *(median(t[k]) for k in ("press", "input", "trip", "server", "after", "swap")),
        )
    console.print(table)

    table = Table(title="Main thread per move, ms, mean (DevTools Performance.getMetrics, click to paint)")
    for column in ("board", "viewport", "style", "layout", "script", "other", "task", "style recalcs", "layouts"):
        table.add_column(column, justify="left" if column in ("board", "viewport") else "right")
    for run in runs:
        if not run.cdp:
            continue
        mean = {key: statistics.fmean(m[key] for m in run.cdp) for key in CDP_KEYS}
        style, layout, script = (mean[k] * 1000 for k in ("RecalcStyleDuration", "LayoutDuration", "ScriptDuration"))
        # The protocol's own commands (getMetrics, the probe's evaluate) run on the main thread too: left out of
        # "other".
        task = (mean["TaskDuration"] - mean["DevToolsCommandDuration"]) * 1000
        table.add_row(
            run.board,
            run.viewport,
            f"{style:.1f}",
            f"{layout:.1f}",
            f"{script:.1f}",
            f"{task - style - layout - script:.1f}",
            f"{task:.1f}",
            f"{mean['RecalcStyleCount']:.1f}",
            f"{mean['LayoutCount']:.1f}",
        )
    console.print(table)

    table = Table(title="A board's first page, ms from the navigation's start (Navigation and Paint Timing)")
    for column in ("board", "viewport", "response end", "DOMContentLoaded", "load", "first contentful paint"):
        table.add_column(column, justify="left" if column in ("board", "viewport") else "right")
    for run in runs:
        if run.load:
            table.add_row(run.board, run.viewport, *(f"{value:.0f}" for value in run.load))
    console.print(table)

    table = Table(title="Bytes: raw body, as transferred, gzipped here at level 6")
    for column in ("what", "raw", "transferred", "Content-Length", "gzip -6", "Content-Encoding"):
        table.add_column(column, justify="left" if column in ("what", "Content-Encoding") else "right")
    for what, size in bytes_rows:
        table.add_row(
            what, f"{size['raw']:,}", f"{size['sent']:,}", str(size["length"]), f"{size['gzip6']:,}", size["encoding"]
        )
    console.print(table)

    table = Table(title="Bytes of each move's answer: median / p95 / max")
    for column in ("board", "answers", "raw", "transferred", "gzip -6", "Content-Encoding"):
        table.add_column(column, justify="left" if column in ("board", "Content-Encoding") else "right")
    for board in dict.fromkeys(run.board for run in runs):
        answers = [a for run in runs if run.board == board for a in run.answers]
        if answers:
            spans = (
                " / ".join(f"{v:,.0f}" for v in quantiles([a[key] for a in answers]))
                for key in ("raw", "sent", "gzip6")
            )
            table.add_row(board, str(len(answers)), *spans, ", ".join(sorted({a["encoding"] for a in answers})))
    console.print(table)

    errors = [error for run in runs for error in run.errors]
    for line in warnings[:20]:
        console.print(f"server: {line}")
    for error in errors:
        console.print(f"[red]FAILED[/red] {error}")
    console.print(f"load average at end: {load()}")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
