"""The argument strings of discrete actions: what a task's instruction says, and what a page shows.

A compact policy never generates free text: it points. Its text arguments come from two places.

- **Task strings** (fixed for an episode): the slot values the instruction names, in the order
  the template uses them; then their other written forms (a date's ISO form ``2026-06-20``, an
  amount without its currency sign ``59.99``, a number without thousands separators); then the
  runs of consecutive words inside each slot value (``"telescope"`` or ``"page is slow"`` of a
  title), as a person types a keyword from the instruction into a search box: first those that
  leave out one or two words, then runs of up to three words, then the rest;
  last, runs of two and three words of the instruction's own text (``"a damaged item"``).
- **Page strings** (per page): the text of each row of the observation's element table, and, for
  answers, the first number or amount in a row's text, the texts inside a container, the
  link texts inside a container (a list answer), and the parts of a row's text between
  separators (``"Uma Nguyen"`` of ``"Uma Nguyen · Archived · Read"``, ``"Brussels"`` of
  ``"Brussels → Nice"``).
- **Edited addresses** (for ``goto``): a link's address with its last part replaced by a task
  string or a note (:func:`edited_address`: ``/mail/Inbox`` and ``"Bin"`` give ``/mail/Bin``),
  as a person edits the address bar to reach a page no link here points to.
- **Notes** (per episode): what the agent chose to remember with the ``note`` action (any of the
  pointers above, taken on the page it was on), so a value read on one page can be typed or
  answered on another; and two aggregates over the notes kept, for answers that no one page
  shows: their list (:func:`notes_list`) and the total of their numbers (:func:`notes_total`).

Everything here is a pure function of the task or the page, so it can be memoised on them.
"""

from __future__ import annotations

import datetime as dt
import re
import string
from collections.abc import Iterable
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

from veriweb.engine.answers import parse_date, parse_money
from veriweb.engine.page import Node
from veriweb.scaffold import Task

_NUMBER = re.compile(r"[-\u2212]?(?:US\$|\$|€|£)?\d[\d,]*(?:\.\d+)?")
_WORD = re.compile(r"\S+")
_CLAUSE = re.compile(r"[.,;:!?()\"']")
_PARTS = re.compile(r"\s+[·|•—→]\s+")
_MAX_SPAN_WORDS = 12  # longer values contribute only their prefixes and suffixes


def slot_order(template: str) -> list[str]:
    """The slot names in the order the template uses them (first use)."""
    names: list[str] = []
    for _, name, _, _ in string.Formatter().parse(template):
        if name and name not in names:
            names.append(name)
    return names


def other_forms(value: str, today: dt.date) -> list[str]:
    """Other ways to write a slot value that a form field may want.

    Examples:
        ``"June 28"`` -> ``["2026-06-28"]``; ``"$1,299.00"`` -> ``["1299.00", "1,299.00"]``;
        ``"80,812"`` -> ``["80812"]``.
    """
    forms: list[str] = []
    day = parse_date(value, today)
    if day is not None:
        forms.append(day.isoformat())
    stripped = value.strip()
    if re.fullmatch(r"(?:US\$|\$|€|£)\s*\d[\d,]*(?:\.\d+)?", stripped):
        bare = re.sub(r"^(?:US\$|\$|€|£)\s*", "", stripped)
        forms += [bare.replace(",", ""), bare]
    elif re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", stripped):
        forms.append(stripped.replace(",", ""))
    return [f for f in forms if f != value]


def word_runs(value: str) -> list[str]:
    """The runs of consecutive words of ``value`` (not the whole of it), longest first.

    Punctuation at a run's ends is dropped; runs of one word keep words of three letters or more.
    """
    words = _WORD.findall(value)
    n = len(words)
    if n < 2:
        return []
    runs: list[str] = []
    for length in range(n - 1, 0, -1):
        starts = range(n - length + 1) if n <= _MAX_SPAN_WORDS or length <= 3 else (0, n - length)
        for start in starts:
            run = " ".join(words[start:start + length]).strip(string.punctuation + "\u2019\u2018\"")
            if run and (length > 1 or (len(run) >= 3 and any(c.isalpha() for c in run))):
                runs.append(run)
    return runs


def task_strings(task: Task, today: dt.date, limit: int) -> list[str]:
    """The task strings of ``task`` (see the module docstring), distinct, at most ``limit``."""
    values = [str(task.slots[name]) for name in slot_order(task.template) if name in task.slots]
    ordered: list[str] = []
    ordered += values
    for value in values:
        ordered += other_forms(value, today)
    runs = [(run, len(value.split()) - len(run.split()), len(run.split())) for value in values for run in word_runs(value)]
    ordered += [run for run, dropped, _ in runs if dropped <= 2]  # the value less a word or two
    ordered += [run for run, dropped, length in runs if dropped > 2 and length <= 3]  # keywords
    ordered += [run for run, dropped, length in runs if dropped > 2 and length > 3]
    for literal, _, _, _ in string.Formatter().parse(task.template):  # the instruction's own words
        for phrase in _CLAUSE.split(literal or ""):
            words = _WORD.findall(phrase)
            ordered += [" ".join(words[i:i + n]) for n in (3, 2) for i in range(len(words) - n + 1)]
    return _distinct(ordered, limit)


def _distinct(items: Iterable[str], limit: int) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        if item and item not in seen:
            seen.add(item)
            out.append(item)
            if len(out) == limit:
                break
    return out


def node_text(node: Node) -> str:
    """What a row shows: its name, else its text."""
    return node.name or node.text or ""


def first_number(text: str) -> str:
    """The first number or amount written in ``text`` (``""`` if none), as written."""
    found = _NUMBER.search(text)
    return found.group(0) if found else ""


def parts(text: str) -> list[str]:
    """The parts of a row's text between separators (``" · "``, ``" | "``, ``" — "``, ``" → "``)."""
    return [part.strip() for part in _PARTS.split(text) if part.strip()]


def contents(node: Node) -> str:
    """The texts inside a node, comma-separated (links, text and cells, in order)."""
    return ", ".join(_inside(node, ("link", "paragraph", "StaticText", "cell", "heading")))


def link_texts(node: Node) -> str:
    """The texts of the links inside a node, comma-separated (a list answer)."""
    return ", ".join(_inside(node, ("link",)))


def _inside(node: Node, roles: tuple[str, ...]) -> list[str]:
    parts: list[str] = []
    stack = list(reversed(node.children))
    while stack:
        child = stack.pop()
        label = child.name or child.text
        if child.visible and label and child.role in roles:
            parts.append(label)
        elif child.visible:
            stack.extend(reversed(child.children))
    return parts


def same_amount(typed: str, shown: str) -> bool:
    """Whether two strings write the same amount (``"135.99"`` and ``"$135.99"``)."""
    if not re.fullmatch(r"\s*(?:US\$|\$|€|£)?\s*\d[\d,]*(?:\.\d+)?\s*", shown):
        return False
    a, b = parse_money(typed), parse_money(shown)
    return a is not None and a == b


# ---------------------------------------------------------------------- rows of a table or list

_ROWS = ("row", "listitem")
_LEADING = re.compile(r"^\s*[-\u2212]?(?:US\$|\$|€|£)?\d[\d,]*(?:\.\d+)?")


def _row_of(node: Node) -> tuple[Node, int] | None:
    """The row (or list item) holding ``node``, and the index of the row's child that holds it."""
    child, current = node, node.parent
    if node.role in _ROWS:
        return None
    while current is not None:
        if current.role in _ROWS:
            return current, current.children.index(child)
        child, current = current, current.parent
    return None


def _data_rows(row: Node) -> list[Node]:
    parent = row.parent
    siblings = parent.children if parent is not None else [row]
    return [r for r in siblings if r.role == row.role and r.visible
            and not any(c.role == "columnheader" for c in r.children)]


def _first_text(node: Node) -> str:
    found = _inside(node, ("link", "paragraph", "StaticText", "cell", "heading")) if node.children else []
    return found[0] if found else (node.name or node.text or "")


def rows_up_to(node: Node) -> str:
    """The first texts of the rows from the first one down to the row holding ``node``
    (a top-k answer: point at the k-th row)."""
    found = _row_of(node)
    if found is None:
        return ""
    rows = _data_rows(found[0])
    if found[0] not in rows:
        return ""
    return ", ".join(_first_text(r) for r in rows[:rows.index(found[0]) + 1])


def _same(node: Node) -> list[Node]:
    """The rows whose cell in ``node``'s column shows the same text as ``node``'s cell."""
    found = _row_of(node)
    if found is None:
        return []
    row, column = found
    wanted = " ".join(_inside(row.children[column], ("link", "paragraph", "StaticText"))) or node_text(node)
    same = []
    for other in _data_rows(row):
        if len(other.children) > column:
            cell = other.children[column]
            if (" ".join(_inside(cell, ("link", "paragraph", "StaticText"))) or node_text(cell)) == wanted:
                same.append(other)
    return same


def same_rows(node: Node) -> str:
    """The first texts of the rows that share ``node``'s value in its column (a selection)."""
    rows = _same(node)
    return "; ".join(_first_text(r) for r in rows) if rows and _row_of(node)[1] > 0 else ""  # type: ignore[index]


def same_rows_total(node: Node) -> str:
    """The total of the rows that share ``node``'s value in its column: in each, the number a
    later cell starts with (``"6 points · 2 comments"`` gives 6)."""
    found = _row_of(node)
    if found is None:
        return ""
    total, money, seen = 0.0, False, False
    for row in _same(node):
        for cell in row.children[1:]:
            if cell is row.children[found[1]]:
                continue
            text = " ".join(_inside(cell, ("link", "paragraph", "StaticText"))) or node_text(cell)
            leading = _LEADING.match(text)
            if leading:
                number = leading.group(0).strip()
                money = money or any(c in number for c in "$€£")
                total += float(re.sub(r"[^\d.\-]", "", number.replace("\u2212", "-")))
                seen = True
                break
    if not seen:
        return ""
    return f"${total:,.2f}" if money else (str(int(total)) if total.is_integer() else f"{total:g}")


# ---------------------------------------------------------------------- pointers into a row

ELEMENT, CONTENTS, NUMBER, LINKS = 0, 1, 2, 3
PART = 4
"""``PART + k``: the k-th part of a row's text (see :func:`parts`)."""
MAX_PARTS = 6
UP_TO, SAME, SAME_TOTAL = PART + MAX_PARTS, PART + MAX_PARTS + 1, PART + MAX_PARTS + 2
POINTERS = SAME_TOTAL + 1
POINTER_NAMES = ("element", "contents", "number", "links", *(f"part {k}" for k in range(MAX_PARTS)), "up to", "same",
                 "same total")
"""The names of the pointer arguments, by index (as written in ``note(bid, <name>)``)."""
CONTAINERS = ("list", "listitem", "row", "table", "cell", "group", "region", "main", "article")
"""Roles whose ``<contents>`` and ``<links>`` are offered."""
TEXT_ROLES = ("paragraph", "StaticText", "heading", "link", "cell", "option", "listitem", "status", "alert",
              "columnheader", "button", "list", "table", "row")
"""Roles an answer or a note may point at."""
def pointer_text(node: Node, arg: int) -> str:
    """The text pointer ``arg`` (``ELEMENT`` ... ``SAME_TOTAL``) takes from ``node``."""
    if arg == ELEMENT:
        return node_text(node)
    if arg == CONTENTS:
        return contents(node)
    if arg == NUMBER:
        return first_number(node_text(node))
    if arg == LINKS:
        return link_texts(node)
    if arg == UP_TO:
        return rows_up_to(node)
    if arg == SAME:
        return same_rows(node)
    if arg == SAME_TOTAL:
        return same_rows_total(node)
    pieces = parts(node_text(node))
    return pieces[arg - PART] if 0 <= arg - PART < len(pieces) else ""


def pointer_texts(node: Node) -> list[tuple[int, str]]:
    """The pointers that give ``node`` a non-empty text, with the texts: its own text, its first
    number, its parts, for containers its links and contents, and the row pointers."""
    own = node_text(node)
    options = [(ELEMENT, own), (NUMBER, first_number(own))]
    options += [(PART + k, piece) for k, piece in enumerate(parts(own)[:MAX_PARTS])]
    if node.role in CONTAINERS:
        options += [(LINKS, link_texts(node)), (CONTENTS, contents(node))]
    options += [(UP_TO, rows_up_to(node)), (SAME, same_rows(node)), (SAME_TOTAL, same_rows_total(node))]
    return [(arg, text) for arg, text in options if text]


def can_note(node: Node) -> bool:
    """Whether the ``note`` (and ``send``) types may point at ``node``: visible text."""
    return node.visible and node.role in TEXT_ROLES


# ---------------------------------------------------------------------- addresses


def edited_address(href: str, text: str) -> str:
    """A link's address with its last part edited to ``text``: the value of its last query
    parameter if it has one, else its last path segment.

    Examples:
        ``("/mail/Inbox", "Bin")`` -> ``"/mail/Bin"``; ``("/search?q=shoes", "red hat")`` ->
        ``"/search?q=red+hat"``; ``("/", "Bin")`` -> ``"/Bin"``.
    """
    parts_ = urlsplit(href)
    query = parse_qsl(parts_.query, keep_blank_values=True)
    if query:
        return f"{parts_.path}?{urlencode([*query[:-1], (query[-1][0], text)])}"
    head = parts_.path.rsplit("/", 1)[0] if "/" in parts_.path else ""
    return f"{head}/{quote(text)}"


def same_address(a: str, b: str) -> bool:
    """Whether two addresses name the same page (the same path, unquoted, and the same query)."""
    x, y = urlsplit(a), urlsplit(b)
    return unquote(x.path) == unquote(y.path) and sorted(parse_qsl(x.query)) == sorted(parse_qsl(y.query))


# ---------------------------------------------------------------------- notes


def number_value(text: str) -> tuple[float, bool] | None:
    """The first number or amount in ``text`` as (value, whether it is money); ``None`` if none."""
    found = first_number(text)
    if not found:
        return None
    money = any(c in found for c in "$€£")
    return float(re.sub(r"[^\d.\-]", "", found.replace("\u2212", "-"))), money


def notes_list(notes: Iterable[str]) -> str:
    """The notes as one list answer, in the order they were taken (``"A, B, C"``)."""
    return ", ".join(note for note in notes if note)


def notes_total(notes: Iterable[str]) -> str:
    """The total of the first number or amount of each note (``""`` if no note has one).

    Written as an amount (``"$1,299.50"``) when any of the numbers is one, else as a plain
    number (``"65"``, ``"2.5"``).

    Examples:
        ``["Amount due: $44.81", "$56.99"]`` -> ``"$101.80"``; ``["6 points", "25"]`` -> ``"31"``.
    """
    values = [found for found in map(number_value, notes) if found is not None]
    if not values:
        return ""
    cents = sum(round(value * 100) for value, _ in values)
    if any(money for _, money in values):
        return f"{'-' if cents < 0 else ''}${abs(cents) // 100:,}.{abs(cents) % 100:02d}"
    return str(cents // 100) if cents % 100 == 0 else f"{cents / 100:g}"
