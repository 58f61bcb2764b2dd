"""What the search reads off pages to answer a retrieve task: candidate answers, and what it remembers on the way.

An agent answers from what it sees. :func:`candidate_answers` lists the answers one page offers:
its texts, the contents of its lists, counts of what it shows, and, for each list or table,
its items' titles (all of them, the first few of a ranked list, those that mention a slot
value, those that share a value in one column) and the sums of the numbers and amounts of money
those items show, column by column.

What it remembers (:class:`Memory`, carried from page to page along a path, see :func:`carry`):

- the items of the earlier pages of a paginated list (same address but for its ``*_page``
  parameter), so a list spread over pages is answered as one;
- the numbers shown on a run of pages of one kind visited one after another (bill after bill,
  community after community), so a sum over records each on its own page is an answer. A run's
  numbers are aligned by where the page shows them (its element's place in the page template),
  and summed place by place;
- for a task whose answer picks one record by an order (``picks``: "which of these three
  listings is cheapest?"), the title and numbers of every page of one kind seen on the way, in
  any order, so the title of the page with the least or the greatest number at one place is an
  answer: one read off every candidate's page, not guessed from a list of titles.

:func:`collect_moves` gives the moves that make such a run: from a list, visit each of a group
of its items' pages (addresses the page shows) one after another.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from veriweb.engine import PageModel
from veriweb.engine.actions import Goto, format_action
from veriweb.engine.templates import Url
from veriweb.scaffold import Task

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_MONEY = re.compile(r"\$\s?(\d[\d,]*(?:\.\d+)?)")
_FIGURE = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![\w])")
_TEXT_ROLES = ("paragraph", "StaticText", "heading", "cell", "status")
PREFIXES = 5
"""The longest ranked prefix (the first k titles of a list) offered as an answer."""
RUN = 10
"""How many pages of one kind a run remembers."""
GROUP = 8
"""The largest group of items whose pages :func:`collect_moves` visits one after another."""
_COLUMN_VALUES = 6
"""A table column with more distinct values than this is no filter (a name, a date)."""

_Item = tuple[str, str, tuple[str, ...], str]
"""One list item: its title (first link, else first text), its folded text, its cells' texts and its
first link's address."""
_Items = tuple[_Item, ...]
_Numbers = tuple[tuple[tuple[str, str, int], str], ...]
"""Numbers a page shows: ``((element key, "$" for money or "#", position), value)``."""


@dataclass(frozen=True)
class Memory:
    """What an agent remembers along a path (see the module docstring).

    Attributes:
        listing: the paginated list being read: ``(address but for its page, last address, items)``.
        kind: the page id of the run of pages of one kind just visited.
        run: each page of that run: ``(address, numbers it shows)``, oldest first.
        picks: whether the pages seen are remembered (the task picks a record by an order).
        pages: the pages seen with a title and numbers, when ``picks``: ``(page id, address,
            title, numbers)``, oldest first, at most :data:`RUN`.
    """

    listing: tuple[Any, ...]
    kind: str
    run: tuple[tuple[str, _Numbers], ...]
    picks: bool = False
    pages: tuple[tuple[str, str, str, _Numbers], ...] = ()

    def run_key(self) -> frozenset[str] | None:
        """The addresses of the run when it spans two pages or more, and of the pages seen when
        two or more are remembered (a state remembering them differs from one that does not),
        else ``None``."""
        run = frozenset(url for url, _ in self.run) if len(self.run) >= 2 else frozenset()
        seen = frozenset(f"seen {url}" for _, url, _, _ in self.pages) if len(self.pages) >= 2 else frozenset()
        return (run | seen) or None


def carry(previous: Memory | None, page: PageModel, *, picks: bool = False) -> Memory:
    """What an agent remembers after ``previous`` on arriving at (or staying on) ``page`` (``picks``:
    remember the pages seen, see :class:`Memory`; a later call keeps what the first one said)."""
    url = Url.parse(page.url)
    key = (url.path, tuple((k, v) for k, v in url.query if not k.endswith("_page")))
    lists = items(page)
    here = lists[0] if lists else ()
    listing: tuple[Any, ...] = (key, page.url, here)
    if previous is not None and previous.listing and previous.listing[0] == key and previous.listing[1] != page.url:
        seen = {item[0] for item in previous.listing[2]}
        listing = (key, page.url, previous.listing[2] + tuple(item for item in here if item[0] not in seen))
    picks = previous.picks if previous is not None else picks
    pages = previous.pages if previous is not None else ()
    if picks and not any(address == page.url for _, address, _, _ in pages):
        title, shown = _title(page), numbers(page)
        if title and shown:
            pages = (pages + ((page.page_id, page.url, title, shown),))[-RUN:]
    if previous is not None and previous.kind == page.page_id:
        if any(address == page.url for address, _ in previous.run):
            return Memory(listing, page.page_id, previous.run, picks, pages)
        run = (previous.run + ((page.url, numbers(page)),))[-RUN:]
        return Memory(listing, page.page_id, run, picks, pages)
    return Memory(listing, page.page_id, ((page.url, numbers(page)),), picks, pages)


def _title(page: PageModel) -> str:
    """The text of the page's first visible heading outside its lists."""
    for node in page.nodes:
        if node.visible and node.role == "heading" and "[" not in node.key and (node.name or node.text):
            return node.name or node.text
    return ""


def numbers(page: PageModel) -> _Numbers:
    """The numbers and amounts of money the page shows outside its lists, by element and position."""
    out: list[tuple[tuple[str, str, int], str]] = []
    for node in page.nodes:
        if not node.visible or node.role not in _TEXT_ROLES or "[" in node.key:
            continue
        label = node.name or node.text
        if not label or not any(ch.isdigit() for ch in label):
            continue
        for index, match in enumerate(_MONEY.finditer(label)):
            out.append(((node.key, "$", index), match.group(1).replace(",", "")))
        for index, match in enumerate(_FIGURE.finditer(label)):
            out.append(((node.key, "#", index), match.group(0).replace(",", "")))
    return tuple(out)


def _first_label(node: Any) -> tuple[str, str]:
    """An item's title (its first link's text, else its first text) and its first link's address."""
    stack = list(reversed(node.children))
    fallback = ""
    while stack:
        child = stack.pop()
        if not child.visible:
            continue
        if child.role == "link" and child.name:
            return child.name, child.href or ""
        if not fallback and child.role in ("cell", "paragraph", "StaticText", "heading") and (child.name or child.text):
            fallback = child.name or child.text
        stack.extend(reversed(child.children))
    return fallback, ""


def items(page: PageModel) -> list[_Items]:
    """Each visible list's or table's items (see :data:`_Item`), header rows aside."""
    from veriweb.envs.actions import contents

    out: list[_Items] = []
    for node in page.nodes:
        if not node.visible or node.role not in ("list", "table"):
            continue
        found: list[_Item] = []
        for child in node.children:
            if not child.visible or child.role not in ("listitem", "row"):
                continue
            if any(g.role == "columnheader" for g in child.children):
                continue
            title, href = _first_label(child)
            if not title:
                continue
            cells = tuple(contents(c) for c in child.children if c.role == "cell")
            found.append((title, contents(child).casefold(), cells, href))
        if found:
            out.append(tuple(found))
    return out


def _groups(titled: _Items, task: Task) -> list[_Items]:
    """The list's items, those that mention each slot value, those that mention any, and for each
    table column with few values, the items sharing each value."""
    values = [str(v).casefold() for v in task.slots.values() if v not in (None, "") and len(str(v)) >= 2]
    groups: list[_Items] = [titled]
    mentioning = [tuple(item for item in titled if value in item[1]) for value in values]
    groups += mentioning
    groups.append(tuple(item for item in titled if any(value in item[1] for value in values)))
    width = min((len(item[2]) for item in titled), default=0)
    for column in range(width):
        shared = Counter(item[2][column] for item in titled)
        if 1 < len(shared) <= _COLUMN_VALUES:
            groups += [tuple(item for item in titled if item[2][column] == value)
                       for value, count in shared.items() if count >= 2]
    out: list[_Items] = []
    seen: set[tuple[str, ...]] = set()
    for number, group in enumerate(groups):
        titles = tuple(item[0] for item in group)
        if not group or titles in seen or (number and len(group) == len(titled)):
            continue
        seen.add(titles)
        out.append(group)
    return out


def _figures(text: str) -> tuple[list[str], list[str]]:
    return ([m.group(1).replace(",", "") for m in _MONEY.finditer(text)],
            [m.group(0).replace(",", "") for m in _FIGURE.finditer(text)])


def _total(values: list[str]) -> str:
    if all("." not in v for v in values):
        return str(sum(int(v) for v in values))
    return f"{sum(float(v) for v in values):.2f}"


def _sums(group: _Items) -> list[str]:
    """Sums over a group's items: of each one's first amount of money, of the number at each position
    of its text past the title, and of each column's amount or number."""
    out: list[str] = []
    texts = [item[1][len(item[0]):] if item[1].startswith(item[0].casefold()) else item[1] for item in group]
    read = [_figures(text) for text in texts]
    if all(money for money, _ in read):
        out.append(f"{sum(float(money[0]) for money, _ in read):.2f}")
    for position in range(3):
        if all(len(figures) > position for _, figures in read):
            out.append(_total([figures[position] for _, figures in read]))
    width = min(len(item[2]) for item in group)
    for column in range(width):
        cells = [_figures(item[2][column]) for item in group]
        if all(money for money, _ in cells):
            out.append(f"{sum(float(money[0]) for money, _ in cells):.2f}")
        elif all(len(figures) == 1 for _, figures in cells):
            out.append(_total([figures[0] for _, figures in cells]))
    return out


def list_answers(lists: list[_Items], task: Task) -> list[str]:
    """Answers from lists: for each group of items (:func:`_groups`), their titles joined with
    semicolons, the first 2 to :data:`PREFIXES` of them (a ranked list's top k), and their sums."""
    out: list[str] = []
    for titled in lists:
        for group in _groups(titled, task):
            titles = [item[0] for item in group]
            out.append("; ".join(titles))
            out += ["; ".join(titles[:k]) for k in range(2, min(PREFIXES, len(titles) - 1) + 1)]
            out += _sums(group)
    return out


def run_answers(memory: Memory | None) -> list[str]:
    """Sums, place by place, of the numbers the pages of the remembered run show."""
    if memory is None or len(memory.run) < 2:
        return []
    shown = [dict(figures) for _, figures in memory.run]
    common = [key for key, _ in memory.run[0][1] if all(key in other for other in shown[1:])]
    out = []
    for key in common:
        values = [figures[key] for figures in shown]
        out.append(f"{sum(float(v) for v in values):.2f}" if key[1] == "$" else _total(values))
    return out


def pick_answers(memory: Memory | None) -> list[str]:
    """For the pages of one kind seen (two or more), the titles of the page with the least and the
    greatest number at each place they all show one (when one page alone holds it)."""
    if memory is None or len(memory.pages) < 2:
        return []
    out: list[str] = []
    for kind in dict.fromkeys(page_id for page_id, _, _, _ in memory.pages):
        seen = [(title, dict(shown)) for page_id, _, title, shown in memory.pages if page_id == kind]
        if len(seen) < 2:
            continue
        for key in seen[0][1]:
            if not all(key in shown for _, shown in seen[1:]):
                continue
            values = [float(shown[key]) for _, shown in seen]
            for extreme in (min(values), max(values)):
                if values.count(extreme) == 1 and min(values) < max(values):
                    out.append(seen[values.index(extreme)][0])
    return list(dict.fromkeys(out))


def titles_read(page: PageModel, memory: Memory | None) -> set[str]:
    """The titles whose figures have been read (folded): of the pages remembered for a pick, and of the
    items of this page's lists that show a number beside their title."""
    read = {title.strip().casefold() for _, _, title, _ in (memory.pages if memory is not None else ())}
    for found in items(page):
        for title, text, _, _ in found:
            folded = title.strip().casefold()
            if _NUMBER.search(text.replace(folded, " ", 1)):
                read.add(folded)
    return read


def picks_wanted(task: Task) -> bool:
    """Does the task's answer pick one record by an order (the cheapest, the best-rated)?"""
    query = getattr(getattr(task.answer, "value", None), "query", None) if task.answer is not None else None
    return (task.kind == "retrieve" and query is not None and query.agg is None and bool(query.order_by)
            and task.answer is not None and task.answer.type == "text")


def candidate_answers(page: PageModel, task: Task, memory: Memory | None = None) -> list[str]:
    """Answers drawn from the page and what is remembered (see the module docstring), without repeats."""
    from veriweb.envs.actions import contents

    texts: list[str] = []
    counts: Counter[str] = Counter()
    for node in page.nodes:
        if not node.visible:
            continue
        label = node.name or node.text
        if label and node.role in ("paragraph", "StaticText", "heading", "link", "cell", "option", "listitem",
                                   "status", "columnheader"):
            texts.append(label)
            counts[label] += 1
        if node.role in ("list", "table"):
            rows = [c for c in node.children if c.role in ("listitem", "row")]
            counts[f"#{len(rows) - (1 if node.role == 'table' else 0)}"] += 1
            texts.append(contents(node))
    lists = items(page)
    if memory is not None and memory.listing and lists and len(memory.listing[2]) > len(lists[0]):
        lists.insert(0, memory.listing[2])
    texts += list_answers(lists, task)
    texts += run_answers(memory)
    texts += pick_answers(memory)
    found = {str(n) for n in counts.values()} | {key[1:] for key in counts if key.startswith("#")}
    for text in texts:
        found.update(_NUMBER.findall(text))
    seen: set[str] = set()
    out = []
    for candidate in [*texts, *sorted(found, key=lambda x: (len(x), x)), *(str(v) for v in task.slots.values())]:
        if candidate and candidate not in seen:
            seen.add(candidate)
            out.append(candidate)
    return out


def collect_moves(page: PageModel, task: Task) -> list[tuple[str, ...]]:
    """Moves that visit, one after another, the pages of each group of a list's items (2 to
    :data:`GROUP` of them, see :func:`_groups`): ``goto`` each item's link as the page shows it."""
    out: list[tuple[str, ...]] = []
    seen: set[tuple[str, ...]] = set()
    for titled in items(page):
        for group in _groups(titled, task):
            hrefs = tuple(dict.fromkeys(item[3] for item in group if item[3].startswith("/") and item[3] != page.url))
            if not 2 <= len(hrefs) <= GROUP or len(hrefs) != len(group) or hrefs in seen:
                continue
            seen.add(hrefs)
            out.append(tuple(format_action(Goto(href)) for href in hrefs))
    return out


def sums_wanted(task: Task) -> bool:
    """Is the task's answer a number or an amount (so a run of pages may add up to it)?"""
    return task.kind == "retrieve" and task.answer is not None and task.answer.type in ("number", "currency")


__all__ = ["GROUP", "Memory", "PREFIXES", "RUN", "candidate_answers", "carry", "collect_moves", "items",
           "list_answers", "numbers", "pick_answers", "picks_wanted", "run_answers", "sums_wanted",
           "titles_read"]
