"""Figures a page states in words against the figures its SQL uses (C006).

An author states the rules of a page in its text ("Shipping: standard $5.00, express $15.00",
"Everything here is under $20", "Checked baggage, $35 per traveller", "products with fewer than
5 units in stock") and writes them again, as constants, in the SQL that applies them. When the
two disagree, users and tasks read one figure and the site charges or lists by another.

Two kinds of statement are read:

- an amount tied to a choice of a form on the page (an option's label, the field's label, or a
  clause of the page's text naming the option's value): it must be one of the amounts the
  form's marker writes for that choice (``CASE :shipping WHEN 'express' THEN 1500``,
  ``CASE WHEN :bag THEN 3500 ELSE 0``);
- a bound ("under $20", "fewer than 5 units") on a page whose list filters with a bound in the
  same direction: the two must be the same number.

The repair (:func:`veriweb.verify.repair_pages.fix_stated_figure`) rewrites the words to the SQL's
figure, except where the SQL cannot be the figure meant: a ``CASE`` whose branches all write the
same amount ignores the choice it tests, and then takes the stated amount.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from veriweb.scaffold import Site
from veriweb.verify import checks as C
from veriweb.verify.checks_views import _words

_MONEY = re.compile(r"\$\s?(\d[\d,]*(?:\.\d\d)?)")
_BOUND = re.compile(r"\b(under|below|less than|fewer than|at most|up to|over|above|more than|at least)\s+"
                    r"(\$\s?)?(\d[\d,]*(?:\.\d\d)?)", re.I)
_BELOW = {"under", "below", "less than", "fewer than", "at most", "up to"}
_CASE_PARAM = re.compile(r"CASE\s+:(\w+)\s+((?:WHEN\s+'[^']*'\s+THEN\s+-?\d+\s+)+)(?:ELSE\s+(-?\d+)\s+)?END", re.I)
_CASE_TEST = re.compile(r"CASE\s+WHEN\s+:(\w+)(?:\s*=\s*(?:1|'[^']*'))?\s+THEN\s+(-?\d+)\s+ELSE\s+(-?\d+)\s+END", re.I)


@dataclass(frozen=True)
class StatedFix:
    """One disagreement: the text's place and what it says, and the fix (new text, or new SQL at ``sql_at``)."""

    location: str
    message: str
    text: str = ""
    sql_at: str = ""
    sql: str = ""


def _cents(text: str) -> int:
    return round(float(text.replace(",", "")) * 100)


def _amounts(site: Site, marker_name: str) -> Iterator[tuple[str, str | None, list[int], str, str]]:
    """``(param, choice or None, amounts written, effect path, sql)`` for each ``CASE`` over a parameter
    in the marker's effects (``choice``: the option value a branch is for; ``None`` for a yes/no test,
    whose amounts are those of its true branch and its else)."""
    for m_index, marker in enumerate(site.markers):
        if marker.name != marker_name:
            continue
        for e_index, effect in enumerate(marker.effects):
            where = f"$.markers[{m_index}].effects[{e_index}].sql"
            for match in _CASE_PARAM.finditer(effect.sql):
                for choice, amount in re.findall(r"WHEN\s+'([^']*)'\s+THEN\s+(-?\d+)", match.group(2), re.I):
                    yield match.group(1), choice.lower(), [int(amount)], where, effect.sql
            for match in _CASE_TEST.finditer(effect.sql):
                yield match.group(1), None, [int(match.group(2)), int(match.group(3))], where, effect.sql


def _param_of(form: Any, field: str) -> str | None:
    """The marker parameter a form's field fills."""
    for name, value in form.action.args.items():
        if getattr(value, "ref", None) == f"field.{field}":
            return name
    return None


def _page_texts(page: Any, path: str) -> Iterator[tuple[str, str]]:
    for element, here in C.walk(page.elements, path):
        if element.type in ("text", "heading", "paragraph") and isinstance(getattr(element, "text", None), str):
            yield here + ".text", element.text


def _choice_figures(site: Site) -> Iterator[StatedFix]:
    for p_index, page in enumerate(site.pages):
        base = f"$.pages[{p_index}].elements"
        texts = list(_page_texts(page, base))
        for form, path in C.walk(page.elements, base):
            if form.type != "form" or form.action.kind != "marker":
                continue
            facts = list(_amounts(site, form.action.marker))
            if not facts:
                continue
            for f_index, field in enumerate(form.fields):
                param = _param_of(form, field.name)
                mine = [f for f in facts if f[0] == param]
                if not mine:
                    continue
                stated: list[tuple[str, str, int, int, str | None]] = []  # (place, text, clause span, choice)
                for o_index, option in enumerate(getattr(field, "options", []) or []):
                    stated.append((f"{path}.fields[{f_index}].options[{o_index}].label", option.label, 0,
                                   len(option.label), option.value.lower()))
                    for place, text in texts:
                        start = 0
                        for cut in [*re.finditer(r"[,;.](?:\s+|$)|\s+and\s+", text), None]:
                            end = cut.start() if cut is not None else len(text)
                            if option.value.lower() in _words(text[start:end]) and _MONEY.search(text[start:end]):
                                stated.append((place, text, start, end, option.value.lower()))
                            start = cut.end() if cut is not None else end
                if field.type == "checkbox" and isinstance(field.label, str):
                    stated.append((f"{path}.fields[{f_index}].label", field.label, 0, len(field.label), None))
                for place, text, start, end, choice in stated:
                    money = _MONEY.search(text, start, end)
                    if money is None:
                        continue
                    said = _cents(money.group(1))
                    written = [f for f in mine if f[1] == choice]
                    if not written or any(said in f[2] for f in written):
                        continue
                    _, _, amounts, sql_at, sql = written[0]
                    if len(set(amounts)) == 1 and choice is None:
                        # a yes/no CASE writing the same amount both ways ignores its test: the SQL is wrong
                        fixed = re.sub(rf"(CASE\s+WHEN\s+:{param}\b[^T]*THEN\s+)-?\d+", rf"\g<1>{said}", sql, count=1,
                                       flags=re.I)
                        yield StatedFix(place, f"{text!r} states {money.group(0)}, but {form.action.marker} writes "
                                               f"{amounts[0]} either way for {param}", sql_at=sql_at, sql=fixed)
                        continue
                    amount = amounts[0]
                    new = text[:money.start(1)] + f"{amount / 100:.2f}" + text[money.end(1):]
                    yield StatedFix(place, f"{text!r} states {money.group(0)} for {choice or param}, but "
                                           f"{form.action.marker} writes {amount} cents for it", text=new)


def _bound_figures(site: Site) -> Iterator[StatedFix]:
    money = {(t.name, c.name) for t in site.database.tables for c in t.columns if c.type == "money"}
    for p_index, page in enumerate(site.pages):
        base = f"$.pages[{p_index}].elements"
        bounds: list[tuple[str, bool, Any, bool]] = []  # (column, below, value, money)
        for element, _ in C.walk(page.elements, base):
            query = getattr(element, "query", None) if element.type in ("list", "table") else None
            for cond in getattr(query, "where", []) or []:
                if cond.op in ("<", "<=", ">", ">=") and isinstance(cond.value, (int, float)) \
                        and not isinstance(cond.value, bool):
                    bounds.append((cond.column, cond.op.startswith("<"), cond.value,
                                   (query.table, cond.column) in money or cond.column in ("price", "total", "amount")))
        if not bounds:
            continue
        for place, text in _page_texts(page, base):
            for match in _BOUND.finditer(text):
                below = match.group(1).lower() in _BELOW
                is_money = bool(match.group(2))
                said = _cents(match.group(3)) if is_money else float(match.group(3).replace(",", ""))
                same = [b for b in bounds if b[1] == below and b[3] == is_money]
                if len(same) != 1 or same[0][2] == said:
                    continue
                column, _, value, _ = same[0]
                shown = f"{value / 100:.2f}".removesuffix(".00") if is_money else f"{value:g}"
                new = text[:match.start(3)] + shown + text[match.end(3):]
                yield StatedFix(place, f"{text!r} says {match.group(0)!r}, but the page lists rows with "
                                       f"{column} {'<' if below else '>'} {value}", text=new)


def stated_fixes(site: Site) -> list[StatedFix]:
    """Every finding of :func:`check_stated_figures`, with its fix."""
    return [*_choice_figures(site), *_bound_figures(site)]


def check_stated_figures(site: Site) -> list[C.Issue]:
    """C006: a figure a page states in words that its SQL contradicts (see the module docstring)."""
    seen: set[str] = set()
    issues = []
    for fix in stated_fixes(site):
        if fix.location not in seen:
            seen.add(fix.location)
            issues.append(C.Issue("consistency", C.VALUE_DISAGREES, fix.location, fix.message))
    return issues


FIGURE_CHECKS = [check_stated_figures]

__all__ = ["FIGURE_CHECKS", "StatedFix", "check_stated_figures", "stated_fixes"]
