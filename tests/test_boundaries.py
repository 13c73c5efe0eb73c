"""The house's boundaries (DESIGN.md §2): the web layer and the service reach a mode only through the
registries; a mode's name and its own module appear only in the mode and its face."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from app.modes import MODES

ROOT = Path(__file__).resolve().parent.parent
# A mode's own module (app.modes.flags), as against the registry (app.modes) and the interface (app.modes.base).
MODE_MODULES = {f"app.modes.{path.stem}" for path in (ROOT / "app" / "modes").glob("*.py")} - {
    "app.modes.__init__",
    "app.modes.base",
}
# Everything that draws or serves every game alike: the web layer but the faces, the service, the pages'
# templates but the modes' own, and the page's script (its entry and its modules; a face's own is in static/modes/).
SHARED_PYTHON = sorted(
    path
    for path in [*(ROOT / "app" / "web").rglob("*.py"), *(ROOT / "app" / "service").glob("*.py")]
    if "faces" not in path.relative_to(ROOT).parts
)
SHARED_PAGE = [
    *sorted(path for path in (ROOT / "templates").rglob("*.html") if path.parent.parent.name != "modes"),
    ROOT / "static" / "kaboom.js",
    *sorted((ROOT / "static" / "js").glob("*.js")),
]


def imported(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
    return modules


def test_the_registries_list_every_mode_module() -> None:
    assert MODE_MODULES == {
        "app.modes.classic",
        "app.modes.cruel",
        "app.modes.cruel_flags",
        "app.modes.flags",
        "app.modes.help",
    }
    assert len(SHARED_PYTHON) > 5


def test_no_shared_module_imports_a_modes_own_module() -> None:
    reaching = {str(path.relative_to(ROOT)): sorted(imported(path) & MODE_MODULES) for path in SHARED_PYTHON}
    assert {name: modules for name, modules in reaching.items() if modules} == {}


def test_no_shared_file_names_a_mode() -> None:
    # An action may share a mode's name (help games take "help"): an action is not a mode.
    actions = {action for mode in MODES.values() for action in mode.board_actions()}
    names = "|".join(re.escape(name) for name in MODES if name not in actions)
    quoted = re.compile(rf"""["']({names})["']|\bmode\s*===?\s*["']|game\.mode\s*==\s*["']""")
    found = {
        f"{path.relative_to(ROOT)}:{number}": line.strip()
        for path in [*SHARED_PYTHON, *SHARED_PAGE]
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if quoted.search(line)
    }
    assert found == {}


def test_the_web_layer_imports_nothing_of_the_host() -> None:
    # app.host (the server, the allocator, the slow lane) runs the web layer; the web layer knows nothing of it.
    reaching = {
        str(path.relative_to(ROOT)): sorted(
            module for module in imported(path) if module == "app.host" or module.startswith("app.host.")
        )
        for path in (ROOT / "app" / "web").rglob("*.py")
    }
    assert {name: modules for name, modules in reaching.items() if modules} == {}
