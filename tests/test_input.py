"""Strict input, and what every answer carries.

JSON that Python's json module takes but JSON does not, numbers that are not numbers, a settings
form that is not a form; the security headers on every answer, refusals and an unexpected
exception's 500 included; /docs from the vendored Swagger UI. Against a real uvicorn and a real
SQLite file, with bodies sent as raw bytes: httpx's json= would never send NaN or a lone surrogate.
"""

from __future__ import annotations

import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest

from app.service.aids import AidOperations
from app.web.guard import CSP, UNEXPECTED
from tests.live import seconds, wait_until

pytestmark = pytest.mark.usefixtures("seeded")
SERVER_SETTINGS = {"create_limit": 100_000}
ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "static"
JSON = {"content-type": "application/json"}
HTMX = {"HX-Request": "true"}


@pytest.fixture
def client(server):
    with httpx.Client(base_url=server, timeout=seconds(30)) as client:
        yield client


def new_game(client) -> dict:
    response = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10})
    assert response.status_code == 201, response.text
    return response.json()


def stored(client, game_id: str) -> dict:
    """The game as the API shows it, less the clock."""
    game = client.get(f"/api/games/{game_id}").json()
    del game["elapsed"]
    return game


def games_of(client) -> list[str]:
    """The player's games, newest first: a game made by mistake shows."""
    return [game["id"] for game in client.get("/api/games").json()]


def json_routes(game_id: str) -> list[tuple[str, str, dict, str | None]]:
    """Every route that reads a JSON body: method, path, a body it takes, a field it knows."""
    return [
        ("POST", "/api/games", {"width": 9, "height": 9, "mines": 10}, "mines"),
        ("POST", f"/api/games/{game_id}/moves", {"action": "reveal", "x": 4, "y": 4}, "x"),
        ("PATCH", f"/api/games/{game_id}/options", {"undo": False}, "undo"),
        ("POST", f"/api/games/{game_id}/hint", {}, None),
        ("POST", f"/api/games/{game_id}/bot", {}, None),
    ]


# What Python's json module reads and JSON does not, and what the refusal must name.
NOT_JSON = [
    ("NaN", "NaN"),
    ("Infinity", "Infinity"),
    ("-Infinity", "-Infinity"),
    ("1e400", "1e400"),
    ("-1e400", "-1e400"),
    ('"\\ud800"', "\\ud800"),
    ('"\\udfff"', "\\udfff"),
    ('"text\\udbff"', "\\udbff"),
]
SLOT = '"@slot@"'


def placements(body: dict, known: str | None, token: str) -> list[bytes]:
    """`body` with `token` as a known field's value, an unknown field's, nested deep in one,
    and, for text, as a key."""
    shapes = [{"extra": "@slot@"}, {"extra": {"deep": [1, {"deeper": "@slot@"}]}}]
    if known:
        shapes.append({known: "@slot@"})
    texts = [json.dumps({**body, **shape}) for shape in shapes]
    if token.startswith('"'):
        texts.append(json.dumps({**body, "@slot@": 1}))
    return [text.replace(SLOT, token).encode() for text in texts]


def test_what_json_does_not_allow_is_refused_with_422_on_every_json_route(client):
    game = new_game(client)
    before, games = stored(client, game["id"]), games_of(client)
    for method, path, body, known in json_routes(game["id"]):
        for token, named in NOT_JSON:
            for content in placements(body, known, token):
                response = client.request(method, path, content=content, headers=JSON)
                assert response.status_code == 422, (method, path, content, response.text)
                detail = response.json()["detail"]  # the refusal itself is JSON
                assert "not valid JSON" in detail and named in detail, (path, content, detail)
    assert stored(client, game["id"]) == before and games_of(client) == games


def test_malformed_json_is_refused_with_a_sentence_saying_where(client):
    cases = [
        (b'{"width": 9,', "line 1, column 13"),
        (b'{"width": 9, "height": 9,\n "mines": 10,}', "line 2, column 14"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b'{"mines": "\xed\xa0\x80"}', "not UTF-8"),  # a surrogate encoded as UTF-8 is not UTF-8 either
        (b"[" * 8000 + b"]" * 8000, "nested too deeply"),
        (b"[" + b"9" * 400 + b"]", "out of range"),
    ]
    for content, named in cases:
        response = client.post("/api/games", content=content, headers=JSON)
        assert response.status_code == 422 and named in response.json()["detail"], (content[:40], response.text)


def test_booleans_floats_and_numeric_strings_are_not_numbers(client):
    game = new_game(client)
    moves, options = f"/api/games/{game['id']}/moves", f"/api/games/{game['id']}/options"
    before, games = stored(client, game["id"]), games_of(client)
    cases = [
        ("POST", "/api/games", {"width": 9, "height": 9, "mines": True}, "mines"),
        ("POST", "/api/games", {"width": 9, "height": 9.0, "mines": 10}, "height"),
        ("POST", "/api/games", {"width": "9", "height": 9, "mines": 10}, "width"),
        ("POST", "/api/games", {"width": 9, "height": 9, "mines": 10, "undo": 0}, "undo"),
        ("POST", moves, {"action": "reveal", "x": True, "y": 0}, "x"),
        ("POST", moves, {"action": "reveal", "x": 4, "y": 4.0}, "y"),
        ("POST", moves, {"action": "reveal", "x": "4", "y": 4}, "x"),
        ("PATCH", options, {"debug_overlay": 1}, "debug_overlay"),
        ("PATCH", options, {"undo": "false"}, "undo"),
    ]
    for method, path, body, field in cases:
        response = client.request(method, path, json=body)
        assert response.status_code == 422, (body, response.text)
        assert ["body", field] in [problem["loc"] for problem in response.json()["detail"]], (body, response.text)
    assert stored(client, game["id"]) == before and games_of(client) == games


def test_a_422_never_echoes_what_json_cannot_carry(client):
    # Without a JSON content type FastAPI takes the body as bytes, and its answer echoes them.
    response = client.post("/api/games", content=b"\xff\xfe not text")
    assert response.status_code == 422
    (problem,) = response.json()["detail"]
    assert problem["loc"] == ["body"] and "input" not in problem


def test_the_settings_form_takes_a_form_and_nothing_else(client):
    game = new_game(client)
    url = f"/games/{game['id']}/options"
    # What the page sends: the ticked boxes as name=on.
    ticked = client.post(url, data={"debug_overlay": "on", "undo": "on"}, headers=HTMX)
    assert ticked.status_code == 200, ticked.text
    before = stored(client, game["id"])
    assert before["options"]["debug_overlay"] and before["options"]["undo"]
    refused = [
        ("a JSON body", {"content": b'{"debug_overlay": true}', "headers": JSON}, "settings form only"),
        ("an empty body", {"content": b""}, "settings form only"),
        ("a multipart body", {"files": {"undo": (None, "on")}}, "settings form only"),
        ("an unknown field", {"data": {"undo": "on", "explode": "on"}}, "explode"),
        ("a value a box never sends", {"data": {"undo": "off"}}, "undo"),
    ]
    for what, request, named in refused:
        for htmx in ({}, HTMX):
            response = client.post(url, **{**request, "headers": {**request.get("headers", {}), **htmx}})
            assert response.status_code == 422 and named in response.text, (what, htmx, response.text)
            assert stored(client, game["id"]) == before, what
    # Every box unticked is an empty form, which the page does send.
    cleared = client.post(url, content=b"", headers={"content-type": "application/x-www-form-urlencoded"})
    assert cleared.status_code == 303
    assert not any(stored(client, game["id"])["options"].values())


def assert_secured(what: str, response: httpx.Response) -> None:
    headers = response.headers
    assert headers.get("x-content-type-options") == "nosniff", what
    assert headers.get("referrer-policy") == "no-referrer", what
    assert headers.get("x-frame-options") == "DENY", what
    assert headers.get("content-security-policy") == CSP, what
    assert headers.get("server-timing", "").startswith("app;dur="), what


def policy(header: str) -> dict[str, list[str]]:
    directives = (part.split() for part in header.split(";") if part.strip())
    return {name: sources for name, *sources in directives}


def test_the_policy_allows_no_inline_script_and_no_eval():
    assert policy(CSP)["script-src"] == ["'self'"]
    assert policy(CSP)["frame-ancestors"] == ["'none'"]


def test_every_kind_of_answer_carries_the_security_headers(client, server):
    game = new_game(client)
    moves, elsewhere = f"/api/games/{game['id']}/moves", {"Origin": "https://elsewhere.example"}

    def streamed():
        for _ in range(20):
            yield b" " * 1024

    answers = [
        ("a page", 200, client.get(f"/games/{game['id']}")),
        ("JSON", 200, client.get(f"/api/games/{game['id']}")),
        ("a static file", 200, client.get("/static/kaboom.css")),
        ("the API docs", 200, client.get("/docs")),
        ("the OpenAPI schema", 200, client.get("/openapi.json")),
        (
            "a redirect",
            303,
            client.post(
                f"/games/{game['id']}/moves", data={"action": "flag", "x": "0", "y": "0"}, follow_redirects=False
            ),
        ),
        ("a missing page", 404, client.get("/no-such-page")),
        ("a missing game", 404, client.get("/api/games/no-such-game")),
        ("a missing static file", 404, client.get("/static/no-such-file.js")),
        ("a wrong method", 405, client.put("/api/games")),
        ("a field that does not fit", 422, client.post("/api/games", json={"width": 1, "height": 9, "mines": 3})),
        ("a refused move", 422, client.post(moves, json={"action": "reveal", "x": 9, "y": 0})),
        ("JSON that is not JSON", 422, client.post("/api/games", content=b'{"width": NaN}', headers=JSON)),
        ("a settings body that is not a form", 422, client.post(f"/games/{game['id']}/options", json={})),
        ("a cross-site request", 403, client.post("/api/games", json={}, headers={"Sec-Fetch-Site": "cross-site"})),
        ("a cross-site form", 403, client.post("/games", data={"preset": "beginner"}, headers=elsewhere)),
        ("a body too large by its length", 413, client.post("/api/games", content=b" " * 20_000, headers=JSON)),
        ("a body too large as it came", 413, client.post("/api/games", content=streamed(), headers=JSON)),
    ]
    for what, status, response in answers:
        assert response.status_code == status, (what, response.text[:200])
        assert_secured(what, response)


def test_an_unexpected_exception_answers_500_with_a_message_and_the_headers(client, monkeypatch):
    game = new_game(client)

    async def broken(*args, **kwargs):
        raise RuntimeError("a fault nobody foresaw")

    monkeypatch.setattr(AidOperations, "hint", broken)
    from_api = client.post(f"/api/games/{game['id']}/hint")
    assert from_api.status_code == 500 and from_api.json() == {"detail": UNEXPECTED, "message": UNEXPECTED}
    from_page = client.post(f"/games/{game['id']}/hint", headers=HTMX)
    assert from_page.status_code == 500 and UNEXPECTED in from_page.text
    assert from_page.headers["content-type"].startswith("text/html")
    for what, response in (("from the API", from_api), ("from the page", from_page)):
        assert "Traceback" not in response.text and "nobody foresaw" not in response.text, what
        assert_secured(f"a 500 {what}", response)
    monkeypatch.undo()
    assert client.post(f"/api/games/{game['id']}/hint").status_code == 200


class Assets(HTMLParser):
    """What a page loads (scripts, stylesheets, images, frames) and whether it has inline script."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []
        self.inline_script = False
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        url = attrs.get("href") if tag == "link" else attrs.get("src") if tag in ("script", "img", "iframe") else None
        if url:
            self.urls.append(url)
        self._in_script = tag == "script"
        if any(name.startswith("on") for name in attrs):
            self.inline_script = True

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.inline_script = True


def test_docs_load_only_same_origin_assets_under_the_page_policy(client):
    docs = client.get("/docs")
    assert docs.status_code == 200 and docs.headers["content-type"].startswith("text/html")
    assets = Assets()
    assets.feed(docs.text)
    assert "/static/swagger-ui/swagger-ui-bundle.js" in assets.urls and not assets.inline_script
    for url in assets.urls:
        assert url.startswith("/") and not url.startswith("//"), url
        assert client.get(url).status_code == 200, url
    # The script that starts Swagger UI names no other site either.
    assert not re.search(r"https?://|['\"]//", (STATIC / "docs.js").read_text())
    assert "'unsafe-inline'" not in policy(docs.headers["content-security-policy"])["script-src"]
    assert client.get("/redoc").status_code == 404
    assert "/api/games" in client.get("/openapi.json").json()["paths"]


def test_swagger_ui_is_the_pinned_release_with_its_licence():
    version = re.search(r"^SWAGGER_UI_VERSION \?= (\S+)$", (ROOT / "Makefile").read_text(), re.M).group(1)
    table = (STATIC / "VENDORED.md").read_text()
    for name in ("swagger-ui-bundle.js", "swagger-ui.css"):
        digest = hashlib.sha256((STATIC / "swagger-ui" / name).read_bytes()).hexdigest()
        assert f"| swagger-ui/{name} | swagger-ui-dist (npm) | {version} | {digest} |" in table, name
    assert f'"{version}"' in (STATIC / "swagger-ui" / "swagger-ui-bundle.js").read_text()
    assert "Apache License" in (STATIC / "swagger-ui" / "LICENSE").read_text()
    assert (STATIC / "swagger-ui" / "NOTICE").exists()


# ----- in a real browser, under the policy ---------------------------------------------


@pytest.fixture
def strict_page(browser, server):
    """A page with the CSP in force, and every complaint of the browser about it or a script."""
    context = browser.new_context(base_url=server)
    page = context.new_page()
    complaints: list[str] = []
    page.on("console", lambda message: message.type in ("error", "warning") and complaints.append(message.text))
    page.on("pageerror", lambda error: complaints.append(str(error)))
    yield page, complaints
    context.close()


def test_swagger_ui_renders_and_calls_the_api_without_breaking_the_policy(strict_page):
    page, complaints = strict_page
    page.goto("/docs")
    page.wait_for_selector("#operations-games-new_game_api_games_post", timeout=seconds(20) * 1000)
    spec = page.evaluate("fetch('/openapi.json').then(r => r.json())")
    operations = sum(len(methods) for path, methods in spec["paths"].items() if path.startswith("/api/"))
    assert operations >= 10 and page.locator(".opblock").count() == operations  # every route of the JSON API
    # Try one operation on a game of this browser's player: Swagger UI asks the same origin,
    # which the policy allows, and shows the answer.
    game = page.request.post("/api/games", data={"width": 9, "height": 9, "mines": 10}).json()
    read = "#operations-games-read_game_api_games__game_id__get"
    page.click(f"{read} .opblock-summary")
    page.click(f"{read} .try-out__btn")
    page.fill(f"{read} input[placeholder=game_id]", game["id"])
    page.click(f"{read} .execute")
    status = page.wait_for_selector(
        f"{read} .live-responses-table tbody .response-col_status", timeout=seconds(20) * 1000
    )
    assert status.inner_text().strip() == "200"
    assert f'"id": "{game["id"]}"' in page.inner_text(f"{read} .live-responses-table tbody .response-col_description")
    assert not complaints, complaints


def test_the_page_settings_form_is_what_the_route_takes(strict_page):
    page, complaints = strict_page
    page.goto("/")
    page.click('button[value="cruel beginner"]')
    page.wait_for_selector("#grid")
    game_id = page.url.rsplit("/", 1)[1]

    def stored_options() -> dict:
        return page.request.get(f"/api/games/{game_id}").json()["options"]

    def options_become(expected: dict) -> None:
        wait_until(lambda: stored_options() == expected, 20, lambda: str(stored_options()), every=0.05)

    start = stored_options()
    assert start["undo"] and not start["debug_overlay"]
    page.check("#options input[name=debug_overlay]")
    options_become({**start, "debug_overlay": True})
    page.uncheck("#options input[name=undo]")
    options_become({**start, "debug_overlay": True, "undo": False})
    assert not complaints, complaints
