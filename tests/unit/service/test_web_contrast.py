"""Every text colour of the /memory stylesheet against its background is WCAG AA (4.5:1).

Computed from service/web/templates/page.css itself: each rule's ``color`` against the
``background`` it sets, or, for a rule that sets only a colour, against both surfaces
text sits on (the page and the cards). A rule that sets a background must set the text
colour on it too, so no pair is left to inheritance (the red-with-blue-text button the
page once had came from a background set without its colour). Focus outlines need 3:1
against both surfaces (WCAG non-text contrast).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CSS = Path(__file__).resolve().parents[3] / "service" / "web" / "templates" / "page.css"
AA_TEXT = 4.5
AA_NON_TEXT = 3.0
RGB = tuple[int, int, int]

_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_COLOUR = re.compile(r"#[0-9a-fA-F]{3,6}\b|var\(--[\w-]+\)")


def contrast(a: RGB, b: RGB) -> float:
    """WCAG 2 contrast ratio of two sRGB colours."""

    def luminance(c: RGB) -> float:
        def channel(v: int) -> float:
            s = v / 255
            return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

        r, g, b_ = (channel(v) for v in c)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b_

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _hex(value: str) -> RGB:
    digits = value.lstrip("#")
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    return int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16)


def _rules(css: str) -> list[tuple[str, dict[str, str]]]:
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"@media[^{]*\{", "", css)  # rules inside a media query are checked like the others
    out = []
    for selector, body in _RULE.findall(css):
        decls = {}
        for decl in body.split(";"):
            if ":" in decl:
                name, _, value = decl.partition(":")
                decls[name.strip()] = value.strip()
        out.append((selector.strip(), decls))
    return out


def _palette(rules: list[tuple[str, dict[str, str]]]) -> dict[str, RGB]:
    root = next(decls for selector, decls in rules if selector == ":root")
    return {name: _hex(value) for name, value in root.items() if name.startswith("--")}


def _colour(value: str | None, palette: dict[str, RGB]) -> RGB | None:
    if value is None:
        return None
    found = _COLOUR.search(value)
    if found is None:
        return None
    token = found.group(0)
    return palette[token[4:-1]] if token.startswith("var(") else _hex(token)


def _pairs() -> list[tuple[str, RGB, RGB]]:
    """(selector, text colour, background) for every pair the stylesheet can produce."""
    rules = _rules(CSS.read_text())
    palette = _palette(rules)
    surfaces = [palette["--bg"], palette["--surface"]]
    pairs = []
    for selector, decls in rules:
        fg = _colour(decls.get("color"), palette)
        bg = _colour(decls.get("background", decls.get("background-color")), palette)
        if bg is not None:
            assert fg is not None, f"{selector} sets a background but not the text colour on it"
            pairs.append((selector, fg, bg))
        elif fg is not None:
            pairs += [(selector, fg, surface) for surface in surfaces]
    return pairs


def test_the_stylesheet_has_the_pairs_people_read() -> None:
    selectors = {selector for selector, _, _ in _pairs()}
    for needed in ("button.danger, .button.danger", "button, .button", ".meta", "nav.sections a[aria-current=page]"):
        assert needed in selectors, needed


@pytest.mark.parametrize(("selector", "fg", "bg"), _pairs(), ids=lambda v: v if isinstance(v, str) else "")
def test_text_contrast_is_aa(selector: str, fg: RGB, bg: RGB) -> None:
    ratio = contrast(fg, bg)
    assert ratio >= AA_TEXT, f"{selector}: {fg} on {bg} is {ratio:.2f}:1, below {AA_TEXT}:1"


def test_danger_buttons_are_white_on_dark_red() -> None:
    rules = dict(_rules(CSS.read_text()))
    palette = _palette(list(rules.items()))
    danger = rules["button.danger, .button.danger"]
    fg, bg = _colour(danger["color"], palette), _colour(danger["background"], palette)
    assert fg == (255, 255, 255)
    assert bg is not None and bg[0] > 2 * max(bg[1], bg[2]) and contrast(bg, (255, 255, 255)) >= 7


def test_focus_outline_is_visible_on_every_surface() -> None:
    rules = _rules(CSS.read_text())
    palette = _palette(rules)
    outlines = [(s, _colour(d["outline"], palette)) for s, d in rules if "focus" in s and "outline" in d]
    assert outlines, "no focus style"
    for selector, colour in outlines:
        assert colour is not None
        for surface in (palette["--bg"], palette["--surface"]):
            assert contrast(colour, surface) >= AA_NON_TEXT, selector


def test_contrast_formula_matches_wcag_examples() -> None:
    assert contrast((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert contrast((255, 255, 255), (255, 255, 255)) == pytest.approx(1.0)
    assert contrast(_hex("#767676"), _hex("#fff")) == pytest.approx(4.54, abs=0.01)
    # the old danger button: blue text on red
    assert contrast(_hex("#3557c8"), _hex("#b3261e")) < AA_TEXT
