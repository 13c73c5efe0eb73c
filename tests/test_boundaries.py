"""The house's boundaries (DESIGN.md §2): shared code reaches a mode only through the registries and the mode's
interface. A mode's name, its classes, the keys only some modes keep in their state and the actions only some modes
take appear in the mode (app/modes/), its face (app/web/faces/, templates/modes/, static/modes/) and the tools that
play a mode by name (app/cli/, app/play/), never in the code, templates, script or styles every game shares."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import get_type_hints

from app.core.game import ACTIONS
from app.modes import MODES

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app"
# Where a mode may be named: the modes, their faces, and the tools that play a mode by its name.
MODE_OWN = (APP / "modes", APP / "web" / "faces", APP / "cli", APP / "play")
SHARED_PYTHON = sorted(path for path in APP.rglob("*.py") if not any(path.is_relative_to(own) for own in MODE_OWN))
SHARED_TEMPLATES = sorted(
    path for path in (ROOT / "templates").rglob("*.html") if not path.is_relative_to(ROOT / "templates" / "modes")
)
SHARED_SCRIPTS = [ROOT / "static" / "kaboom.js", *sorted((ROOT / "static" / "js").glob("*.js"))]
SHARED_STYLES = [ROOT / "static" / "kaboom.css"]
SHARED_TEXT = [*SHARED_PYTHON, *SHARED_TEMPLATES, *SHARED_SCRIPTS]

# A mode's own module (app.modes.flags), as against the registry (app.modes) and the interface (app.modes.base).
MODE_MODULES = {f"app.modes.{path.stem}" for path in (APP / "modes").glob("*.py")} - {
    "app.modes.__init__",
    "app.modes.base",
}
MODE_CLASSES = {
    node.name
    for path in (APP / "modes").glob("*.py")
    if path.stem not in ("__init__", "base")
    for node in ast.walk(ast.parse(path.read_text()))
    if isinstance(node, ast.ClassDef)
}


def schema_keys(schema: type | None) -> set[str]:
    return set(get_type_hints(schema)) if schema is not None else set()


KEPT_BY = {name: schema_keys(mode.state_schema) | schema_keys(mode.hidden_schema) for name, mode in MODES.items()}
# Keys some modes keep in their state and others do not: reading one is knowing which mode a game is.
SOME_MODES_KEYS = set().union(*KEPT_BY.values()) - set.intersection(*KEPT_BY.values())
# The actions every board may take are the core's (app.core.game.ACTIONS: a mode says which of them it takes);
# any other is one mode's own.
SOME_MODES_ACTIONS = {action for mode in MODES.values() for action in mode.board_actions()} - set(ACTIONS)
# A mode's name may also be an action's (help games take "help"): such a name is checked as an action.
MODE_NAMES = set(MODES) - SOME_MODES_ACTIONS


def alternatives(words: set[str]) -> str:
    return "|".join(sorted(map(re.escape, words), key=len, reverse=True))


QUOTED_NAME = re.compile(rf"""["']({alternatives(MODE_NAMES)})["']|\bmode\s*===?\s*["']|game\.mode\s*==\s*["']""")
QUOTED_ACTION = re.compile(rf"""["']({alternatives(SOME_MODES_ACTIONS)})["']""")
# A read of a state key in a template or script: game.state.get('k'), state['k'], public.k, data-k…
KEY_READ = re.compile(
    rf"""(state|public)(\.get\(\s*|\[)["']({alternatives(SOME_MODES_KEYS)})["']"""
    rf"""|\bstate\.({alternatives(SOME_MODES_KEYS)})\b|dataset\.({alternatives(SOME_MODES_KEYS)})\b"""
)
# A selector of the shared stylesheet that styles one mode's parts (.flags-bar, .bomb-mode, #help-button).
MODE_SELECTOR = re.compile(rf"[.#][\w-]*\b({alternatives(set(MODES) | SOME_MODES_ACTIONS)})\b[\w-]*")


def found(pattern: re.Pattern[str], paths: list[Path]) -> dict[str, str]:
    return {
        f"{path.relative_to(ROOT)}:{number}": line.strip()
        for path in paths
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    }


def imported(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
    return modules


def state_reads(source: str, where: str) -> dict[str, str]:
    """Where Python code reads a key only some modes keep from a game's state or a mode's public state:
    state["k"], state.get("k"), public_state(game).get("k")…"""
    reads = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript):
            owner, key = node.value, node.slice
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            owner, key = node.func.value, node.args[0] if node.args else None
        else:
            continue
        if (
            isinstance(key, ast.Constant)
            and key.value in SOME_MODES_KEYS
            and re.search(r"state|public", ast.unparse(owner))
        ):
            reads[f"{where}:{node.lineno}"] = ast.unparse(node)
    return reads


def test_the_boundaries_know_the_modes_and_what_only_some_of_them_have() -> None:
    assert MODE_MODULES == {
        "app.modes.classic",
        "app.modes.cruel",
        "app.modes.cruel_flags",
        "app.modes.flags",
        "app.modes.help",
    }
    assert {"Classic", "Cruel", "CruelFlags", "Flags", "Help"} <= MODE_CLASSES
    assert {"bomb", "help"} == SOME_MODES_ACTIONS
    assert {"start", "forced_guesses", "missed", "bombs", "scores", "layout_seen", "board_id"} <= SOME_MODES_KEYS
    # Everything but the modes, their faces and the tools that play them by name.
    shared = {path.relative_to(APP).parts[0] for path in SHARED_PYTHON}
    assert shared == {"__init__.py", "core", "host", "results", "rooms", "service", "store", "web"}
    assert ROOT / "templates" / "base.html" in SHARED_TEMPLATES and len(SHARED_SCRIPTS) > 5


def test_no_shared_module_imports_a_modes_own_module() -> None:
    reaching = {str(path.relative_to(ROOT)): sorted(imported(path) & MODE_MODULES) for path in SHARED_PYTHON}
    assert {name: modules for name, modules in reaching.items() if modules} == {}


def test_no_shared_file_names_a_mode() -> None:
    assert found(QUOTED_NAME, SHARED_TEXT) == {}


def test_no_shared_python_names_a_modes_class() -> None:
    named = {
        f"{path.relative_to(ROOT)}:{node.lineno}": node.id if isinstance(node, ast.Name) else node.attr
        for path in SHARED_PYTHON
        for node in ast.walk(ast.parse(path.read_text()))
        if (isinstance(node, ast.Name) and node.id in MODE_CLASSES)
        or (isinstance(node, ast.Attribute) and node.attr in MODE_CLASSES)
    }
    assert named == {}


def test_no_shared_code_reads_a_key_only_some_modes_keep() -> None:
    reads = {
        place: code
        for path in SHARED_PYTHON
        for place, code in state_reads(path.read_text(), str(path.relative_to(ROOT))).items()
    }
    assert {**reads, **found(KEY_READ, [*SHARED_TEMPLATES, *SHARED_SCRIPTS])} == {}


def test_no_shared_file_takes_an_action_only_some_modes_take() -> None:
    assert found(QUOTED_ACTION, SHARED_TEXT) == {}


def test_the_shared_stylesheet_styles_no_modes_own_parts() -> None:
    assert found(MODE_SELECTOR, SHARED_STYLES) == {}


def test_each_check_finds_what_it_forbids() -> None:
    # The checks themselves, on lines a careless change might write: each pattern catches its own.
    assert QUOTED_NAME.search("if game.mode == 'flags':")
    assert QUOTED_ACTION.search('send("bomb", x, y)')
    assert KEY_READ.search("{% if game.state.get('layout_seen') %}") and KEY_READ.search("board.dataset.bombs")
    assert MODE_SELECTOR.search(".board.bomb-mode .c.u { cursor: crosshair }")
    assert MODE_SELECTOR.search(".flags-bar .score {") and not MODE_SELECTOR.search(".topbar .counter {")
    careless = (
        'forced = game.state["forced_guesses"]\nfirst = rules.public_state(game).get("start")\nn = size.get("mines")\n'
    )
    assert set(state_reads(careless, "careless").values()) == {
        "game.state['forced_guesses']",
        "rules.public_state(game).get('start')",
    }
