"""Every colour pair the stylesheet puts together meets WCAG 2.2 AA, in the light and the dark scheme:
4.5:1 for text, 3:1 for the shapes a player must tell apart (issue 9 #13).

The stylesheet names each colour once per scheme, as a custom property; rules use only the names.
So the pairs are listed here by name, and a colour added without a pair, or written into a rule,
fails the test."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parent.parent / "static"
STYLESHEET = STATIC / "kaboom.css"
# Swagger UI's overrides on /docs: kaboom.css's names only, so their pairs are checked here too.
OVERRIDES = STATIC / "docs.css"
TEXT, SHAPE = 4.5, 3.0

# (foreground, background, minimum, where the page puts them together)
PAIRS = [
    ("fg", "bg", TEXT, "text on the page"),
    ("fg", "panel", TEXT, "text on buttons, fields and the game list"),
    ("muted", "bg", TEXT, "labels, the footer"),
    ("muted", "panel", TEXT, "the game list's dates"),
    ("accent", "bg", TEXT, "links and hints"),
    ("accent", "panel", TEXT, "links on the new-game form"),
    ("danger", "bg", TEXT, "refusals and a lost game's result line"),
    ("danger", "panel", TEXT, "a refusal beside a field"),
    ("ok", "bg", TEXT, "a won game's result line"),
    ("ok", "panel", TEXT, "a won game in the game list"),
    ("on-accent", "accent", TEXT, "a pressed button (Flag mode)"),
    ("control-line", "bg", SHAPE, "the edges of buttons and fields"),
    ("control-line", "panel", SHAPE, "the edges of fields inside the form"),
    ("accent", "bg", SHAPE, "the focus ring"),
    *[(f"n{n}", "open", TEXT, f"the number {n}") for n in range(1, 9)],
    ("danger", "open", TEXT, "a countdown number below zero"),
    ("covered", "open", SHAPE, "a covered cell beside an open one"),
    ("line", "covered", SHAPE, "the gap between two covered cells"),
    ("fg", "covered", TEXT, "a question mark"),
    ("flag", "covered", SHAPE, "a flag"),
    ("fg", "open", SHAPE, "a mine shown at the end, and the keyboard cursor on an open cell"),
    ("fg", "covered", SHAPE, "the keyboard cursor on a covered cell"),
    ("on-danger", "danger", SHAPE, "the mine that exploded"),
    ("hl", "covered", SHAPE, "the ring round a hinted cell, and round a cell that could have been proven safe"),
    ("proof", "open", SHAPE, "the ring round a number that proves a hint"),
    ("fg", "safe", SHAPE, "the overlay's tick on a proven-safe cell"),
    ("fg", "mine", SHAPE, "the overlay's cross on a proven mine"),
    ("flag", "mine", SHAPE, "a flag on a proven mine, overlay on"),
    ("flag", "safe", SHAPE, "a flag on a proven-safe cell, overlay on (hatched)"),
    *[
        pair
        for n in range(6)
        for pair in (
            (f"p{n}", "open", SHAPE, "a covered cell coloured by its mine probability, beside an open one"),
            ("flag", f"p{n}", SHAPE, "a flag on a cell coloured by its mine probability"),
            ("fg", f"p{n}", TEXT, "a question mark on a cell coloured by its mine probability"),
            ("line", f"p{n}", SHAPE, "the gap between two coloured cells"),
            ("hl", f"p{n}", SHAPE, "the ring round the safest cells"),
        )
    ],
    ("bg", "fg", TEXT, "a cell's mine probability, shown over it"),
    *[
        pair
        for seat in ("seat0", "seat1")
        for pair in (
            (seat, "bg", TEXT, "a Flags seat's score and turn"),
            (seat, "panel", TEXT, "a Flags seat's line in the panel"),
            ("on-seat", seat, SHAPE, "the flag on a mine a Flags seat found"),
            (seat, "open", SHAPE, "a found mine beside an open cell"),
            ("line", seat, SHAPE, "the gap between two found mines"),
        )
    ],
]
PAIRS += [
    pair
    for member in (f"m{colour}" for colour in range(8))
    for pair in (
        (member, "panel", SHAPE, "a room member's dot and progress"),
        (member, "open", SHAPE, "a member's last move ringed on an open cell"),
        (member, "bg", SHAPE, "a member's dot on the page"),
        ("on-seat", member, TEXT, "an operation's method on /docs (static/docs.css)"),
    )
]
# Colours that carry nothing a player must read: no contrast is asked of them.
DECORATION = {"shadow"}

COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}\b|\b(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\(")
DECLARATION = re.compile(r"--([\w-]+)\s*:\s*([^;]+);")


def without_comments(css: str) -> str:
    return re.sub(r"/\*.*?\*/", "", css, flags=re.S)


def schemes() -> dict[str, dict[str, str]]:
    """The colour of every name in each scheme: the dark one is the light one with its overrides."""
    css = without_comments(STYLESHEET.read_text())
    dark_at = css.index("@media (prefers-color-scheme: dark)")
    light_block = css[css.index(":root") : dark_at]
    dark_block = css[dark_at : css.index("}\n}", dark_at)]
    light = dict(DECLARATION.findall(light_block))
    dark = {**light, **dict(DECLARATION.findall(dark_block))}
    colours = lambda names: {name: value.strip() for name, value in names.items() if COLOUR.search(value)}  # noqa: E731
    return {"light": colours(light), "dark": colours(dark)}


def luminance(colour: str) -> float:
    digits = colour.lstrip("#")
    assert len(digits) == 6, f"{colour}: write pair colours as #rrggbb"

    def linear(channel: int) -> float:
        value = channel / 255
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (linear(int(digits[i : i + 2], 16)) for i in (0, 2, 4))
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(first: str, second: str) -> float:
    lighter, darker = sorted((luminance(first), luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def test_the_formula_matches_wcag_examples():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_colour_pair_meets_aa(scheme):
    colours = schemes()[scheme]
    failures = [
        f"--{fg} on --{bg} ({where}): {contrast(colours[fg], colours[bg]):.2f}:1, needs {minimum}:1"
        for fg, bg, minimum, where in PAIRS
        if contrast(colours[fg], colours[bg]) < minimum
    ]
    assert failures == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_colour_has_its_pairs(scheme):
    paired = {name for fg, bg, _, _ in PAIRS for name in (fg, bg)}
    assert set(schemes()[scheme]) - DECORATION == paired


# The faces' own stylesheets (static/modes/) colour their parts with the same names.
FACE_STYLESHEETS = sorted((STATIC / "modes").rglob("*.css"))


@pytest.mark.parametrize("stylesheet", [STYLESHEET, OVERRIDES, *FACE_STYLESHEETS], ids=lambda path: path.name)
def test_rules_use_only_the_named_colours(stylesheet):
    css = without_comments(stylesheet.read_text())
    literal = [line.strip() for line in css.splitlines() if COLOUR.search(line) and not DECLARATION.search(line)]
    assert literal == []
