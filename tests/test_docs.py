"""The documentation: README.md is the door and docs/ the manual.

Every relative link and image in them leads to a file of the repository (a #anchor to a heading of its
target, as GitHub spells it); web links are not fetched. The README stays short, and docs/configuration.md
is what docs/configuration.py writes from the settings.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType
from urllib.parse import unquote

import pytest

from app.core.config import Settings

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]

FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
MARKDOWN_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
HTML_LINK = re.compile(r"<(?:img|a|source)\b[^>]*?\s(?:src|href|srcset)=\"([^\"]+)\"", re.IGNORECASE)
HTML_ANCHOR = re.compile(r"<a\b[^>]*?\s(?:id|name)=\"([^\"]+)\"", re.IGNORECASE)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def prose_lines(text: str) -> list[str]:
    """The lines that are not code: fenced blocks and indented blocks dropped, inline code blanked."""
    lines: list[str] = []
    fenced = indented = False
    previous_blank = True
    for line in text.splitlines():
        blank = not line.strip()
        # An indented block starts after a blank line and runs while its lines stay indented.
        indented = not blank and line.startswith(("    ", "\t")) and (previous_blank or indented)
        previous_blank = blank
        if FENCE.match(line):
            fenced = not fenced
            lines.append("")
        elif fenced or indented:
            lines.append("")
        else:
            lines.append(INLINE_CODE.sub("", line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text, lower-cased, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").replace("*", "")
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file: its headings' slugs (repeats numbered as GitHub does) and HTML ids."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        heading = re.match(r"^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$", line)
        if heading:
            base = slug(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        found.update(HTML_ANCHOR.findall(line))
    return found


def links(path: Path) -> list[tuple[int, str]]:
    """Every link and image target in a Markdown file, with its line number."""
    found: list[tuple[int, str]] = []
    for number, line in enumerate(prose_lines(path.read_text(encoding="utf-8")), start=1):
        for pattern in (MARKDOWN_LINK, HTML_LINK):
            found.extend((number, target) for target in pattern.findall(line))
        reference = REFERENCE.match(line)
        if reference:
            found.append((number, reference.group(1)))
    return found


def broken(path: Path, target: str) -> str | None:
    """Why a link from this file does not resolve, or None when it does."""
    if SCHEME.match(target) or target.startswith("//"):
        return None  # a web address or mailto: not fetched
    address, _, anchor = target.partition("#")
    address = unquote(address.split("?", 1)[0])
    if address.startswith("/"):
        resolved = (ROOT / address.lstrip("/")).resolve()
    else:
        resolved = (path.parent / address).resolve() if address else path
    if not resolved.is_relative_to(ROOT):
        return "leads out of the repository"
    if not resolved.exists():
        return "no such file"
    if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
        return f"no heading #{anchor} in {resolved.relative_to(ROOT)}"
    return None


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_and_image_resolves(page):
    problems = [
        f"{page.relative_to(ROOT)}:{number}: {target}: {why}"
        for number, target in links(page)
        if (why := broken(page, target)) is not None
    ]
    assert not problems, "broken links:\n" + "\n".join(problems)


def test_the_link_checker_sees_links_and_skips_code(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "# A title\n\n## The solver's limits\n\nSee [here](#the-solvers-limits), ![a picture](pic.png)\n"
        '<img src="other.png" alt="x">\n\n```\n[not a link](nowhere.md)\n```\n\n'
        "    [indented code](nowhere.md)\n\n`[code](nowhere.md)` and [web](https://example.org/x)\n",
        encoding="utf-8",
    )
    assert [target for _, target in links(page)] == [
        "#the-solvers-limits",
        "pic.png",
        "other.png",
        "https://example.org/x",
    ]
    assert anchors(page) == {"a-title", "the-solvers-limits"}


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("The solver's limits", "the-solvers-limits"),
        ("`kaboom move`", "kaboom-move"),
        ("Behind a proxy, and limits", "behind-a-proxy-and-limits"),
        ("The solver, from Python", "the-solver-from-python"),
        ("`KABOOM_STORE` and *Redis*", "kaboom_store-and-redis"),
        ("Records and a win's figures", "records-and-a-wins-figures"),
    ],
)
def test_anchors_are_spelled_as_github_does(heading, anchor):
    assert slug(heading) == anchor


def test_the_readme_is_a_door_not_the_manual():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 200, f"README.md has {len(lines)} lines: move the detail into docs/"


def test_every_page_of_the_manual_is_in_its_index():
    index = DOCS / "README.md"
    linked = {(index.parent / unquote(target.partition("#")[0])).resolve() for _, target in links(index)}
    missing = [page.name for page in DOCS.glob("*.md") if page != index and page.resolve() not in linked]
    assert not missing, f"docs/README.md does not link to {', '.join(missing)}"


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_configuration", DOCS / "configuration.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_configuration_page_is_generated_from_the_settings():
    written = (DOCS / "configuration.md").read_text(encoding="utf-8")
    assert written == generator().render(), (
        "docs/configuration.md is not what docs/configuration.py writes from app/core/config.py and the Dockerfile: "
        "run `.venv/bin/python docs/configuration.py`"
    )


def test_every_setting_is_on_the_configuration_page():
    page = (DOCS / "configuration.md").read_text(encoding="utf-8")
    prefix = Settings.model_config.get("env_prefix", "")
    missing = [name for name in Settings.model_fields if f"`{prefix}{name.upper()}`" not in page]
    assert not missing, f"settings missing from docs/configuration.md: {missing}"


def test_every_setting_says_what_it_does():
    assert [name for name, field in Settings.model_fields.items() if not field.description] == []


def test_the_generators_notes_name_settings_that_exist():
    module = generator()
    stale = sorted(set(module.NOTES) - set(Settings.model_fields))
    assert not stale, f"docs/configuration.py has notes on settings app/core/config.py no longer has: {stale}"


def test_secrets_never_show_their_default():
    module = generator()
    assert module.shown(None) == "unset"
    assert "hunter2" not in module.shown(module.SecretStr("hunter2"))


def layout_paths(text: str) -> set[str]:
    """The files and folders docs/development.md's Layout names, as paths: its tree is indented two spaces a level,
    each line a name (a folder ends with /) and what it holds."""
    block = text[text.index("## Layout") :]
    block = block[block.index("```\n") + 4 :]
    block = block[: block.index("```")]
    named, folders = set(), []
    for line in block.splitlines():
        name = line.split()[0] if line.strip() else ""
        depth = (len(line) - len(line.lstrip(" "))) // 2
        if not name or line.startswith(" " * (depth * 2 + 1)):
            continue  # a description carried on from the line above
        folders = folders[:depth]
        path = "".join(folders) + name
        named.add(path.rstrip("/"))
        if name.endswith("/"):
            folders.append(name)
    return named


def test_the_layout_names_every_module_of_app_and_nothing_that_is_gone():
    named = layout_paths((DOCS / "development.md").read_text())
    modules = {
        str(path.relative_to(ROOT).parent if path.name == "__init__.py" else path.relative_to(ROOT))
        for path in (ROOT / "app").rglob("*.py")
    }
    assert modules - named == set(), "modules of app/ the layout in docs/development.md does not name"
    gone = {path for path in named if "<" not in path and not (ROOT / path).exists()}  # <mode>: any one
    assert gone == set(), "named, but not in the tree"


def test_the_layout_reader_follows_the_tree():
    tree = [
        "app/               the code",
        "  web/             pages",
        "    routes/        one a feature",
        "      site.py      the home page,",
        "                   and more",
        "    render.py      pages",
        "solver/            reasoning",
    ]
    text = "## Layout\n\n```\n" + "\n".join(tree) + "\n```\n"
    assert layout_paths(text) == {
        "app",
        "app/web",
        "app/web/routes",
        "app/web/routes/site.py",
        "app/web/render.py",
        "solver",
    }
