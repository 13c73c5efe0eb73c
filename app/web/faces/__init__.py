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

from jinja2 import BaseLoader, Environment, TemplateNotFound
from starlette.staticfiles import StaticFiles

from app.web.faces.base import PARTS, STATIC_URL, Face
from app.web.faces.flags import FlagsFace
from app.web.faces.help import HelpFace

__all__ = ["FACES", "PARTS", "STATIC_URL", "Face", "FaceFiles", "FaceLoader", "face_of"]

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


FACES: dict[str, Face] = {"flags": FlagsFace(), "cruel-flags": FlagsFace("flags"), "help": HelpFace()}
