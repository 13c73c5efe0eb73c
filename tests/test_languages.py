"""The pages in the player's language: the catalogs are whole and current, a request finds its language, the
switcher keeps a choice, and what is marked for translation is translated, plurals and all."""

from __future__ import annotations

import ast
import datetime
import re
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from babel.support import NullTranslations
from jinja2 import Environment

from app.core import languages
from app.core.config import Settings
from app.core.languages import LANGUAGES, offered_codes
from app.web.deps import TEMPLATES
from app.web.i18n import CATALOGS, LANGUAGE_COOKIE, Catalogs, catalog_path, preferred_tags
from app.web.routes.site import local_path
from tests.live import live_server

ROOT = Path(__file__).resolve().parent.parent
TRANSLATED = [code for code in LANGUAGES if code != "en"]
# Every template: each word a player reads in it goes through the catalog.
ALL_TEMPLATES = sorted(str(path.relative_to(ROOT / "templates")) for path in (ROOT / "templates").rglob("*.html"))
# The domain errors whose words no page shows, and so stay English (with every kind below them): a
# ConfigurationError keeps the server from starting, for its operator to read on the terminal or in the log; a
# Corrupt or a Conflict is answered with a sentence of the page's own (app.web.errors.ANSWERS), its words going
# to the log alone; a BadInput is a command's (app/cli), and the command line speaks English. Every other
# refusal is marked, in every module of the app (issue 44).
# NoSuchThing: what the host named to kaboom admin is not there (the command line stays English).
OPERATOR_ERRORS = frozenset({"ConfigurationError", "Corrupt", "Conflict", "BadInput", "NoSuchThing"})
# Words that are the same in every language: the game's name, and 3BV (each glossary keeps it).
UNTRANSLATED_WORDS = {"Kaboom", "BV"}


def extracted() -> dict[str, tuple[str, ...] | str]:
    """Every message marked in the code and the templates now, as `make messages` extracts them (babel.cfg)."""
    method_map = [("app/**.py", "python"), ("templates/**.html", "jinja2"), ("static/**.js", "javascript")]
    options = {"templates/**.html": {"extensions": "jinja2.ext.i18n"}}
    keywords = {
        "_": None,
        "gettext": None,
        "ngettext": (1, 2),
        "pgettext": ((1, "c"), 2),
        "N_": None,
        "lazy_gettext": None,
        "lazy_ngettext": (1, 2),
        # A setting's label, where it is declared (app.core.game.setting).
        "setting": None,
    }
    messages: dict[str, tuple[str, ...] | str] = {}
    for _file, _line, message, _comments, context in extract_from_dir(
        str(ROOT), method_map, options, keywords=keywords
    ):
        key = message if isinstance(message, str) else message[0]
        messages[f"{context}\x04{key}" if context else key] = message
    return messages


def forms(text: str | tuple[str, ...]) -> tuple[str, ...]:
    return text if isinstance(text, tuple) else (text,)


def message_key(entry) -> str:
    return (f"{entry.context}\x04" if entry.context else "") + forms(entry.id)[0]


def catalog(code: str):
    with catalog_path(CATALOGS, code).open("rb") as source:
        return read_po(source, locale=code)


def test_babel_cfg_extracts_what_the_test_extracts():
    # The test reads the same files with the same extractors as `make messages`: a change to one is a change
    # to both.
    text = (ROOT / "babel.cfg").read_text()
    assert "[python: app/**.py]" in text and "[jinja2: templates/**.html]" in text and "jinja2.ext.i18n" in text
    assert "[javascript: static/**.js]" in text
    keywords = "--keywords N_ --keywords lazy_gettext --keywords lazy_ngettext:1,2 --keywords setting"
    assert keywords in (ROOT / "Makefile").read_text()


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_marked_message_is_translated_and_confirmed_and_none_is_left_over(code):
    wanted = extracted()
    kept = catalog(code)
    entries = {message_key(entry): entry for entry in kept if entry.id}
    missing = sorted(set(wanted) - set(entries))
    stale = sorted(set(entries) - set(wanted))
    assert not missing, f"{code}: run `make messages` and translate: {missing[:5]}"
    assert not stale, f"{code}: messages no longer in the code (run `make messages`): {stale[:5]}"
    fuzzy = [key for key, entry in entries.items() if entry.fuzzy]
    assert not fuzzy, f"{code}: fuzzy (unconfirmed) translations: {fuzzy[:5]}"
    empty = [key for key, entry in entries.items() if not all(forms(entry.string))]
    assert not empty, f"{code}: untranslated: {empty[:5]}"
    for key, entry in entries.items():
        # A plural message has every form the language has (Russian three, Arabic six).
        if isinstance(entry.id, tuple):
            assert len(entry.string) == kept.num_plurals, (code, key)
    # Babel's own checks: the same %(name)s placeholders, nothing a format would trip on.
    problems = [(entry.id, [str(error) for error in errors]) for entry, errors in kept.check()]
    assert not problems, problems[:3]


@pytest.mark.parametrize("code", TRANSLATED)
def test_a_translation_uses_only_the_names_its_message_fills(code):
    for entry in catalog(code):
        if not entry.id:
            continue
        allowed = {name for text in forms(entry.id) for name in re.findall(r"%\((\w+)\)s", text)}
        for text in forms(entry.string):
            assert set(re.findall(r"%\((\w+)\)s", text)) <= allowed, (code, entry.id, text)
            # A lone % would break the format: a percent sign is written %%.
            assert not re.search(r"%(?!\(\w+\)s|%)", text.replace("%%", "")), (code, text)


def test_the_plural_forms_follow_each_language():
    mines = "%(mode)s: %(preset)s, %(width)s×%(height)s, %(num)s mine"
    plural = mines[:-4] + "mines"
    catalogs = Catalogs("en,ru,hu,ar")
    said = {}
    for code in ("ru", "ar", "hu"):
        translations = catalogs.speaking[code].translations
        said[code] = {count: translations.ngettext(mines, plural, count) for count in (0, 1, 2, 3, 5, 11, 21, 100, 101)}
    assert said["ru"][1].endswith("мина") and said["ru"][21].endswith("мина")
    assert said["ru"][2].endswith("мины") and said["ru"][3].endswith("мины")
    assert said["ru"][5].endswith("мин") and said["ru"][11].endswith("мин") and said["ru"][100].endswith("мин")
    # Arabic: zero, one, two, few (3-10), many (11-99), other (100-102...).
    assert said["ar"][1].endswith("لغم واحد") and said["ar"][2].endswith("لغمان")
    assert said["ar"][3].endswith("ألغام") and said["ar"][5].endswith("ألغام")
    assert said["ar"][11].endswith("لغمًا") and said["ar"][100].endswith("لغم")
    assert len({said["ar"][count] for count in (1, 2, 3, 11, 100)}) == 5 and said["ar"][0]
    assert said["hu"][1] == said["hu"][5] and said["hu"][5].endswith("%(num)s akna")


@pytest.mark.parametrize(
    ("header", "tags"),
    [
        ("ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7", ["ru-ru", "ru", "en-us", "en"]),
        ("en;q=0.5, hu", ["hu", "en"]),
        ("ar;q=0, ru;q=0.2, *", ["ru"]),
        ("fr;q=abc, de;q=2, hu;q=0.001", ["hu"]),
        ("", []),
        (" , ;q=1,", []),
    ],
)
def test_accept_language_is_read_by_its_weights(header, tags):
    assert preferred_tags(header) == tags


def test_a_request_is_answered_in_the_cookies_choice_then_the_headers_then_english():
    catalogs = Catalogs("ru,ar")
    assert [language.code for language in catalogs.speaking["en"].offered] == ["en", "ru", "ar"]
    assert catalogs.negotiate(None, "ru-RU,ru;q=0.9").language.code == "ru"
    assert catalogs.negotiate(None, "hu,ar;q=0.5").language.code == "ar"  # Hungarian is not offered here
    assert catalogs.negotiate("ar", "ru").language.code == "ar"
    assert catalogs.negotiate("hu", "ru").language.code == "ru"  # a choice the server no longer offers
    assert catalogs.negotiate("xx", None).language.code == "en"
    assert catalogs.negotiate(None, "de, fr").language.code == "en"


def test_the_setting_names_only_known_languages_and_always_english():
    assert offered_codes("ar, RU") == ("en", "ru", "ar")
    assert offered_codes("") == ("en",)
    with pytest.raises(ValueError, match="no such language: xx"):
        offered_codes("ru,xx")
    assert Settings(languages="hu").languages == "en,hu"
    with pytest.raises(ValueError, match="no such language"):
        Settings(languages="klingon")


def test_outside_a_request_the_words_are_english():
    assert languages.gettext("Records") == "Records"
    assert languages.ngettext("%(num)s mine", "%(num)s mines", 3) == "3 mines"
    assert languages.gettext("%% of cells") == "% of cells"


@pytest.mark.parametrize(
    ("back", "kept"),
    [
        ("/games/abc?x=1", "/games/abc?x=1"),
        ("/", "/"),
        ("//evil.example/x", "/"),
        ("/\\evil.example", "/"),
        ("https://evil.example/", "/"),
        ("javascript:alert(1)", "/"),
        ("/games\r\nSet-Cookie: x=1", "/"),
        ("", "/"),
    ],
)
def test_the_switcher_goes_back_only_to_a_page_of_this_site(back, kept):
    assert local_path(back) == kept


class VisibleText(HTMLParser):
    """The words of a template's markup that a player reads (text and the attributes people see or hear), with
    every Jinja2 tag, expression and comment taken out first."""

    SHOWN_ATTRIBUTES = {"title", "aria-label", "placeholder", "alt", "aria-description", "aria-roledescription"}

    def __init__(self) -> None:
        super().__init__()
        self.words: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skipping += 1
        for name, value in attrs:
            if name in self.SHOWN_ATTRIBUTES and value:
                self.keep(value)

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skipping -= 1

    def handle_data(self, data):
        if not self.skipping:
            self.keep(data)

    def keep(self, text: str) -> None:
        self.words += [word for word in re.findall(r"[^\W\d_]{2,}", text) if word not in UNTRANSLATED_WORDS]


def unmarked_words(source: str) -> list[str]:
    # A block that fills an attribute (body_class, daily_current) holds class names or markup, not words.
    source = re.sub(r"\{%-?\s*block \w+_(class|current)\s*-?%\}.*?\{%-?\s*endblock", " ", source, flags=re.DOTALL)
    # Every Jinja2 construct becomes a blank: what is left is the markup's own text.
    bare = re.sub(r"\{#.*?#\}|\{%.*?%\}|\{\{.*?\}\}", " ", source, flags=re.DOTALL)
    parser = VisibleText()
    parser.feed(bare)
    return parser.words


@pytest.mark.parametrize("name", ALL_TEMPLATES)
def test_every_word_of_a_template_goes_through_the_catalog(name):
    assert unmarked_words((TEMPLATES / name).read_text()) == []


def test_the_unmarked_words_check_finds_text_and_shown_attributes():
    source = '<p title="A tip">{{ _("Fine") }} Plain words</p><b aria-label="{{ _(\'x\') }}">{% if a %}x{% endif %}</b>'
    assert unmarked_words(source) == ["tip", "Plain", "words"]
    assert unmarked_words("<script>const words = 1;</script>{# a comment #}") == []


def test_the_templates_compile_with_the_i18n_extension():
    environment = Environment(extensions=["jinja2.ext.i18n"])
    environment.install_null_translations(newstyle=True)
    for path in TEMPLATES.rglob("*.html"):
        environment.parse(path.read_text())


SERVER_SETTINGS = {"languages": "en,ru,hu,ar"}


def get(server: str, path: str = "/", **headers: str) -> httpx.Response:
    return httpx.get(server + path, headers=headers)


def html_tag(page: str) -> str:
    found = re.search(r"<html[^>]*>", page)
    assert found, page[:200]
    return found.group(0)


@pytest.mark.server
@pytest.mark.parametrize(
    ("header", "tag", "words"),
    [
        ("ru-RU,ru;q=0.9", '<html lang="ru" dir="ltr">', ("Ваши игры", "Новая игра", "Профессионал")),
        ("hu", '<html lang="hu" dir="ltr">', ("Játékaid", "Új játék", "Mester")),
        ("ar", '<html lang="ar" dir="rtl">', ("ألعابك", "لعبة جديدة", "خبير")),
        ("de, en;q=0.5", '<html lang="en" dir="ltr">', ("Your games", "New game", "Expert")),
    ],
)
def test_a_page_speaks_the_browsers_language_and_says_which(server, header, tag, words):
    answer = get(server, **{"Accept-Language": header})
    assert answer.status_code == 200
    assert html_tag(answer.text) == tag
    for word in words:
        assert word in answer.text


@pytest.mark.server
def test_the_switcher_lists_every_language_and_keeps_the_choice(server):
    page = get(server, "/rules", **{"Accept-Language": "ru"}).text
    # Each language is offered in its own words, marked with its own language and direction.
    for language in LANGUAGES.values():
        assert f'value="{language.code}" lang="{language.code}" dir="{language.direction}"' in page
    assert '<span class="visually-hidden">Язык: Русский, </span>RU</summary>' in page
    assert '<input type="hidden" name="back" value="/rules">' in page
    with httpx.Client(base_url=server) as client:
        chosen = client.post("/language", data={"language": "hu", "back": "/rules"}, headers={"Accept-Language": "ru"})
        assert chosen.status_code == 303 and chosen.headers["location"] == "/rules"
        cookie = chosen.headers["set-cookie"]
        assert cookie.startswith(f"{LANGUAGE_COOKIE}=hu;") and "Max-Age=31536000" in cookie and "SameSite=lax" in cookie
        # The choice outweighs the header from now on.
        assert html_tag(client.get("/", headers={"Accept-Language": "ru"}).text) == '<html lang="hu" dir="ltr">'
        refused = client.post("/language", data={"language": "xx", "back": "/"}, headers={"Accept-Language": "ru"})
        assert refused.status_code == 422
        assert "Itt nincs &#39;xx&#39; nyelv" in refused.text and "set-cookie" not in refused.headers
        assert client.cookies.get(LANGUAGE_COOKIE) == "hu"
        away = client.post("/language", data={"language": "ar", "back": "//evil.example/"})
        assert away.status_code == 303 and away.headers["location"] == "/"


@pytest.mark.server
def test_a_server_that_offers_english_alone_shows_no_switcher(tmp_path):
    with live_server(tmp_path / "games.sqlite3", languages="en") as url:
        page = get(url, **{"Accept-Language": "ru", "Cookie": f"{LANGUAGE_COOKIE}=ru"}).text
        assert html_tag(page) == '<html lang="en" dir="ltr">'
        assert 'action="/language"' not in page and "Your games" in page
        refused = httpx.post(url + "/language", data={"language": "ru"})
        assert refused.status_code == 422 and "this server speaks English" in refused.text


def speaking_in(code: str) -> languages.Speaking:
    return languages.Speaking(LANGUAGES[code], NullTranslations(), ())


@pytest.mark.parametrize(
    ("code", "number", "decimal", "percent", "share", "day", "day_and_year"),
    [
        ("en", "2000", "1.23", "94 %", "0.5 %", "26 November", "26 November 2026"),
        ("ru", "2\xa0000", "1,23", "94\xa0%", "0,5\xa0%", "26 ноября", "26 ноября 2026\u202fг."),
        ("hu", "2\xa0000", "1,23", "94%", "0,5%", "november 26.", "2026. november 26."),
        ("ar", "2,000", "1.23", "94%", "0.5%", "26 نوفمبر", "26 نوفمبر 2026"),
    ],
)
def test_numbers_shares_and_days_are_written_as_each_language_writes_them(
    code, number, decimal, percent, share, day, day_and_year
):
    moment = datetime.date(2026, 11, 26)
    with languages.speaking_as(speaking_in(code)):
        assert languages.number_text(2000) == number
        assert languages.decimal_text(1.2345, 2) == decimal
        assert languages.percent_text(0.94) == percent
        assert languages.percent_text(0.005, 1) == share
        assert languages.day_text(moment) == day
        assert languages.day_text(moment, year=True) == day_and_year
    # Outside, English again.
    assert languages.number_text(2000) == "2000"


def test_a_game_thread_speaks_its_requests_language():
    # The service runs a request's work in a thread (anyio copies the request's context into it).
    import anyio

    async def in_a_thread() -> str:
        with languages.speaking_as(Catalogs("ru").speaking["ru"]):
            return await anyio.to_thread.run_sync(lambda: languages.gettext("Records"))

    assert anyio.run(in_a_thread) == "Рекорды"


@pytest.mark.server
def test_a_refusal_keeps_its_english_detail_for_scripts_and_tells_a_person_in_their_language(server):
    gone = httpx.get(server + "/api/games/nothing", headers={"Accept-Language": "ru"})
    assert gone.status_code == 404
    assert gone.json() == {
        "detail": "no such game",
        "message": Catalogs("ru")
        .speaking["ru"]
        .translations.gettext(
            "This game is gone: it was deleted (in another tab, perhaps) or expired, or the link is wrong. "
            "Your games lists those you have; New game starts another."
        ),
    }
    assert gone.json()["message"].startswith("Этой игры больше нет")
    # A guard's refusal, before the app: the same two, and its short page says its language.
    cross = {"Accept-Language": "ar", "Sec-Fetch-Site": "cross-site"}
    refused = httpx.post(server + "/api/games", json={}, headers=cross)
    assert refused.status_code == 403
    assert refused.json()["detail"] == "Cross-site requests are refused: play from Kaboom's own pages."
    assert refused.json()["message"].startswith("تُرفض الطلبات")
    page = httpx.post(server + "/games", data={}, headers=cross)
    assert page.status_code == 403 and '<html lang="ar" dir="rtl">' in page.text and "تُرفض الطلبات" in page.text
    # A body of the wrong shape: FastAPI's list of field errors, and a sentence around them.
    wrong = httpx.post(server + "/api/games", json={"width": "wide"}, headers={"Accept-Language": "hu"})
    assert wrong.status_code == 422 and isinstance(wrong.json()["detail"], list)
    assert wrong.json()["message"].startswith("Az űrlap nem megfelelő: ")


def unmarked_refusals(source: str) -> list[str]:
    """The domain errors raised with words that go to no catalog: a string or an f-string as the message."""
    import importlib
    import pkgutil

    import app
    from app.core.errors import KaboomError

    # Every kind of domain error is defined once every module of the app is imported (the commands' too).
    for module in pkgutil.walk_packages(app.__path__, "app."):
        importlib.import_module(module.name)

    def kinds(base: type) -> set[str]:
        if base.__name__ in OPERATOR_ERRORS:
            return set()
        return {base.__name__}.union(*(kinds(sub) for sub in base.__subclasses__()))

    errors = kinds(KaboomError)
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        words = node.args[0]
        plain = isinstance(words, ast.JoinedStr) or (isinstance(words, ast.Constant) and isinstance(words.value, str))
        if name in errors and plain:
            found.append(f"line {node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_every_refusal_a_player_may_read_goes_through_the_catalog():
    # Every module of the app: a refusal in plain words fails wherever it is written.
    found = {
        str(path.relative_to(ROOT)): lines
        for path in sorted((ROOT / "app").rglob("*.py"))
        if (lines := unmarked_refusals(path.read_text()))
    }
    assert found == {}


def test_the_unmarked_refusals_check_finds_plain_and_formatted_words():
    source = 'raise Refused("no")\nraise Invalid(f"bad {x}")\nraise Refused(lazy_gettext("fine"))\nprint("words")'
    assert [line.split(":")[0] for line in unmarked_refusals(source)] == ["line 1", "line 2"]
    # An operator's error keeps its English: a player never reads it.
    assert unmarked_refusals('raise Corrupt(f"game {x}: bad")\nraise ConfigurationError("no key")') == []
    assert unmarked_refusals('raise BadInput(f"cannot explain {cell}")') == []


def test_a_player_never_reads_the_words_of_a_damaged_or_conflicting_game():
    from app.store import Conflict, Corrupt
    from app.web.errors import ANSWERS

    for kind in (Corrupt, Conflict):
        shown = ANSWERS[kind].message(kind("game-for-the-log"))
        assert "game-for-the-log" not in str(shown), kind


# A string the script shows: words (two words or more, or one capitalised word) in a literal, outside _( ).
# Literals that are no one's words: the keys a keyboard names (KeyboardEvent.key), selectors and class lists.
SCRIPT_LITERAL = re.compile(r"""(_\(\s*)?("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`)""")
SCRIPT_NOT_WORDS = {"Home", "End", "Enter", "Escape", "message refused"}


def unmarked_script_words(source: str) -> list[str]:
    """The string literals of a script that read as words a player would see, and that no _() translates."""
    source = re.sub(r"^\s*//.*$|/\*.*?\*/", "", source, flags=re.M | re.S)
    found = []
    for match in SCRIPT_LITERAL.finditer(source):
        marked, literal = match.groups()
        text = literal[1:-1]
        if marked or text in SCRIPT_NOT_WORDS or text.startswith(("#", ".")):
            continue
        if (" " in text and len(re.findall(r"[A-Za-z]{2,}", text)) >= 2) or re.fullmatch(r"[A-Z][a-z]+[.!?]?", text):
            found.append(text)
    return found


# Kaboom's own scripts: not the vendored ones (htmx, its extension, Swagger UI), whose words are their own.
OWN_SCRIPTS = sorted(
    path for path in (ROOT / "static").rglob("*.js") if "swagger-ui" not in path.parts and ".min." not in path.name
)


@pytest.mark.parametrize("path", OWN_SCRIPTS, ids=lambda path: path.name)
def test_every_word_the_script_shows_goes_through_the_catalog(path):
    assert unmarked_script_words(path.read_text()) == []


def test_the_unmarked_script_words_check_finds_plain_words():
    source = 'note(_("Copied")); note("Not marked"); key === "Enter"; note(`Plain ${x} words`); q(".a b")\n// "A note"'
    assert unmarked_script_words(source) == ["Not marked", "Plain ${x} words"]


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_rooms_log_sets_a_name_apart_wherever_the_language_puts_it(code):
    from types import SimpleNamespace

    from app.web.views.rooms import said_of

    with languages.speaking_as(Catalogs(",".join(LANGUAGES)).speaking[code]):
        room = SimpleNamespace(mode="help")
        for what in ("joined", "started", "undo", "help"):  # the room's own events, and a mode's own action
            line = str(said_of({"name": "<i>Zoë</i>", "what": what, "colour": 0}, room))  # type: ignore[arg-type]
            assert line.count("<bdi>&lt;i&gt;Zoë&lt;/i&gt;</bdi>") == 1, line
            assert "%(" not in line and "<i>" not in line, line
        assert str(said_of({"name": "Zoë", "what": "help", "colour": 0}, room)) != "<bdi>Zoë</bdi> help"


@pytest.mark.parametrize("code", TRANSLATED)
def test_a_replays_steps_are_told_in_the_readers_language(code):
    from app.core.game import Move
    from app.modes import get_mode

    moves = {
        "Reveal column 3, row 4": ("classic", Move("reveal", 2, 3)),
        "Red: Bomb column 3, row 4": ("flags", Move("bomb", 2, 3, seat=1)),
        "Help": ("help", Move("help")),
    }
    for english, (mode, move) in moves.items():
        assert get_mode(mode).move_words(move) == english
        with languages.speaking_as(Catalogs(",".join(LANGUAGES)).speaking[code]):
            words = get_mode(mode).move_words(move)
        assert words != english and ("3" in words and "4" in words) == ("3" in english), words
