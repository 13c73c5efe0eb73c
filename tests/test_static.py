"""The vendored front end: the pinned htmx, and a page that needs no inline script."""

import hashlib
import re
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "static"


def test_htmx_is_the_pinned_2_0_release():
    source = (STATIC / "htmx.min.js").read_bytes()
    assert re.search(rb'version:"2\.0\.\d+"', source)
    assert hashlib.sha256(source).hexdigest() in (STATIC / "VENDORED.md").read_text()


def test_the_sse_extension_is_the_pinned_release_with_its_licence():
    version = re.search(r"^HTMX_SSE_VERSION \?= (\S+)$", (STATIC.parent / "Makefile").read_text(), re.M).group(1)
    digest = hashlib.sha256((STATIC / "htmx-ext-sse.min.js").read_bytes()).hexdigest()
    assert (
        f"| htmx-ext-sse.min.js | htmx-ext-sse (npm), dist/sse.min.js | {version} | {digest} |"
        in (STATIC / "VENDORED.md").read_text()
    )
    assert "BSD Zero Clause License" in (STATIC / "htmx-ext-sse.LICENSE").read_text()


def test_axe_core_is_the_pinned_release_with_its_licence():
    version = re.search(r"^AXE_VERSION \?= (\S+)$", (STATIC.parent / "Makefile").read_text(), re.M).group(1)
    vendored = STATIC.parent / "tests" / "vendor" / "axe-core"
    source = (vendored / "axe.min.js").read_bytes()
    assert source.startswith(f"/*! axe v{version}".encode())
    digest = hashlib.sha256(source).hexdigest()
    assert (
        f"| ../tests/vendor/axe-core/axe.min.js | axe-core (npm) | {version} | {digest} |"
        in (STATIC / "VENDORED.md").read_text()
    )
    assert "Mozilla Public License" in (vendored / "LICENSE").read_text()


def test_templates_have_no_inline_scripts_or_handlers():
    for template in (STATIC.parent / "templates").glob("*.html"):
        text = template.read_text()
        # A script is a file (src=); a JSON block is data the script reads (the page's words), never run.
        assert not re.search(r"<script(?![^>]*\b(src=|type=\"application/json\"))", text), template
        assert not re.search(r"\s(on\w+|hx-on[:\w-]*)=", text), template
