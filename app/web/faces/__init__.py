"""How each mode looks beyond the generic board: its face, found by the mode's name.

The game page (templates/game.html) draws what every game has: the board, the status panel, a game
of several seats' turn, invitation and live updates. A mode that shows more — counters of its own, a
line in the panel, its rules in place of the settings, a part of the JSON answer, cells in a seat's
colour — has a face here, and its templates in templates/modes/<mode>/ (`topbar.html`, `panel.html`,
`settings.html`, `toolbar.html`: each part it has replaces or adds to the page's own, inside the page's
blocks, so the fragments HTMX swaps carry it too). What it does on the page beyond the board's own input
(a button of its own, a tool for an action of its own) is its script, with its stylesheet, in
static/modes/<mode>/: loaded by a game of a mode wearing the face, and no other page. A face's script is
a module given what it may use of the board by static/js/game.js's onGame. A mode without a face looks
like every other.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from jinja2 import BaseLoader, Environment, TemplateNotFound
from pydantic import BaseModel
from starlette.staticfiles import StaticFiles

from app.core.game import Game

PARTS = ("topbar", "panel", "settings", "toolbar")
# Where the faces' scripts and stylesheets are served: static/modes/, and the faces' own folders after it.
STATIC_URL = "/static/modes"


class Face:
    """The default face: the generic board and panel, nothing more."""

    # The parts of the page this face draws itself (PARTS), each from modes/<mode>/<part>.html.
    parts: ClassVar[frozenset[str]] = frozenset()
    # Where the face's templates are when they are not under templates/ (a mode the tests add).
    templates: ClassVar[Path | None] = None
    # The face's scripts (modules) and stylesheets, by file name, each served as /static/modes/<folder>/<name>
    # from static/modes/<folder>/, or from `static` when it is given (a mode the tests add).
    scripts: ClassVar[tuple[str, ...]] = ()
    styles: ClassVar[tuple[str, ...]] = ()
    static: ClassVar[Path | None] = None
    # The face's part of the JSON answer of a game: a field of its own, with its model and description,
    # placed after the field `api_after` names (the answer's fields keep one order).
    api_field: ClassVar[str | None] = None
    api_model: ClassVar[type[BaseModel] | None] = None
    api_description: ClassVar[str] = ""
    api_after: ClassVar[str] = ""

    def __init__(self, folder: str | None = None):
        # Where the face's parts are, under modes/: its mode's own folder unless it wears another's face
        # (cruel Flags wears Flags').
        self.folder = folder

    def template(self, mode: str, part: str) -> str | None:
        """The template of one part of the page, when the face draws it."""
        return f"modes/{self.folder or mode}/{part}.html" if part in self.parts else None

    def urls(self, mode: str, names: tuple[str, ...]) -> list[str]:
        """Where the page loads the face's scripts or stylesheets (`names`: `scripts` or `styles`)."""
        return [f"{STATIC_URL}/{self.folder or mode}/{name}" for name in names]

    def css_class(self, mode: str) -> str:
        """The class of the top bar the face draws: its folder's, so one face's style fits every mode wearing it."""
        return f"{self.folder or mode}-bar"

    def context(self, game: Game, seating: Any) -> dict[str, Any]:
        """What the face's templates read beyond the page's context (`seating`: a game of seats as the
        viewer sees it)."""
        return {}

    def owners(self, game: Game) -> dict[int, int]:
        """Cells shown in a seat's colour (a mine one seat found), by cell."""
        return {}

    def last_move(self, game: Game) -> frozenset[int] | None:
        """The cells the last move uncovered, marked while the game goes on; None where moves are not marked."""
        return None

    def api_part(self, game: Game) -> BaseModel | None:
        """The value of `api_field` in the game's JSON answer."""
        return None


PLAIN = Face()


def face_of(mode: str) -> Face:
    return FACES.get(mode, PLAIN)


class FaceLoader(BaseLoader):
    """Jinja's loader for the templates a registered face keeps outside templates/ (a mode the tests add),
    asked after the templates folder: "modes/<mode>/<part>.html" from the face's own folder."""

    def get_source(self, environment: Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        path = self._path(template)
        if path is None or not path.is_file():
            raise TemplateNotFound(template)
        modified = path.stat().st_mtime
        return path.read_text(), str(path), lambda: path.stat().st_mtime == modified

    def list_templates(self) -> list[str]:
        return sorted(
            f"modes/{mode}/{path.name}"
            for mode, face in FACES.items()
            if face.templates is not None
            for path in face.templates.glob("*.html")
        )

    @staticmethod
    def _path(template: str) -> Path | None:
        parts = template.split("/")
        if len(parts) != 3 or parts[0] != "modes":
            return None
        face = FACES.get(parts[1])
        return face.templates / parts[2] if face is not None and face.templates is not None else None


class FaceFiles(StaticFiles):
    """The static files, and after them the scripts and stylesheets a registered face keeps outside static/
    (a mode the tests add): "modes/<folder>/<name>" from the face's own folder, for a name it declares."""

    def lookup_path(self, path: str) -> tuple[str, os.stat_result | None]:
        found = super().lookup_path(path)
        if found[1] is not None:
            return found
        own = self._path(path)
        return (str(own), own.stat()) if own is not None and own.is_file() else found

    @staticmethod
    def _path(path: str) -> Path | None:
        parts = path.split("/")
        if len(parts) != 3 or parts[0] != "modes":
            return None
        for mode, face in FACES.items():
            if face.static is not None and (face.folder or mode) == parts[1] and parts[2] in face.scripts + face.styles:
                return face.static / parts[2]
        return None


# The faces build on Face, above: imported once it exists.
from app.web.faces.flags import FlagsFace  # noqa: E402
from app.web.faces.help import HelpFace  # noqa: E402

FACES: dict[str, Face] = {"flags": FlagsFace(), "cruel-flags": FlagsFace("flags"), "help": HelpFace()}
