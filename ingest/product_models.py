"""A product's model words read as one product: a line after the line is another product.

"my iphone ipad and macbook", "a toyota corolla camry": the product regex of `ingest.relation_products`
takes a line after a maker as the model ("honda civic", "2016 honda civic"), so it also runs on into a
second line; `one_line` ends the product before it ("iPhone", "Toyota Corolla"), but for a line's model
that is a line too ("Specialized Allez").
"""

from __future__ import annotations

from ingest.product_lines import PRODUCT_LINES

__all__ = ["one_line"]

_TIERS = frozenset({"pro", "max", "plus", "mini", "ultra", "air", "se", "lite", "fe"})
"""Model words that are lines' tiers, never another product ("iphone 13 mini")."""


def one_line(product: str, line_start: int, line_end: int) -> str:
    """``product`` up to the first word after its line (words ``[line_start:line_end]``) that is itself a
    line; the word right after a line said first is its model when both are lines of one kind of thing
    ("Specialized Allez", "Trek Domane"), never after a maker ("Toyota Corolla Camry" is two cars)."""
    said = product.split()
    first = all(w.isdigit() for w in said[:line_start])
    kind = PRODUCT_LINES.get(" ".join(said[line_start:line_end]).lower())
    for i in range(line_end, len(said)):
        word = said[i].lower()
        if word not in PRODUCT_LINES or word in _TIERS or any(c.isdigit() for c in word):
            continue
        if not (first and i == line_end and PRODUCT_LINES[word] == kind):
            return " ".join(said[:i])
    return product
