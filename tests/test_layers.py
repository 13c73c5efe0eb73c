"""The layers the folders show (docs/development.md, "Layout"): which package may import which, no import cycle
anywhere in app/, and a service of small parts (no mixin, no part over 30 methods)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in APP.rglob("*.py")}


def run_time_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """The imports a module runs, wherever they are (a function's too), but not those under TYPE_CHECKING."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def imports_of(name: str) -> set[str]:
    """The modules of app/ that `name` imports: `from app.x import y` is app.x.y when y is a module, else app.x."""
    edges = set()
    for node in run_time_imports(ast.parse(MODULES[name].read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                package = name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]
                for _ in range(node.level - 1):
                    package = package.rpartition(".")[0]
                base = f"{package}.{base}" if base else package
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        edges.update(target for target in targets if target in MODULES and target != name)
    return edges


GRAPH = {name: imports_of(name) for name in MODULES}


def layer_of(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "app"


# What each layer may import besides itself (and the solver and libraries, which are not app/). The store depends on
# no feature and no mode, the web layer on no part of the process host; only the host and the command line compose.
ALLOWED = {
    "core": set(),
    "modes": {"core"},
    "rooms": {"core"},
    "results": {"core", "modes", "rooms"},
    "store": {"core"},
    "service": {"core", "modes", "rooms", "results", "store"},
    "play": {"core", "modes"},
    "web": {"core", "modes", "rooms", "results", "store", "service"},
    "host": {"core", "store", "service", "web"},
    "cli": {"core", "modes", "play", "store", "service", "web", "host"},
    "app": set(),
}


def test_every_layer_imports_only_the_layers_below_it() -> None:
    assert set(ALLOWED) >= {layer_of(name) for name in MODULES}
    reaching = {
        (name, target)
        for name, targets in GRAPH.items()
        for target in targets
        if layer_of(target) != layer_of(name) and layer_of(target) not in ALLOWED[layer_of(name)]
    }
    assert reaching == set()


def test_no_module_of_app_takes_part_in_an_import_cycle() -> None:
    cycles = []
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done

    def walk(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(GRAPH[name]):
            if state.get(target) == 1:
                cycles.append(path[path.index(target) :] + [target])
            elif target not in state:
                walk(target, [*path, target])
        state[name] = 2

    for name in sorted(GRAPH):
        if name not in state:
            walk(name, [name])
    assert cycles == []


def test_the_walk_sees_imports_inside_functions_and_follows_module_imports() -> None:
    # The lane starts its process with the server's help, from inside a function: the walk must see that.
    assert "app.host.server" in GRAPH["app.host.lane"]
    assert "app.service.context" in GRAPH["app.service.games"]
    assert "app.core.seats" in GRAPH["app.modes.base"]  # `from app.core import seats as seating`


def test_the_service_is_small_parts_without_mixins() -> None:
    for path in (APP / "service").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ClassDef):
                continue
            methods = [item for item in node.body if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)]
            assert len(methods) <= 30, f"{path.name}: {node.name} has {len(methods)} methods"
            if node.name.endswith("Operations") or node.name == "GameService":
                assert not node.bases, f"{path.name}: {node.name} is built of mixins {ast.unparse(node)[:80]}"
