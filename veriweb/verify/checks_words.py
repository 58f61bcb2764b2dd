"""What a page's words say against what it shows: labels, clauses, money and the order of a list.

- C008: a text labels a figure with the name of another column of its row ("Refunded:
  {row.total|money}" where the row has a ``refunded``); two clauses of one text each name the
  column the other shows ("departs ... at {row.arrive}, arrives ... at {row.depart}"); a figure
  shown as money that is no amount of money ("Subtotal: {row.items|money}", a count of items); a scale
  stated for a figure that the rows go past ("{row.rating}/5" over ratings up to 9).
  Each comes with the text it should be (:func:`text_fixes`), which the repair writes back.
- M003: a list whose own words say which end comes first ("Our lowest fares", "Newest posts")
  over an order that runs the other way; a filter whose options say a bound ("At most 1 stop",
  "4 stars or more") over a test of the other direction. The repair turns the order or the test
  round.
- M015: a list comparing a choice with a column that holds none of the values offered, while another
  column holds them all. The repair compares it with that column.
- S004: a form field that the marker argument of its name does not send (the stock typed, sent as
  the row's stock). The repair sends the field.
- M011: two tabs, each labelled with what only the other one holds ("Forums" over the accounts list).
  The repair swaps the labels.
- M015: a searching form's field that the page it opens never reads, while its list has the column (a
  "Connections" choice no list filters on). The repair adds the test to the list.
- M015: a list inside a record keeping the rows whose key of another table equals the record's key
  (a profile's comments picked by ``post_id``). The repair compares the column naming the record's table.
- M015: a searching form's field named otherwise than the one value the page it opens filters on and the
  form does not send (the destination sent as ``to``), or a link's value so named (``travellers`` where the
  page reads ``passengers``). The repair renames the field or the value.
- M015: a list keeping rows with more room than asked for (``seats > :passengers``). The repair keeps
  those with enough.
- M015: a search box whose list keeps only the rows starting with the words typed, nothing saying so. The
  repair matches them anywhere. And a list test on a choice whose "All" option sends nothing, not left out
  when it is empty: "All" lists no row. The repair leaves it out then.
- M001: a form on a signed-in page pre-filled with one account's own name or address for everyone; the
  repair fills it from the signed-in user's row. And a field pre-filled with another column of its row
  than the one its marker writes it into (the body in the Subject box); the repair fills it from that one.
- M015: a list cut at a fixed number of rows with no pages, its words not saying it shows a few, where no
  other list shows the rest. The repair pages through them.
- S011: a link or form passing two values crosswise, each under the other's name (check-in sent as the
  check-out). The repair passes each under its own name.
- M003: words claiming what the site never does or a figure is not: mail "deleted automatically after 30
  days" where nothing deletes on its own; a total "including delivery" whose view adds none; "Seats
  booked" over the seats a booking takes away (those left). The repair drops the claim, or says "left"
  ("booked") for the figure it is.
- M003: a confirmation dialog against its marker: buttons swapped, an irreversible change said to be
  undoable, a move to the bin said to be for good. The repair swaps the buttons back, or words the dialog
  for what the marker does.
- M003: a login page telling people to sign in with their e-mail address where accounts sign in with a
  name that is no address (or the other way round). The repair says what the login field asks for.
- S013: a form field whose words ask for another unit or kind than its marker takes: an amount "in
  cents" for money in dollars, a number of days for a date; and a paid extra ("Checked bag (+$35
  each)") ticked by default. The repair asks in the parameter's terms, or leaves the box unticked.

Every rule asks two things to agree that a clean site keeps agreeing, and says nothing where the
words name no column, direction or bound.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from veriweb.scaffold import Site
from veriweb.verify import checks as C
from veriweb.verify.checks_pages import _passthrough, _stored_type, bound_elements, money_columns, source_columns

# ----------------------------------------------------------------------------- C008: labels and clauses

_LABELLED = re.compile(r"(?:^|(?<=[.;,(\n·|]))\s*([A-Za-z][A-Za-z ]{1,30}?)\s*:\s*\{(row|user)\.(\w+)(\|[a-z_]+)?\}")
_ROW_REF = re.compile(r"\{row\.(\w+)(\|[a-z_]+)?\}")


def _kind(site: Site, source: str, column: str) -> str | None:
    """What ``column`` of ``source`` holds, for telling two columns of a kind apart: its stored type,
    else ``money`` for a computed amount of money, else ``None`` (unknown)."""
    kind = _stored_type(site, source, column)
    if kind is None and column in money_columns(site, source):
        return "money"
    return kind


_LEADING = frozenset({"in", "on", "at", "by", "for", "of", "your", "the", "my", "our", "a", "an", "current", "now"})
"""Small words a label may start with before the column it names ("In stock", "Your email")."""


def _named_column(words: str, columns: set[str]) -> str | None:
    """The column a label's words are the name of ("Grand total" -> ``grand_total``; "Refunded" ->
    ``refunded``), ``None`` when they name none."""
    from veriweb.verify.wording import singular

    split = words.lower().split()
    starts = [0] + [n for n in range(1, len(split)) if all(w in _LEADING for w in split[:n])]
    for start in starts:  # the whole label, then without leading small words ("In stock" -> stock)
        name = "_".join(split[start:])
        for candidate in (name, singular(name)):
            if candidate in columns:
                return candidate
    return None


_FAMILIES = {"integer": "number", "real": "number"}
"""Stored types whose values read alike on a page (a count of 3 and a rating of 3.5)."""


def _labelled(site: Site, text: str, source: str, columns: set[str], namespace: str = "row") -> dict[tuple[int, int], str]:
    """Each ``Label: {row.X}`` (or ``{user.X}``, ``namespace``) of ``text`` whose label names another
    column of the same kind ("In stock: {row.rating}", "Username: {user.password}"), as the span of the
    reference and the column it should read."""
    wrong: dict[tuple[int, int], str] = {}
    for found in _LABELLED.finditer(text):
        if found.group(2) != namespace:
            continue
        shown = found.group(3)
        named = _named_column(found.group(1), columns)
        if named is None or named == shown or named in shown.split("_") or shown in named.split("_") \
                or shown not in columns or set(shown.split("_")) & set(found.group(1).lower().split()):
            continue  # its own column, or a form of it ("Bounty: {row.bounty_shown}")
        kind = _kind(site, source, named)
        if kind is not None and _FAMILIES.get(kind, kind) == _FAMILIES.get(k := _kind(site, source, shown) or "", k):
            wrong[found.span(3)] = named
    return wrong


def _clause_names(clause: str, columns: set[str]) -> set[str]:
    """Columns a clause's words name outside its references ("departs" -> ``depart``)."""
    from veriweb.verify.wording import singular

    names = set()
    for word in re.findall(r"[a-z]{4,}", _ROW_REF.sub(" ", clause).lower()):
        for column in columns:
            if column in (word, singular(word)) or (len(column) >= 5 and "_" not in column and word.startswith(column)):
                names.add(column)
    return names


def _swapped_clauses(site: Site, text: str, source: str, columns: set[str]) -> dict[tuple[int, int], str]:
    """The references of two clauses of ``text`` that each show the column the other one names and
    not their own ("departs ... at {row.arrive}, arrives ... at {row.depart}"), as spans and the
    column each should read."""
    clauses = []
    start = 0
    for cut in [m.start() for m in re.finditer(r"[,;.](?=\s)", text)] + [len(text)]:
        part = text[start:cut]
        shown = {m.group(1): m.span(1) for m in _ROW_REF.finditer(part)}
        clauses.append((start, shown, _clause_names(part, columns)))
        start = cut + 1
    wrong: dict[tuple[int, int], str] = {}
    for a, (start_a, shown_a, named_a) in enumerate(clauses):
        for start_b, shown_b, named_b in clauses[a + 1:]:
            for x in named_b & set(shown_a) - named_a - set(shown_b):
                for y in named_a & set(shown_b) - named_b - set(shown_a):
                    if x != y and _kind(site, source, x) is not None and _kind(site, source, x) == _kind(site, source, y):
                        wrong[(start_a + shown_a[x][0], start_a + shown_a[x][1])] = y
                        wrong[(start_b + shown_b[y][0], start_b + shown_b[y][1])] = x
    return wrong


_ARROW = re.compile(r"\{row\.(\w+)(?:\|[a-z_]+)?\}\s*(?:->|\u2192|=>|\u27f6|\u00bb|\binto\b|\bto\b)\s*\{row\.(\w+)(?:\|[a-z_]+)?\}")
_ENDS_WORDS = ({"target", "destination", "dest", "to", "into", "base"}, {"source", "origin", "from", "head"})
"""Words naming where something goes, and where it comes from."""


def _reversed_arrows(site: Site, text: str, source: str, columns: set[str]) -> dict[tuple[int, int], str]:
    """The two references of an arrow written from where something goes to where it comes from
    ("{row.target_branch} → {row.source_branch}"), as spans and the column each should read."""
    wrong: dict[tuple[int, int], str] = {}
    goes, comes = _ENDS_WORDS
    for found in _ARROW.finditer(text):
        first, second = found.group(1), found.group(2)
        if first not in columns or second not in columns:
            continue
        if set(first.split("_")) & goes and set(second.split("_")) & comes \
                and not set(first.split("_")) & comes and not set(second.split("_")) & goes:
            wrong[found.span(1)] = second
            wrong[found.span(2)] = first
    return wrong


_NEXT_REF = re.compile(r"\{row\.((?:next|new|other|toggled)_(\w+))(?:\|[a-z_]+)?\}")


def _next_states(site: Site, text: str, source: str, columns: set[str]) -> dict[tuple[int, int], str]:
    """The references of a text that states a row's next or other state (``{row.next_state}``, the label of
    the button that changes it) where the row's own one (``{row.state}``) belongs: "#5 · Closed" on an
    open issue. Only where the words say nothing of a change."""
    wrong: dict[tuple[int, int], str] = {}
    if re.search(r"\b(?:next|new|will|becomes?|change|switch|to)\b|\u2192|->", _ROW_REF.sub(" ", text), re.I):
        return wrong
    for found in _NEXT_REF.finditer(text):
        own = found.group(2)
        if own in columns and found.group(1) in columns and f"{{row.{own}" not in text:
            wrong[found.span(1)] = own
    return wrong


def _unmoneyed(site: Site, text: str, source: str, columns: set[str]) -> dict[tuple[int, int], str]:
    """Each ``{row.X|money}`` of ``text`` where X is no amount of money while the row has one, as the
    span of X and the amount it should read: the one its label names, else the row's only one,
    else X itself (the money format is then dropped: see :func:`text_fixes`)."""
    if "|money}" not in text:
        return {}
    money = {c for c in columns if _kind(site, source, c) == "money"}
    wrong: dict[tuple[int, int], str] = {}
    for found in _ROW_REF.finditer(text):
        shown = found.group(1)
        if found.group(2) != "|money" or shown not in columns or shown in money or not money or _kind(
                site, source, shown) not in ("integer", "real", "text", None):
            continue  # a view declares its amounts of money: a computed column it leaves out is none
        label = re.search(r"([A-Za-z][A-Za-z ]*?)\s*:?\s*$", text[:found.start()])
        said = label.group(1).lower().split() if label else []
        named = [m for m in sorted(money) if any(m == w or m in w for w in said)]  # "Subtotal" names total
        wrong[found.span(1)] = named[0] if len(named) == 1 else (min(money) if len(money) == 1 else shown)
    return wrong


def _headed(element: Any) -> Iterator[tuple[str, list[Any], str]]:
    """The words that head a part of ``element``'s content, with that content and its path suffix: a
    table column's header over its cell; a collapsible, section or dialog's label (or widget id) over
    what it holds."""
    if element.type == "table":
        for number, column in enumerate(element.columns):
            yield column.header, column.cell, f".columns[{number}].cell"
    elif element.type in ("collapsible", "section", "dialog"):
        label = C.field_of(element, "label") or C.field_of(element, "title")
        for words in (label, C.field_of(element, "id")):
            if isinstance(words, str) and "{" not in words:
                yield words.replace("_", " "), element.elements, ".elements"


def _refs(text: Any) -> list[str]:
    return [m.group(1) for m in _ROW_REF.finditer(text)] if isinstance(text, str) else []


def _shown(texts: list[Any]) -> set[str]:
    return {column for text in texts for column in _refs(text)}


def _headed_fixes(site: Site, element: Any, path: str, source: str,
                  around: set[str]) -> Iterator[tuple[str, str, str, str]]:
    """The texts under words that name one column of their row while they show another of the same
    kind, which the table or page also shows elsewhere, and the named one nowhere ("Arrives" over
    ``{row.depart}`` beside "Departs" over ``{row.depart}``; a "Rules" section showing the
    ``{row.description}`` its page shows above it). ``around`` is what the rest of the page shows."""
    columns = source_columns(site, source) or set()
    parts = list(_headed(element))
    shows = [_shown([C.field_of(e, "text") for e in content]) for _, content, _ in parts]
    for number, (words, content, suffix) in enumerate(parts):
        named = _named_column(words, columns)
        if named is None or len(shows[number]) != 1 or named in shows[number]:
            continue
        (other,) = shows[number]
        elsewhere = set(around).union(*(shows[:number] + shows[number + 1:]))
        if other not in columns or other not in elsewhere or named in elsewhere:
            continue
        if named in other.split("_") or other in named.split("_"):
            continue
        kind = _kind(site, source, named)
        if kind is None or kind != _kind(site, source, other):
            continue
        for n, item in enumerate(content):
            text = C.field_of(item, "text")
            if isinstance(text, str) and f"{{row.{other}" in text:
                fixed = re.sub(r"\{row\." + other + r"(?=[|}])", "{row." + named, text)
                yield (f"{path}{suffix}[{n}].text", text, fixed,
                       f"under the words {words!r}, the text {text!r} shows {{row.{other}}}, shown beside it too, "
                       f"and never {{row.{named}}}: the figure is another column than its words say")
                break


def _word_fixes(site: Site) -> Iterator[tuple[str, str, str, str]]:
    elements = list(bound_elements(site))
    page_shows: dict[tuple[Any, Any], Counter[str]] = {}
    for element, _, page_id, bound in elements:
        page_shows.setdefault((page_id, bound), Counter()).update(_refs(C.field_of(element, "text")))
    for element, path, page_id, bound in elements:
        if element.type == "table" and element.query.table:
            yield from _headed_fixes(site, element, path, element.query.table, set())
        elif bound is not None and element.type in ("collapsible", "section", "dialog"):
            inside = Counter(r for e in element.elements for r in _refs(C.field_of(e, "text")))
            around = {c for c, n in page_shows[(page_id, bound)].items() if n > inside[c]}
            yield from _headed_fixes(site, element, path, bound, around)
        text = C.field_of(element, "text")
        auth = site.auth
        if isinstance(text, str) and "{user." in text and auth is not None:  # the signed-in user's row
            wrong = _labelled(site, text, auth.table, source_columns(site, auth.table) or set(), "user")
            if wrong:
                fixed = text
                for (start, end), right in sorted(wrong.items(), reverse=True):
                    fixed = fixed[:start] + right + fixed[end:]
                said = ", ".join(f"{{user.{text[s:e]}}}" for s, e in sorted(wrong))
                yield (f"{path}.text", text, fixed,
                       f"the text {text!r} shows {said} under another column's name: the figure is another column "
                       f"than its words say")
        if bound is None or not isinstance(text, str) or "{row." not in text:
            continue
        columns = source_columns(site, bound) or set()
        for rule, why in ((_labelled, "under another column's name"), (_swapped_clauses, "in each other's clause"),
                          (_reversed_arrows, "from where it goes to where it comes from"),
                          (_next_states, "where the row's own state belongs"),
                          (_unmoneyed, "as money while it is a count or a number")):
            wrong = rule(site, text, bound, columns)
            if not wrong:
                continue
            fixed = text
            for (start, end), right in sorted(wrong.items(), reverse=True):
                fixed = fixed[:start] + right + fixed[end:]
                if rule is _unmoneyed and right == text[start:end]:
                    fixed = fixed[:start + len(right)] + fixed[start + len(right):].replace("|money", "", 1)
            said = ", ".join(f"{{row.{text[s:e]}}}" for s, e in sorted(wrong))
            yield (f"{path}.text", text, fixed,
                   f"the text {text!r} shows {said} {why}: the figure is another column than its words say")
            break


_SCALE = re.compile(r"\{row\.(\w+)\}(\s*/\s*|\s+out of\s+|\s+of\s+)(\d+)\b")


def _scale_fixes(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each row text stating a scale for a figure (``{row.rating}/5``, ``{row.rating} out of 5``) that seed
    rows go past (ratings up to 9.0): the text with the smallest usual scale that holds them all."""
    from veriweb.verify.checks_pages import base_column

    cache: dict[Any, Any] = {}
    for element, path, _, bound in bound_elements(site):
        text = C.field_of(element, "text")
        if bound is None or not isinstance(text, str):
            continue
        for match in _SCALE.finditer(text):
            base = base_column(site, bound, match.group(1), cache)
            table = site.database.table(base[0]) if base is not None else None
            values = [r[base[1]] for r in table.rows if isinstance(r.get(base[1]), (int, float))  # type: ignore[index]
                      and not isinstance(r.get(base[1]), bool)] if table is not None else []  # type: ignore[index]
            stated = int(match.group(3))
            over = sum(v > stated for v in values)
            if len(values) < 5 or not over or min(values) < 0 or (over <= 2 and over * 20 <= len(values)):
                continue  # one or two rows past it are rows wrong, not the scale (C012 finds those)
            scale = next((n for n in (5, 10, 20, 100) if n >= max(values)), None)
            if scale is None:
                continue
            fixed = text[:match.start(3)] + str(scale) + text[match.end(3):]
            yield (f"{path}.text", text, fixed,
                   f"the text {text!r} states {{row.{match.group(1)}}} on a scale of {stated}, but the rows' "
                   f"{match.group(1)} runs up to {max(values):g}: the scale its words state is too small")


_PERCENT_NAME = re.compile(r"(?:^|_)(?:percent|percentage|pct|discount|off|rate)(?:_|$)")


def _percent_fixes(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each row text writing a percentage as dollars (``${row.discount}`` for a coupon's 10 percent off):
    a whole-number column, no amount of money, named for a percentage or shown with a "%" elsewhere."""
    elements = list(bound_elements(site))
    with_percent = {(bound, m.group(1)) for e, _, _, bound in elements if isinstance(C.field_of(e, "text"), str)
                    for m in re.finditer(r"\{row\.(\w+)\}\s*%", C.field_of(e, "text"))}
    for element, path, _, bound in elements:
        text = C.field_of(element, "text")
        if bound is None or not isinstance(text, str) or "${row." not in text:
            continue
        fixed = text
        for match in reversed(list(re.finditer(r"\$\{row\.(\w+)\}", text))):
            column = match.group(1)
            if _kind(site, bound, column) not in ("integer", "real") or not (
                    _PERCENT_NAME.search(column) or (bound, column) in with_percent):
                continue
            fixed = fixed[:match.start()] + f"{{row.{column}}}%" + fixed[match.end():]
        if fixed != text:
            yield (f"{path}.text", text, fixed,
                   f"the text {text!r} writes a percentage as dollars: it is a percentage, not an amount of money")


def text_fixes(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each row text that shows a figure under another column's name, or as money when it is none:
    its path, the text, the text as it should be, and what is wrong (the messages end with "the
    figure is another column than its words say", which the C008 repair reads). Includes
    :func:`veriweb.verify.checks_pages.figure_words`."""
    from veriweb.verify.checks_pages import figure_words

    yield from figure_words(site)
    yield from _word_fixes(site)
    yield from _scale_fixes(site)
    yield from _percent_fixes(site)


def check_text_figures(site: Site) -> list[C.Issue]:
    """C008: see :func:`text_fixes` (beyond :func:`veriweb.verify.checks_pages.figure_words`, which
    :func:`veriweb.verify.checks_pages.check_figure_words` reports)."""
    from veriweb.verify.checks_pages import figure_words

    found = [*_word_fixes(site), *_scale_fixes(site), *_percent_fixes(site)]
    own = {location for location, _, _, _ in figure_words(site)} if found else set()
    return [C.Issue("consistency", C.LIST_DETAIL, location, message)
            for location, _, _, message in found if location not in own]


# ----------------------------------------------------------------------------- M003: a list's order

_FIRST_WORDS: dict[str, tuple[str, str]] = {
    "money": (r"cheapest|least expensive|lowest (?:fares?|prices?|rates?|costs?)|(?:fares?|prices?)[: ]+low(?:est)? to high",
              r"most expensive|priciest|dearest|highest (?:fares?|prices?|rates?)|(?:fares?|prices?)[: ]+high(?:est)? to low"),
    "date": (r"oldest|earliest|oldest first", r"newest|latest|most recent|newest first|recently (?:added|posted)"),
    "amount": (r"fewest|least|worst|lowest|bottom|slowest|worst[- ]selling",
               r"top|best|most|highest|largest|biggest|bestsellers?|best[- ]selling|most popular"),
}
"""For the sort column's kind, the words that say the first row is the lowest, and the highest."""


def _preceding_words(elements: list[Any], index: int) -> str:
    """The words right before ``elements[index]`` that introduce it: up to two headings or texts back,
    stopping at another list, table or form."""
    said = []
    for element in reversed(elements[max(0, index - 2):index]):
        if element.type not in ("heading", "text"):
            break
        said.append(element.text)
    return " ".join(said)


def _lists(elements: list[Any], path: str, title: str) -> Iterator[tuple[Any, str, str]]:
    """Every list or table under ``elements`` with its path and the words that introduce it: the headings
    or texts right before it (or, first in a tab, the tab's label), its label and its name."""
    for index, element in enumerate(elements):
        here = f"{path}[{index}]"
        if element.type in ("list", "table"):
            name = (C.field_of(element, "name") or "").replace("_", " ")
            said = _preceding_words(elements, index) or (title if index == 0 else "")
            yield element, here, " ".join(filter(None, (said, C.field_of(element, "label") or "", name)))
        fields = element.__dict__
        for attr in ("elements", "item", "items"):
            if fields.get(attr):
                yield from _lists(fields[attr], f"{here}.{attr}", "")
        for number, tab in enumerate(fields.get("tabs") or []):
            yield from _lists(tab.elements, f"{here}.tabs[{number}].elements", tab.label or "")


def list_orders(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each list whose introducing words say which end comes first over an order running the other
    way ("Our lowest fares" over ``price`` descending): the path of its first ``order_by``, the
    column, the direction it runs and the words."""
    from veriweb.verify.checks_tasks import _sort_kind, _text_type

    for number, page in enumerate(site.pages):
        for element, path, words in _lists(page.elements, f"$.pages[{number}].elements", ""):
            order = element.query.order_by
            if not order or not words or C.field_of(element, "sorts"):
                continue  # a list the user sorts says how in its sort links (check_sort_labels)
            kind = _sort_kind(site, element.query.table, order[0].column)
            if kind not in _FIRST_WORDS or (kind == "amount" and _text_type(site, element.query.table, order[0].column)
                                            not in ("integer", "real", None)):
                continue  # words of amount say nothing of a list sorted by text
            low, high = (re.search(rf"\b(?:{w})\b", words, re.I) for w in _FIRST_WORDS[kind])
            if (low is not None) == (high is not None):
                continue
            runs = order[0].dir or "asc"
            if (low is not None and runs == "desc") or (high is not None and runs == "asc"):
                said = (low or high).group(0)  # type: ignore[union-attr]
                yield f"{path}.query.order_by[0]", order[0].column, runs, said


def check_list_orders(site: Site) -> list[C.Issue]:
    """M003: see :func:`list_orders`."""
    return [C.Issue("semantic", C.CONTRADICTORY_LABEL, location,
                    f"the list says {said!r} but sorts {column} {runs}ending: its first rows are the other end")
            for location, column, runs, said in list_orders(site)]


def _said_values(words: str, values: set[str]) -> set[str]:
    """The values of ``values`` that ``words`` name as a word of their own."""
    return {v for v in values if re.search(rf"(?<![\w-]){re.escape(v.replace('_', ' '))}(?![\w-])", words, re.I)}


def _worded_lists(site: Site) -> Iterator[tuple[Any, str, str, str, Callable[[str], set[str]]]]:
    """Each list of a page with the words that introduce it: the list, its path, the words, the table of
    its rows, and the values each column of that table takes (its domain, ``set()`` if unknown)."""
    from veriweb.verify.checks_guards import _domains

    domains = _domains(site)
    for number, page in enumerate(site.pages):
        for element, path, words in _lists(page.elements, f"$.pages[{number}].elements", page.title or ""):
            source = element.query.table
            if words:
                def domain(column: str, source: str = source) -> set[str]:
                    return set(domains.get((source, column)) or domains.get(_passthrough(site, source).get(column, ()))
                               or ())
                yield element, path, words, source, domain


def listed_against_words(site: Site) -> Iterator[tuple[str, str, Any, str, Any, str]]:
    """Each list whose introducing words name one state its rows are in ("Open issues assigned to you",
    a "Starred" page) while its query keeps them to another: a fixed value of a status column that the
    words do not name while they name exactly one other value of it ('closed' under "Open issues"), or
    a yes/no column the words do not name while they name exactly one other of the list's yes/no
    columns (``read = False`` on the "Starred" page). The path of the test, its column and value, and
    the column and value the words call for, and the words."""
    for element, path, words, source, domain_of in _worded_lists(site):
        flags = {c for c in (source_columns(site, source) or set()) if _stored_type(site, source, c) == "boolean"}
        for index, cond in enumerate(element.query.where):
            if cond.op != "=" or isinstance(cond.value, (dict, list)) or hasattr(cond.value, "ref"):
                continue
            where = f"{path}.query.where[{index}]"
            if isinstance(cond.value, bool) and cond.column in flags:
                named = {c for c in flags if _said_values(words, {c, c.removesuffix("ed")})}
                if cond.column not in named and len(named) == 1:
                    yield where, cond.column, cond.value, next(iter(named)), True, words
                continue
            domain = domain_of(cond.column)
            if not isinstance(cond.value, str) or not domain or cond.value not in domain:
                continue
            named = _said_values(words, domain)
            if cond.value not in named and len(named) == 1:
                yield where, cond.column, cond.value, cond.column, next(iter(named)), words


def untested_states(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each list whose introducing words name exactly one state of a status column of its rows
    ("Enabled products with fewer than 5 units") that its query never tests, where the rows hold other
    states too: the disabled ones are listed beside them. The path of the list's tests, the column, the
    state and the words."""
    for element, path, words, source, domain_of in _worded_lists(site):
        tested = {cond.column for cond in element.query.where}
        for column in sorted(source_columns(site, source) or set()):
            domain = domain_of(column)
            if column in tested or len(domain) < 2 or _stored_type(site, source, column) != "text":
                continue
            named = _said_values(words, domain)
            if len(named) == 1 and not re.search(r"\b(?:all|any|every|each|whatever)\b", words, re.I):
                yield f"{path}.query.where", column, next(iter(named)), words
                break


def check_untested_states(site: Site) -> list[C.Issue]:
    """M003: see :func:`untested_states`. The repair keeps the rows in the state the words name."""
    return [C.Issue("semantic", C.CONTRADICTORY_LABEL, location,
                    f"the list says {words!r} but never tests {column}, so rows in every other state are listed too: "
                    f"it should keep only {column} = {value!r}")
            for location, column, value, words in untested_states(site)]


def check_listed_against_words(site: Site) -> list[C.Issue]:
    """M003: see :func:`listed_against_words`. The repair keeps the rows the words name."""
    return [C.Issue("semantic", C.CONTRADICTORY_LABEL, location,
                    f"the list says {words!r} but keeps the rows with {column} = {value!r}: it should keep "
                    f"{right_column} = {right!r}")
            for location, column, value, right_column, right, words in listed_against_words(site)]


# ----------------------------------------------------------------------------- M003: a filter's bound

_AT_MOST = re.compile(r"\b(?:at most|up to|or (?:less|fewer|under|below|lower|cheaper)|under|below|max(?:imum)?|"
                      r"no more than|nonstop|direct)\b", re.I)
_AT_LEAST = re.compile(r"\b(?:at least|or (?:more|higher|above|better|over)|min(?:imum)?|no (?:less|fewer) than)\b"
                       r"|\d\s*\+", re.I)


def _option_bounds(site: Site) -> dict[tuple[str, str], tuple[str, str]]:
    """For each page and query field that a searching form's options fill: which bound the options'
    words say (``"<="`` or ``">="``), when all that say one agree, and an example."""
    said: dict[tuple[str, str], set[str]] = {}
    example: dict[tuple[str, str], str] = {}
    for element, _, page in C.searching_forms(site):
        for field_el in element.fields:
            for option in C.field_of(field_el, "options") or []:
                label = str(C.field_of(option, "label") or "")
                if str(C.field_of(option, "value") or "") == "":
                    continue
                most, least = bool(_AT_MOST.search(label)), bool(_AT_LEAST.search(label))
                if most != least:
                    said.setdefault((page, field_el.name), set()).add("<=" if most else ">=")
                    example.setdefault((page, field_el.name), label)
    return {key: (next(iter(bounds)), example[key]) for key, bounds in said.items() if len(bounds) == 1}


def _query_tests(site: Site) -> Iterator[tuple[Any, str, str, int, Any]]:
    """Every test of a list against a value of the address (``query.X``): the list, its path, its
    page's id, the test's index and the test."""
    for number, page in enumerate(site.pages):
        for element, path in C.walk(page.elements, f"$.pages[{number}].elements"):
            if element.type in ("list", "table"):
                for index, cond in enumerate(element.query.where):
                    if getattr(cond.value, "namespace", None) == "query":
                        yield element, path, page.id, index, cond


def filter_bounds(site: Site) -> Iterator[tuple[str, str, str, str, str]]:
    """Each list filter that tests a query value with a bound the other way from what the options
    filling it say ("At most 1 stop" over ``stops >= :stops``), or with no bound at all ("4 stars or
    more" over ``stars = :stars``): the path of the test, its field, its operator, an option's words
    and the bound they say."""
    bounds = _option_bounds(site)
    if not bounds:
        return
    for _, path, page, index, cond in _query_tests(site):
        said = bounds.get((page, cond.value.name)) if cond.op in ("<", "<=", ">", ">=", "=", None) else None
        if said is not None and (cond.op or "=")[0] != said[0][0]:  # "=" keeps one value of a bound
            yield f"{path}.query.where[{index}].op", cond.value.name, cond.op or "=", said[1], said[0]


_RANGE_WORDS = re.compile(r"\b(?:from|after|since|before|until|till|to|by|earliest|latest|or later|or earlier|"
                          r"on or|range|between|start|end|min|max)\b", re.I)


def day_bounds(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each list filter keeping the rows on or after (before) a day a date field asks for by a name that
    says one day ("Departure date"), not a range ("Departing from", "Earliest date"): a search for June 20
    lists every later day too. The path of the test's operator, the field, the operator and its label."""
    labels = {(page, f.name): (str(f.label or ""), f.type) for element, _, page in C.searching_forms(site)
              for f in element.fields}
    for element, path, page, index, cond in _query_tests(site):
        label, kind = labels.get((page, cond.value.name), ("", ""))
        if cond.op not in ("<", "<=", ">", ">=") or kind != "date" or not label or _RANGE_WORDS.search(label):
            continue
        if _stored_type(site, element.query.table, cond.column) not in ("date", "datetime") and not re.search(
                r"date|day", cond.column):
            continue
        yield f"{path}.query.where[{index}].op", cond.value.name, cond.op, label


def check_filter_bounds(site: Site) -> list[C.Issue]:
    """M003: see :func:`filter_bounds`."""
    return [C.Issue("semantic", C.CONTRADICTORY_LABEL, location,
                    f"the filter {field!r} offers {words!r} but keeps rows with {field} {op} the value chosen, "
                    f"while its options say {bound}: the other way from what they say")
            for location, field, op, words, bound in filter_bounds(site)] + [
        C.Issue("semantic", C.CONTRADICTORY_LABEL, location,
                f"the date field {label!r} asks for one day, but the list keeps rows with {field} {op} that day: "
                f"it should keep the day itself")
        for location, field, op, label in day_bounds(site)]


_CHEAP = re.compile(r"\b(?:bargains?|deals?|cheap\w*|budget|under|below|less than|affordable|low[- ]cost|clearance)\b", re.I)
_DEAR = re.compile(r"\b(?:premium|luxury|luxurious|high[- ]end|over|above|more than|expensive|splurge)\b", re.I)


def priced_against_words(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each list whose words promise cheap rows ("Bargains", "under $20") while its query keeps rows
    priced above a fixed amount (``price > 2000``), or dear ones ("Luxury stays") kept below one: the page
    shows the opposite of what it says. The path of the test's operator, the column, the operator and the
    words."""
    for number, page in enumerate(site.pages):
        for element, path, words in _lists(page.elements, f"$.pages[{number}].elements", page.title or ""):
            cheap, dear = bool(_CHEAP.search(words or "")), bool(_DEAR.search(words or ""))
            if cheap == dear:
                continue
            for index, cond in enumerate(element.query.where):
                value = cond.value
                if (_stored_type(site, element.query.table, cond.column) != "money" or isinstance(value, bool)
                        or not isinstance(value, (int, float))):
                    continue
                if (cheap and cond.op in (">", ">=")) or (dear and cond.op in ("<", "<=")):
                    yield f"{path}.query.where[{index}].op", cond.column, cond.op, words


def check_priced_against_words(site: Site) -> list[C.Issue]:
    """M003: see :func:`priced_against_words`. The repair turns the bound round."""
    return [C.Issue("semantic", C.CONTRADICTORY_LABEL, location,
                    f"the list says {words!r} but keeps the rows with {column} {op} a fixed amount: the other way "
                    f"from what it says")
            for location, column, op, words in priced_against_words(site)]


# ----------------------------------------------------------------------------- M015: a filter nobody reads


def _query_reads(site: Site, number: int) -> set[str]:
    """The address values (``query.X``) page ``number`` reads in its texts, links, lists and forms: not
    in the fields of its own searching forms, which only hand a value on to the next search."""
    from veriweb.verify.checks_pages import _refs_of

    return {name for element, _ in C.walk(site.pages[number].elements, f"$.pages[{number}].elements")
            for attr, namespace, name, _ in _refs_of(element) if namespace == "query" and not (
                attr.startswith("fields[") and element.action.kind == "navigate")}


def ignored_fields(site: Site) -> Iterator[tuple[str, str, str, str, dict[str, Any]]]:
    """Each field of a searching form (one that opens a page with what it asks) that the page it opens
    never reads, while the one list there has a column of its name (a "Connections" choice no list
    filters on: "Nonstop only" lets every flight through): the field's path, its name, the page, the
    path of that list, and the test it should make."""
    bounds: dict[tuple[str, str], tuple[str, str]] | None = None
    numbers = {page.id: number for number, page in enumerate(site.pages)}
    for element, path, page_id in C.searching_forms(site):
        number, page = numbers[page_id], site.page(page_id)
        read = _query_reads(site, number)
        if not read & {f.name for f in element.fields}:
            continue  # the page reads none of the form: a missing reader (M007), not a filter left out
        for index, field_el in enumerate(element.fields):
            if field_el.name in read:
                continue
            if bounds is None:
                bounds = _option_bounds(site)
            lists = [here for listed, here in C.walk(page.elements, f"$.pages[{number}].elements")
                     if listed.type in ("list", "table") and field_el.name in (source_columns(site, listed.query.table) or ())]
            if len(lists) != 1:
                continue  # no list it could filter: the value may be meant for links a defect elsewhere lost
            bound = bounds.get((page_id, field_el.name))
            op = bound[0] if bound else ("contains" if field_el.type in ("textbox", "search") else "=")
            test = {"column": field_el.name, "op": op, "value": {"ref": f"query.{field_el.name}"}, "skip_if_empty": True}
            yield f"{path}.fields[{index}]", field_el.name, page.id, lists[0], test


def check_checkbox_numbers(site: Site) -> list[C.Issue]:
    """S013: a searching form's checkbox ("Direct flights only") whose value the list it opens compares with
    a number (``stops <= :stops``): a ticked box sends "on", which SQLite orders after every number, so
    ticking it filters nothing. The repair makes it a drop-down of the column's values."""
    from veriweb.verify.checks_pages import base_column

    tested: dict[tuple[str, str], tuple[str, str]] = {}
    for element, _, page_id, _, cond in _query_tests(site):
        if cond.op in ("<", "<=", ">", ">=", "=", None):
            tested.setdefault((page_id, cond.value.name), (element.query.table, cond.column))
    issues = []
    for element, path, target in C.searching_forms(site):
        for number, field_el in enumerate(element.fields):
            where = tested.get((target, field_el.name)) if field_el.type == "checkbox" else None
            base = base_column(site, *where) if where is not None else None
            table = site.database.table(base[0]) if base is not None else None
            column = table.column(base[1]) if table is not None else None
            if column is not None and column.type in ("integer", "real"):
                issues.append(C.Issue("structural", C.FIELD_TYPE, f"{path}.fields[{number}].type",
                                      f"checkbox {field_el.label!r} sends 'on', which the list on {target!r} compares "
                                      f"with {table.name}.{column.name}, a number: ticking it filters nothing; it "
                                      f"should offer the column's values"))
    return issues


def check_misrouted_forms(site: Site) -> list[C.Issue]:
    """M015: a searching form that opens a page reading none of what it asks, while the page it stands on
    reads every field of it (the customers' search sent to the orders list, which ignores ``q`` and
    ``group``): a search finds nothing it asks for. The repair sends the form to its own page."""
    issues = []
    numbers = {page.id: number for number, page in enumerate(site.pages)}
    for element, path, target in C.searching_forms(site):
        on_page = re.match(r"\$\.pages\[(\d+)\]", path)  # a form of the layout stands on no one page
        own = int(on_page.group(1)) if on_page else None
        if own is None or site.pages[own].id == target or "{" in site.pages[own].route:
            continue
        asked = {f.name for f in element.fields if f.type != "hidden"}
        if asked and not asked & _query_reads(site, numbers[target]) and asked <= _query_reads(site, own):
            issues.append(C.Issue("semantic", C.EMPTY_FILTER, f"{path}.action.route",
                                  f"the search form {element.submit!r} opens {element.action.route!r}, which reads "
                                  f"none of what it asks ({', '.join(sorted(asked))}), while its own page reads all of "
                                  f"it: it should open {site.pages[own].route!r}"))
    return issues


def misnamed_fields(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each field of a searching form that the page it opens never reads, where the field is the form's
    only unread one and that page's lists test exactly one address value the form does not send (the
    destination sent as ``to`` to a page that filters on ``destination``); of a field offering choices,
    only values tested against a column holding some of them count. The field's path, its name, the
    page and the name it should have."""
    tested: dict[str, dict[str, set[tuple[str, str]]]] = {}
    for element, _, page_id, _, cond in _query_tests(site):
        tested.setdefault(page_id, {}).setdefault(cond.value.name, set()).add((element.query.table, cond.column))
    if not tested:
        return
    sent = _option_values(site)
    numbers = {page.id: number for number, page in enumerate(site.pages)}
    cache: dict[Any, Any] = {}
    for element, path, page_id in C.searching_forms(site):
        names = {f.name for f in element.fields}
        read = _query_reads(site, numbers[page_id])
        unread = [(i, f) for i, f in enumerate(element.fields) if f.name not in read and f.type != "hidden"]
        wanted = sorted(set(tested.get(page_id, {})) - names)
        if len(unread) != 1 or not wanted or not read & names:
            continue
        index, field_el = unread[0]
        values = sent.get((page_id, field_el.name))
        if values:  # a choice: the one value tested against a column holding some of what it offers
            wanted = [w for w in wanted if values & set().union(
                *((_held(site, t, c, cache) or set()) for t, c in tested[page_id][w]))]
        if len(wanted) == 1:
            yield f"{path}.fields[{index}].name", field_el.name, page_id, wanted[0]


def misnamed_link_values(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each link passing an address value (``?travellers={query.passengers}``) that the page it opens
    never reads, where that page reads exactly one address value the link does not pass (its booking form
    is filled from ``query.passengers``): the number searched for is lost. The path of the ``href``, the
    name passed, the page, and the name the page reads."""
    from veriweb.verify.checks import _routes, resolve_href

    routes = _routes(site)
    numbers = {page.id: number for number, page in enumerate(site.pages)}
    reads: dict[str, set[str]] = {}
    for element, path, _ in C.all_elements(site):
        href = C.field_of(element, "href")
        if element.type != "link" or not isinstance(href, str) or "?" not in href:
            continue
        target = resolve_href(routes, href)
        if target not in numbers:
            continue
        if target not in reads:
            reads[target] = _query_reads(site, numbers[target])
        passed = re.findall(r"[?&](\w+)=", href)
        unread = [p for p in passed if p not in reads[target]]
        wanted = sorted(reads[target] - set(passed))
        if len(unread) == 1 and len(wanted) == 1:
            yield f"{path}.href", unread[0], target, wanted[0]


def fixed_people(site: Site) -> Iterator[tuple[str, str, str]]:
    """Each field of a form on a page that needs a login pre-filled with one account's own value (a name,
    an address: "Amara Eriksen" typed in for every customer) where the accounts table has that column:
    everyone sends someone else's details unless they notice. The field's path, the value and the column."""
    from veriweb.scaffold.values import Ref

    if site.auth is None or site.database.table(site.auth.table) is None:
        return
    accounts = site.database.table(site.auth.table)
    private = [c.name for c in accounts.columns if c.type == "text" and c.name != site.auth.password_column]
    held = {c: {r.get(c) for r in accounts.rows if isinstance(r.get(c), str) and r.get(c)} for c in private}
    for number, page in enumerate(site.pages):
        if not page.requires_login:
            continue
        for element, path in C.walk(page.elements, f"$.pages[{number}].elements"):
            action = C.field_of(element, "action")
            if element.type != "form" or action is None or action.kind != "marker":
                continue
            for index, field_el in enumerate(element.fields):
                value = C.field_of(field_el, "value")
                if isinstance(value, Ref) or not isinstance(value, str) or len(value) < 3:
                    continue
                owners = [c for c in private if value in held[c]]
                if len(owners) == 1 and sum(r.get(owners[0]) == value for r in accounts.rows) == 1:
                    yield f"{path}.fields[{index}].value", value, owners[0]


def check_fixed_people(site: Site) -> list[C.Issue]:
    """M001: see :func:`fixed_people`. The repair fills the field from the signed-in user's own row."""
    return [C.Issue("semantic", C.PLACEHOLDER, location,
                    f"the field is pre-filled with {value!r}, one account's {column}, for everyone who signs in: "
                    f"it should be the signed-in user's own (user.{column})")
            for location, value, column in fixed_people(site)]


def _reads_column(site: Site, source: str, name: str, column: str) -> bool:
    """Whether the view ``source`` computes its column ``name`` from a column called ``column`` (a price
    written out for a form, ``printf('%.2f', p.price / 100.0) AS price_input``)."""
    from veriweb.verify.checks_views import _select_items

    view = next((v for v in site.database.views if v.name == source), None)
    expr = dict((alias, e) for e, alias in (_select_items(view.sql) or [])).get(name) if view is not None else None
    return expr is not None and re.search(rf"\b{re.escape(column)}\b", expr) is not None


def misfilled_fields(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each field of a form on a record's page pre-filled with another column of the row than the one its
    marker updates on that row from it, where the row has that one (the post's body typed into the edit form's
    Subject, ``title``): saving anything else writes the other column's value there. Path of the value,
    the field, the column it is filled from and the one it should be."""
    from veriweb.scaffold.values import Ref
    from veriweb.verify.checks_pages import base_column
    from veriweb.verify.dataflow import parse_effect

    cache: dict[Any, Any] = {}
    for element, path, _, bound in bound_elements(site):
        action = C.field_of(element, "action")
        marker = site.marker(action.marker) if element.type == "form" and getattr(action, "kind", "") == "marker" else None
        if marker is None or bound is None:
            continue
        columns = source_columns(site, bound) or set()
        written = {}  # parameter -> the column of the row shown it updates, as it is (an edit form)
        own = base_column(site, bound, "id", cache)
        for effect in marker.effects:
            if effect.op == "update" and own is not None and effect.table == own[0]:
                for column, source in parse_effect(marker.name, effect.op, effect.table, effect.sql).sources.items():
                    if source.kind == "param":
                        written.setdefault(str(source.value), column)
        sent = {value.name: name for name, value in action.args.items() if isinstance(value, Ref) and value.namespace == "field"}
        for index, field_el in enumerate(element.fields):
            value = C.field_of(field_el, "value")
            column = written.get(sent.get(field_el.name, ""))
            if (isinstance(value, Ref) and value.namespace == "row" and column is not None and column in columns
                    and value.name != column and value.name in columns and column not in value.name
                    and not _reads_column(site, bound, value.name, column)):
                yield f"{path}.fields[{index}].value", field_el.label, value.name, column  # not price_input for price


def check_misfilled_fields(site: Site) -> list[C.Issue]:
    """M001: see :func:`misfilled_fields`. The repair fills the field from the column it writes."""
    return [C.Issue("semantic", C.PLACEHOLDER, location,
                    f"the field {label!r} is pre-filled with the row's {shown}, but its marker writes it into {column}: "
                    f"saving anything else writes the {shown} there; it should be row.{column}")
            for location, label, shown, column in misfilled_fields(site)]


_FEW_WORDS = re.compile(r"\b(?:latest|newest|recent|recently|top|last|best|first|upcoming|next|highlights?|featured|"
                        r"popular|trending|preview|few|some|bestsellers?|best-selling|top-selling)\b", re.I)


def truncated_lists(site: Site) -> Iterator[tuple[str, str, int, int]]:
    """Each list or table cut at a fixed number of rows (``limit``) with no pages, whose words do not say it
    shows a few ("My orders" showing the 3 newest), while its table holds more rows than that and no other
    list of the site shows them all: the rest can never be seen. The path of its query's limit, its
    label, the limit and how many rows the table holds."""
    from veriweb.verify.dataflow import view_tables

    sources: dict[str, list[Any]] = {}
    elements = [(e, p) for e, p, _ in C.all_elements(site) if e.type in ("list", "table") and e.query.table]
    for element, _ in elements:
        sources.setdefault(element.query.table, []).append(element)
    for element, path in elements:
        limit = element.query.limit
        if limit is None or C.field_of(element, "page_size") is not None:
            continue
        if any(getattr(c.value, "namespace", None) == "query" for c in element.query.where):
            continue  # a search narrows it down to what is asked for
        words = " ".join(str(w) for w in (C.field_of(element, "label"), C.field_of(element, "name")) if w)
        if _FEW_WORDS.search(words.replace("_", " ")):
            continue
        if any(other.query.limit is None for other in sources[element.query.table] if other is not element):
            continue
        held = max((len(t.rows) for name in view_tables(site, element.query.table)
                    if (t := site.database.table(name)) is not None), default=0)
        if held > limit:
            yield f"{path}.query.limit", C.field_of(element, "label") or words or element.query.table, limit, held


_ROOM = re.compile(r"^(?:seats|seats_left|free_seats|stock|in_stock|rooms|rooms_left|capacity|places|spaces|"
                   r"available|availability|tickets_left|spots)$")
"""Columns that count what is left to take (seats, stock)."""


def strict_rooms(site: Site) -> Iterator[tuple[str, str, str]]:
    """Each list test keeping rows with more room than asked for (``seats > :passengers``) rather than at
    least as much: a flight with exactly enough seats is hidden. The path of the test's ``op``, the
    column and the value's name."""
    for element, path, _, index, cond in _query_tests(site):
        if cond.op == ">" and _ROOM.match(cond.column):
            yield f"{path}.query.where[{index}].op", cond.column, cond.value.name


def check_strict_rooms(site: Site) -> list[C.Issue]:
    """M015: see :func:`strict_rooms`. The repair keeps the rows with at least as much room."""
    return [C.Issue("semantic", C.EMPTY_FILTER, location,
                    f"the list keeps rows whose {column} is more than the {name} asked for: one with exactly enough "
                    f"is hidden; it should keep {column} >= {name}")
            for location, column, name in strict_rooms(site)]


_IN_CENTS = re.compile(r"\s*\(?\b(?:in|as)\s+cents\b\)?|\s*\(cents\)", re.I)
_A_COUNT_OF_DAYS = re.compile(r"\((?:days|weeks|months|nights)\)|\b(?:number of|how many|in)\s+(?:days|weeks|months|nights)\b",
                              re.I)
_IN_PACKS = re.compile(r"\s*\(?\b(?:packs?|boxes|box|sets?|cases?|bundles?|pairs?|dozens?)(?:\s+of\s+\d+)?\b\)?", re.I)
_PRICED_EXTRA = re.compile(r"\+\s*\$\s*\d|\$\s*\d+(?:\.\d\d)?\s*(?:each|per\b|extra)|\bextra\s+\$\s*\d", re.I)


def _stored_as_is(marker: Any, name: str) -> bool:
    """Whether ``marker`` writes its parameter ``name`` into a column as it is (not multiplied)."""
    from veriweb.verify.dataflow import parse_effect

    return any(s.kind == "param" and s.value == name for e in marker.effects if e.op in ("insert", "update")
               for s in parse_effect(marker.name, e.op, e.table, e.sql).sources.values()) and not any(
        re.search(rf":{re.escape(name)}\s*\*|\*\s*:{re.escape(name)}\b", e.sql) for e in marker.effects)


def misworded_fields(site: Site) -> Iterator[tuple[str, str, str]]:
    """Each field of a form whose words ask for another unit or kind than the marker parameter it fills
    takes, or that charges unasked: path (of its label, or of ``checked``), the field's label, and what is
    wrong (ending in what it should be).

    - an amount asked "in cents" ("1999 for $19.99") for a money parameter, which reads dollars: $13.99
      typed as 1399 is $1,399.00;
    - a number of days ("Valid for (days)") for a date parameter, which refuses a number;
    - a checkbox adding a paid extra ("Checked bag (+$35 each)") ticked by default: whoever does not
      look is charged.
    """
    from veriweb.verify.checks_pages import param_fields

    for marker, param, field_el, where in param_fields(site):
        words = f"{field_el.label} {C.field_of(field_el, 'placeholder') or ''}"
        if param.type == "money" and _IN_CENTS.search(words):
            yield (f"{where}.label", field_el.label,
                   f"it asks for the amount in cents, but {marker.name}.{param.name} takes money in dollars: "
                   f"1999 typed for $19.99 is read as $1,999.00; it should ask for the amount in dollars")
        elif param.type in ("date", "datetime") and field_el.type in ("textbox", "date") \
                and _A_COUNT_OF_DAYS.search(words):
            yield (f"{where}.label", field_el.label,
                   f"it asks for a number of days, but {marker.name}.{param.name} takes a date, and refuses a "
                   f"number; it should ask for the date")
        elif param.type == "integer" and _IN_PACKS.search(words) and _stored_as_is(marker, param.name):
            yield (f"{where}.label", field_el.label,
                   f"it counts packs, but {marker.name} stores {param.name} as single items; it should ask "
                   f"for the number of items")
        elif field_el.type == "checkbox" and field_el.checked and _PRICED_EXTRA.search(field_el.label):
            yield (f"{where}.checked", field_el.label,
                   "the paid extra is ticked by default, so whoever submits the form without looking is "
                   "charged for it; it should start unticked")


def check_misworded_fields(site: Site) -> list[C.Issue]:
    """S013: see :func:`misworded_fields`. The repair asks in the parameter's terms, or unticks the box."""
    return [C.Issue("structural", C.FIELD_TYPE, location, f"form field {label!r}: {said}")
            for location, label, said in misworded_fields(site)]


_SAYS_ADDRESS = re.compile(r"\b(?:your\s+(?:\w+\s+)?)?e-?mail(?:\s+address)?\b", re.I)
_SAYS_NAME = re.compile(r"\b(?:your\s+)?(?:user\s?name|login name|account name|handle)\b", re.I)
_SIGN_IN_WITH = r"\b(?:with|using|by|enter)\s+"
"""What comes before the thing a login text asks for ("sign in with your e-mail address"); without it
"sign in to read your e-mail" would be taken for one."""


def login_words(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each text of the login page that tells people to sign in with an e-mail address where every
    account's login (the auth table's username column) is a name with no ``@``, or with a user name
    where every login is an address: path (of the text), the words said, what accounts sign in with (the
    login field's label), and one login."""
    auth = site.auth
    page = next((p for p in site.pages if auth is not None and p.route == auth.login_page), None)
    table = site.database.table(auth.table) if auth is not None else None
    if page is None or table is None:
        return
    logins = [r.get(auth.username_column) for r in table.rows if isinstance(r.get(auth.username_column), str)]
    if not logins:
        return
    addresses = all("@" in v for v in logins)
    if not addresses and any("@" in v for v in logins):
        return
    number = site.pages.index(page)
    forms = [e for e, _ in C.walk(page.elements, "") if e.type == "form" and getattr(e.action, "kind", "") == "login"]
    asked = next((f.label for form in forms for f in form.fields if f.name == auth.username_column or f.name == "username"),
                 "")
    if not asked or (_SAYS_ADDRESS if not addresses else _SAYS_NAME).search(asked):
        return  # the field itself asks for what the words say: the field is the contradiction, or nothing is
    for element, path in C.walk(page.elements, f"$.pages[{number}].elements"):
        text = C.field_of(element, "text") if element.type in ("text", "heading") else None
        if not isinstance(text, str) or not re.search(r"\b(?:sign|log)\s*(?:in|on)\b|\blogin\b", text, re.I):
            continue
        said = re.search(_SIGN_IN_WITH + f"({(_SAYS_NAME if addresses else _SAYS_ADDRESS).pattern})", text, re.I)
        if said is not None:
            yield f"{path}.text", said.group(1), asked, logins[0]


def check_login_words(site: Site) -> list[C.Issue]:
    """M003: see :func:`login_words`. The repair says what the login field asks for."""
    return [C.Issue("semantic", C.CONTRADICTORY_LABEL, location,
                    f"the login page tells people to sign in with {said!r}, but accounts sign in with their "
                    f"{asked.lower()} (such as {login!r}); it should say {('your ' + asked.lower())!r} for {said!r}")
            for location, said, asked, login in login_words(site)]


def prefix_searches(site: Site) -> Iterator[tuple[str, str, str]]:
    """Each list test that keeps only the rows whose text starts with what a search box sent
    (``startswith``), where neither the box nor the page says so ("starts with", "first letter"):
    "Slim Puffer Jacket" does not find the Navy Slim Puffer Jacket. The path of the test's ``op``,
    the column and the box's label."""
    typed: dict[tuple[str, str], str] = {}  # (page opened, field) -> the label of a free-text box filling it
    for form, _, page in C.searching_forms(site):
        for field_el in form.fields:
            if field_el.type == "textbox":
                typed[(page, field_el.name)] = f"{field_el.label} {C.field_of(field_el, 'placeholder') or ''}"
    titles = {p.id: p.title for p in site.pages}
    for element, path, page, index, cond in _query_tests(site):
        label = typed.get((page, cond.value.name))
        said = f"{label} {titles.get(page, '')} {C.field_of(element, 'label') or ''}"
        if cond.op == "startswith" and label is not None and not re.search(r"\bstart|\bbegin|prefix|first letter",
                                                                            said, re.I):
            yield f"{path}.query.where[{index}].op", cond.column, label.strip()


def check_prefix_searches(site: Site) -> list[C.Issue]:
    """M015: see :func:`prefix_searches`. The repair matches the words anywhere in the text."""
    return [C.Issue("semantic", C.EMPTY_FILTER, location,
                    f"the search box {label!r} finds only the rows whose {column} starts with the words typed: a "
                    f"word from the middle of a {column} finds nothing; it should match them anywhere (contains)")
            for location, column, label in prefix_searches(site)]


_AUTOMATIC = re.compile(r"[^.!?]*\b(?:deleted|removed|emptied|purged|erased|cleared)\b[^.!?]*"
                        r"\b(?:automatically|on its own|by itself)\b[^.!?]*[.!?]?|"
                        r"[^.!?]*\bautomatically\s+(?:deleted|removed|emptied|purged|erased|cleared)\b[^.!?]*[.!?]?", re.I)
_INCLUDING = re.compile(r"\s*\(?\b(?:including|incl\.?|with)\s+(delivery|shipping|postage|tax|taxes|vat|fees)\)?", re.I)
_TAKEN_WORDS = re.compile(r"\b(booked|sold|taken|reserved|used)\b", re.I)
_LEFT_WORDS = re.compile(r"\b(left|remaining|available|free)\b", re.I)


_FREE_DELIVERY = re.compile(r"[^.;!?]*\bfree\s+(?:standard\s+|express\s+|next[- ]day\s+)?(?:shipping|delivery|postage)\b[^.;!?]*[.;!?]?",
                            re.I)
_KEPT_AS_TYPED = re.compile(r"[^.;!?]*\b(?:case[- ]sensitive|exactly as (?:you )?(?:type|typed|enter|entered|write|wrote))\b"
                            r"[^.;!?]*[.;!?]?", re.I)
_SEARCHES_TEXT = re.compile(r"[^.!?]*\b(?:search(?:es)?|looks?\s+(?:in|through|at)|match(?:es)?|finds?)\b[^.!?]*?\b(text|body|"
                            r"bodies|content|contents|descriptions?|messages?)\b[^.!?]*[.!?]?", re.I)
_TEXT_COLUMNS = frozenset({"body", "text", "content", "description", "haystack", "message", "bio", "details", "summary"})
_UNITS = (("night", "night"), ("day", "day"), ("passenger", "passenger"), ("guest", "guest"), ("traveller", "traveller"),
          ("qty", "item"), ("quantity", "item"), ("seat", "seat"), ("ticket", "ticket"))


_PEOPLE = frozenset({"passenger", "guest", "traveller"})


def _effects_reading(site: Site, source: str) -> str:
    """The SQL of every effect that reads the table behind ``source`` (a table, or a view's main table)."""
    from veriweb.verify.checks_views import _main_from

    view = next((v for v in site.database.views if v.name == source), None)
    main = _main_from(view.sql) if view is not None else (source, source)
    table = main[0] if main else source
    return " ".join(e.sql for m in site.markers for e in m.effects
                    if re.search(rf"\b(?:FROM|JOIN)\s+\"?{re.escape(table)}\b|,\s*{re.escape(table)}\b", e.sql, re.I))


def _charged_units(sql: str, column: str) -> set[str]:
    """Every unit a marker's SQL multiplies a price column by (``nights * h.price``: {"night"})."""
    units = set()
    for found in re.finditer(rf"([\w.:()]+)\s*\*\s*(?:\w+\.)?{re.escape(column)}\b|\b(?:\w+\.)?{re.escape(column)}\s*\*\s*([\w.:()]+)",
                             sql):
        factor = (found.group(1) or found.group(2) or "").lower()
        units |= {u for word, u in _UNITS if word in factor}
    return units


def _charged_per(sql: str, column: str) -> str | None:
    """What a marker's SQL multiplies a price column by (``nights * h.price``: "night"), if it does."""
    for found in re.finditer(rf"([\w.:()]+)\s*\*\s*(?:\w+\.)?{re.escape(column)}\b|\b(?:\w+\.)?{re.escape(column)}\s*\*\s*([\w.:()]+)",
                             sql):
        factor = (found.group(1) or found.group(2) or "").lower()
        unit = next((u for word, u in _UNITS if word in factor), None)
        if unit is not None:
            return unit
    return None


def _pages_writing_case(site: Site) -> dict[str, str]:
    """Page id -> a marker posted from it that stores what is typed in upper or lower case."""
    out: dict[str, str] = {}
    for element, _, page_id in C.all_elements(site):
        action = C.field_of(element, "action")
        marker = site.marker(action.marker) if element.type == "form" and getattr(action, "kind", "") == "marker" else None
        if marker is not None and page_id is not None and any(
                re.search(r"\b(?:upper|lower)\s*\(\s*(?:\w+\s*\(\s*)?:\w+", e.sql, re.I) for e in marker.effects):
            out.setdefault(page_id, marker.name)
    return out


def _moved_on_insert(site: Site) -> dict[tuple[str, str], int]:
    """``(table, column)`` -> the sign a marker that adds a row (a booking, an order) moves the column by
    (``seats = seats - :passengers``: -1); columns moved both ways by such markers are left out."""
    signs: dict[tuple[str, str], set[int]] = {}
    for marker in site.markers:
        if not any(e.op == "insert" for e in marker.effects):
            continue
        for effect in marker.effects:
            if effect.op == "update":
                for column, sign in re.findall(r"\b(\w+)\s*=\s*\1\s*([-+])", effect.sql):
                    signs.setdefault((effect.table, column), set()).add(-1 if sign == "-" else 1)
    return {key: next(iter(found)) for key, found in signs.items() if len(found) == 1}


def claimed_words(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each text claiming what the site never does, or what a figure is not: path (of the text), the words,
    what they should be (``""``: nothing), and why.

    - mail "deleted automatically" (emptied, purged...): nothing on a site happens on its own, and no
      view or list hides rows by their age;
    - a figure "including delivery" (shipping, tax, fees) whose view computes it from no such column;
    - a figure called "booked" (sold, taken) that a marker adding a booking lowers (so it counts those
      left), or called "left" (remaining, free) that one raises;
    - "free shipping" where every shipping choice the marker prices costs something;
    - codes "case-sensitive", kept "exactly as typed", on a page whose form's marker changes their case;
    - a price "per stay" (booking, trip) that a marker multiplies by the nights (guests, items);
    - a search "in the text" of posts (bodies, descriptions) on a page whose lists match only other columns.
    """
    from veriweb.verify.checks_pages import base_column
    from veriweb.verify.checks_views import _select_items

    sql = " ".join([v.sql for v in site.database.views] + [e.sql for m in site.markers for e in m.effects])
    ages = re.search(r"'[-+]?\s*\d+\s+days?'|\bjulianday\b", sql, re.I)
    effects = " ".join(e.sql for m in site.markers for e in m.effects)
    fees = [re.findall(r"\b(?:THEN|ELSE)\s+(-?\d+(?:\.\d+)?)", found.group(2), re.I)
            for found in re.finditer(r"CASE\s+:(\w*(?:ship|deliver|postage)\w*)\s+(.*?)\bEND\b", effects, re.I | re.S)]
    always_charged = bool(fees) and all(f and all(float(n) != 0 for n in f) for f in fees)
    typed_as_is = _pages_writing_case(site)
    searched: dict[str, set[str]] = {}  # page -> the columns its lists match the words typed against
    for _, _, page, _, cond in _query_tests(site):
        if cond.op == "contains":
            searched.setdefault(page, set()).add(cond.column)
    views = {v.name: dict((name, expr) for expr, name in (_select_items(v.sql) or [])) for v in site.database.views}
    moved = _moved_on_insert(site)
    cache: dict[Any, Any] = {}
    for element, path, page_id, bound in bound_elements(site):
        text = C.field_of(element, "text")
        if not isinstance(text, str) or element.type not in ("text", "heading", "paragraph"):
            continue
        claim = _AUTOMATIC.search(text) if ages is None else None
        if claim is not None and "{" not in claim.group(0):
            yield (f"{path}.text", claim.group(0).strip(), "",
                   "nothing on the site happens on its own: no marker runs unless someone acts, and no list hides "
                   "rows by their age")
        free = _FREE_DELIVERY.search(text) if always_charged else None
        if free is not None and "{" not in free.group(0) and not re.search(r"\b(?:over|above|from|orders? of|at least)\b",
                                                                            free.group(0), re.I):
            yield (f"{path}.text", free.group(0).strip(), "",
                   "every way the site ships an order is charged for (the marker adds a fee for each)")
        columns = searched.get(page_id or "")
        body = _SEARCHES_TEXT.search(text) if columns and not columns & _TEXT_COLUMNS else None
        if body is not None and "{" not in body.group(0):
            yield (f"{path}.text", body.group(0).strip(), "",
                   f"the page's search matches only {', '.join(sorted(columns))}, not the {body.group(1)}")
        exact = _KEPT_AS_TYPED.search(text) if page_id in typed_as_is else None
        if exact is not None and "{" not in exact.group(0):
            yield (f"{path}.text", exact.group(0).strip(), "",
                   f"marker {typed_as_is[page_id]} changes the case of what is typed before it stores it")
        masked = re.sub(r"\{[^}]*\}", lambda m: "}" * len(m.group(0)), text)  # no full stop inside a reference
        for shown in re.finditer(r"\{row\.(\w+)(\|[a-z_]+)?\}", text):
            start = masked.rfind(".", 0, shown.start()) + 1
            sentence = text[start:shown.start()]
            before = text[max(start, masked.rfind("}", 0, shown.start()) + 1):shown.start()]
            included = _INCLUDING.search(sentence) if shown.group(2) == "|money" else None
            expr = views.get(bound or "", {}).get(shown.group(1))
            if included is not None and expr is not None and not re.search(included.group(1)[:4], expr, re.I):
                yield (f"{path}.text", included.group(0), "",
                       f"{{row.{shown.group(1)}}} is computed as {expr.strip()!r}, with no {included.group(1)} in it")
            per = re.match(r"\s*(?:a |an )?per (stay|booking|trip|order|visit|reservation)\b", text[shown.end():], re.I)
            unit = _charged_per(effects, shown.group(1)) if per is not None and shown.group(2) == "|money" else None
            if unit is not None and per is not None:
                yield (f"{path}.text", per.group(0).strip(), f"per {unit}",
                       f"a marker charges {{row.{shown.group(1)}}} once for every {unit}")
            head = re.match(r"\s*(?:a |an )?per (person|guest|passenger|traveller|traveler|head|adult)\b", text[shown.end():],
                            re.I)
            units = (_charged_units(_effects_reading(site, bound), shown.group(1))
                     if head is not None and shown.group(2) == "|money" and bound is not None else set())
            if head is not None and units and not units & _PEOPLE:
                yield (f"{path}.text", head.group(0), "",
                       f"a marker charges {{row.{shown.group(1)}}} once for every {' and '.join(sorted(units))}, "
                       f"whatever the number of people")
            base = base_column(site, bound, shown.group(1), cache) if bound is not None else None
            sign = moved.get(base) if base is not None else None
            word = (_TAKEN_WORDS if sign == -1 else _LEFT_WORDS if sign == 1 else None)
            found = word.search(before) if word is not None else None
            if found is not None:
                yield (f"{path}.text", found.group(0), "left" if sign == -1 else "booked",
                       f"a marker that adds a row {'lowers' if sign == -1 else 'raises'} {base[0]}.{base[1]}: the "
                       f"figure counts those {'left' if sign == -1 else 'taken'}")


def check_claimed_words(site: Site) -> list[C.Issue]:
    """M003: see :func:`claimed_words`. The repair drops the claim or names the figure for what it is."""
    return [C.Issue("semantic", C.CONTRADICTORY_LABEL, location,
                    f"the words {said!r} claim what is not so ({why}); it should say {right!r} for {said!r}")
            for location, said, right, why in claimed_words(site)]


def unskipped_choices(site: Site) -> Iterator[tuple[str, str, str]]:
    """Each list test on a value a searching form's choice fills, where the choice offers an empty value
    meaning every row (an "All" option, not a prompt such as "Choose a month") and the test is not left out when the value is empty (``skip_if_empty``): choosing
    "All" lists nothing (``airline_code = ''``). The path of the test, the column, the empty option's
    label."""
    empty: dict[tuple[str, str], str] = {}  # (page opened, field) -> the label of an option sending nothing
    for form, _, page in C.searching_forms(site):
        for field_el in form.fields:
            for option in C.field_of(field_el, "options") or []:
                if str(option.value).strip() == "" and re.search(r"\b(?:all|any|every\w*|anyone|both)\b", option.label, re.I):
                    empty.setdefault((page, field_el.name), option.label)  # not "Choose a month": a prompt
    for element, path, page, index, cond in _query_tests(site):
        label = empty.get((page, cond.value.name))
        if label is not None and not cond.skip_if_empty and cond.op not in ("is_null", "not_null"):
            yield f"{path}.query.where[{index}].skip_if_empty", cond.column, label


def check_unskipped_choices(site: Site) -> list[C.Issue]:
    """M015: see :func:`unskipped_choices`. The repair leaves the test out when the value is empty."""
    return [C.Issue("semantic", C.EMPTY_FILTER, location,
                    f"the list tests {column} even when the choice {label!r} sends nothing: choosing it lists no row; "
                    f"the test should be left out when the value is empty")
            for location, column, label in unskipped_choices(site)]


_BACK_OUT = re.compile(r"^\s*(?:never ?mind|go back|back|no|no,? thanks|not now|keep (?:it|them|the \w+)|don'?t|cancel)\W*$", re.I)
_GO_AHEAD = re.compile(r"^\s*(?:yes\b.*|i'?m sure|sure|confirm|proceed|ok|okay|do it|continue)\W*$", re.I)
_UNDONE_LATER = re.compile(r"\b(?:can|may|could)\s+(?:always\s+|still\s+)?(?:undo|reverse|restore|reopen|revert)\b|"
                           r"\bcan be (?:undone|reversed|restored|reopened)\b", re.I)
_FOR_GOOD = re.compile(r"\bforever\b|\bpermanent(?:ly)?\b|\b(?:cannot|can't|can not) be (?:undone|reversed|restored)\b|"
                       r"\bfor good\b|\birreversibl[ey]\b", re.I)


def dialog_words(site: Site) -> Iterator[tuple[str, str, str]]:
    """Each confirmation dialog whose words go against its marker: its buttons swapped ("Never mind"
    confirming, "Yes, I'm sure" backing out); a promise that an irreversible marker's change can be undone;
    a warning that a marker that deletes nothing, and is not irreversible, acts for good ("Delete this
    message forever?" over a move to the bin). Path (of the button or the words), the words, and what is
    wrong."""
    for element, path, _ in C.all_elements(site):
        confirm = C.field_of(element, "confirm")
        action = C.field_of(element, "action")
        marker = site.marker(action.marker) if element.type == "form" and getattr(action, "kind", "") == "marker" else None
        if confirm is None or isinstance(confirm, str) or marker is None:
            continue
        if _BACK_OUT.match(confirm.confirm or "") and _GO_AHEAD.match(confirm.cancel or ""):
            yield (f"{path}.confirm.confirm", confirm.confirm,
                   f"it confirms marker {marker.name} while {confirm.cancel!r} backs out: the buttons are swapped")
            continue
        deletes = any(e.op == "delete" for e in marker.effects)
        for attr in ("title", "text"):
            said = getattr(confirm, attr) or ""
            if marker.irreversible and _UNDONE_LATER.search(said) and not re.search(r"\b(?:cannot|can't|not)\b", said, re.I):
                yield (f"{path}.confirm.{attr}", said,
                       f"it says the change can be undone, but marker {marker.name} is irreversible")
            elif not marker.irreversible and not deletes and _FOR_GOOD.search(said):
                yield (f"{path}.confirm.{attr}", said,
                       f"it says the change is for good, but marker {marker.name} deletes nothing and can be undone")


def check_dialog_words(site: Site) -> list[C.Issue]:
    """M003: see :func:`dialog_words`. The repair swaps the buttons back, or says what the marker does."""
    return [C.Issue("semantic", C.CONTRADICTORY_LABEL, location, f"the dialog's {said!r}: {why}")
            for location, said, why in dialog_words(site)]


def check_truncated_lists(site: Site) -> list[C.Issue]:
    """M015: see :func:`truncated_lists`. The repair pages through the rows instead."""
    return [C.Issue("semantic", C.EMPTY_FILTER, location,
                    f"the list {label!r} stops at {limit} rows with no further pages, while {held} rows could be "
                    f"listed and no other list shows them: the rest is never seen; it should page through them")
            for location, label, limit, held in truncated_lists(site)]


def check_misnamed_link_values(site: Site) -> list[C.Issue]:
    """M015: see :func:`misnamed_link_values`. The repair passes the value under the name the page reads."""
    return [C.Issue("semantic", C.EMPTY_FILTER, location,
                    f"the link passes {name!r} to page {page!r}, which does not read it but reads {wanted!r}, which "
                    f"the link never passes: the value is lost; it should be passed as {wanted!r}")
            for location, name, page, wanted in misnamed_link_values(site)]


def check_misnamed_fields(site: Site) -> list[C.Issue]:
    """M015: see :func:`misnamed_fields`. The repair names the field for what the page reads."""
    return [C.Issue("semantic", C.EMPTY_FILTER, location,
                    f"the form sends {name!r} to page {page!r}, which does not read it but filters on {wanted!r}, "
                    f"which the form never sends: the choice is ignored; the field should be named {wanted!r}")
            for location, name, page, wanted in misnamed_fields(site)]


def check_ignored_fields(site: Site) -> list[C.Issue]:
    """M015: see :func:`ignored_fields`. The repair adds the test to the list that has the column."""
    return [C.Issue("semantic", C.EMPTY_FILTER, location,
                    f"the form sends {name!r} to page {page!r}, which never reads it: whatever is chosen there, "
                    f"the page shows the same rows")
            for location, name, page, _, _ in ignored_fields(site)]


def _option_values(site: Site) -> dict[tuple[str, str], set[str]]:
    """For each page and query field a searching form's choices fill, the values they send (listed, or
    read from a table's rows)."""
    sent: dict[tuple[str, str], set[str]] = {}
    for element, _, page in C.searching_forms(site):
        for field_el in element.fields:
            values = {str(C.field_of(o, "value")) for o in C.field_of(field_el, "options") or []} - {"", "None"}
            chosen = C.field_of(field_el, "options_query")
            table = site.database.table(chosen.query.table) if chosen is not None else None
            if table is not None and _keyed_labels(table, chosen):
                continue  # its value and label swapped (check_swapped_options): that is the defect, not the test
            if table is not None:  # choices read from a table: the values its rows send
                values |= {str(r.get(chosen.value)) for r in table.rows if r.get(chosen.value) is not None}
            if values:
                sent.setdefault((page, field_el.name), set()).update(values)
    return sent


def _held(site: Site, source: str, column: str, cache: dict[Any, Any]) -> set[str] | None:
    """The values the seed rows hold in ``column`` of a table or view (``None``: computed, or too few rows)."""
    from veriweb.verify.checks_pages import base_column

    base = base_column(site, source, column, cache)
    table = site.database.table(base[0]) if base is not None else None
    if table is None or len(table.rows) < 3 or base is None:
        return None
    return {str(r.get(base[1])) for r in table.rows if r.get(base[1]) is not None}


def _keyed_labels(table: Any, chosen: Any) -> bool:
    """Whether a choice read from ``table`` is labelled by the rows' key and sends a text column: the label
    and the value the wrong way round (it offers "1".."6" and sends names)."""
    column = table.column(chosen.value)
    return chosen.label == table.primary_key and chosen.value != table.primary_key and column is not None \
        and column.type == "text"


def swapped_options(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each choice read from a table labelled with the rows' key and sending a text column (the category
    filter offering "1".."6"): path of its ``options_query``, the field, the label column and the value column."""
    for element, path, _ in C.all_elements(site):
        for index, field_el in enumerate(C.field_of(element, "fields") or []):
            chosen = C.field_of(field_el, "options_query")
            table = site.database.table(chosen.query.table) if chosen is not None else None
            if table is not None and _keyed_labels(table, chosen):
                yield f"{path}.fields[{index}].options_query", field_el.label, chosen.label, chosen.value


def check_swapped_options(site: Site) -> list[C.Issue]:
    """M003: see :func:`swapped_options`. The repair labels the choices with the text and sends the key."""
    return [C.Issue("semantic", C.CONTRADICTORY_LABEL, location,
                    f"the choices of {field!r} are labelled with {label} (the rows' key) and send {value}: the label "
                    f"and the value are swapped")
            for location, field, label, value in swapped_options(site)]


def misread_filters(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each list test of a query value against a column that holds none of the values the form's
    choices send, while another column of the list holds them all (the "Customer group" choice
    compared with ``city``): the path of the test's column, the field, the column, and the other."""
    sent = _option_values(site)
    if not sent:
        return
    cache: dict[Any, Any] = {}
    for element, path, page, index, cond in _query_tests(site):
        name, source = cond.value.name, element.query.table
        values = sent.get((page, name))
        held = _held(site, source, cond.column, cache) if values and cond.op in ("=", None) else None
        if held is None or len(values) < 2 or values & held:
            continue
        others = [c for c in sorted(source_columns(site, source) or ()) if c != cond.column
                  and values <= (_held(site, source, c, cache) or set())]
        if len(others) > 1:  # several hold them (keys do): the one named for the choice
            others = [c for c in others if c in (name, f"{name}_id")]
        if len(others) == 1:
            yield f"{path}.query.where[{index}].column", name, cond.column, others[0]


def check_misread_filters(site: Site) -> list[C.Issue]:
    """M015: see :func:`misread_filters`. The repair tests the column that holds the choices."""
    return [C.Issue("semantic", C.EMPTY_FILTER, location,
                    f"the choice {field!r} is compared with {column}, which holds none of the values it offers "
                    f"({other} holds them all): every choice shows an empty list")
            for location, field, column, other in misread_filters(site)]


# ----------------------------------------------------------------------------- S004: a field the form never sends


def misaddressed_links(site: Site) -> Iterator[tuple[str, str, str, str, str]]:
    """Each link of a list row that fills an address value (``/hotels?city={row.name}``) with a column
    holding none of the values that the page it opens compares that value with (hotels by airport code),
    while another column of the row holds them all (``code``): every such link opens an empty list. The
    path of the link's ``href``, the value's name, the column it sends, the one it should, and the page."""
    from veriweb.verify.checks import _routes, resolve_href

    routes = _routes(site)
    tested: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for element, _, page_id, _, cond in _query_tests(site):
        if cond.op in (None, "=", "==") and element.query.table:
            tested.setdefault((page_id, cond.value.name), []).append((element.query.table, cond.column))
    if not tested:
        return
    from veriweb.verify.checks_views import mislabelled

    wrong = mislabelled(site)  # a compared column passed under another's name (C013): the view is wrong
    cache: dict[Any, Any] = {}
    for element, path, _, bound in bound_elements(site):
        href = C.field_of(element, "href")
        if element.type != "link" or bound is None or not isinstance(href, str) or "?" not in href:
            continue
        target = resolve_href(routes, href)
        for name, column in re.findall(r"[?&](\w+)=\{row\.(\w+)\}", href):
            tests = tested.get((target, name)) if target else None
            sent = _held(site, bound, column, cache) if tests else None
            if not tests or not sent:
                continue
            for source, compared in tests:
                if (source, compared) in wrong:
                    continue
                wanted = _held(site, source, compared, cache)
                if not wanted or sent & wanted:
                    continue
                fits = [c for c in sorted(source_columns(site, bound) or ()) if c != column
                        and (held := _held(site, bound, c, cache)) and held <= wanted]
                if len(fits) == 1:
                    yield f"{path}.href", name, column, fits[0], target
                    break


def check_misaddressed_links(site: Site) -> list[C.Issue]:
    """M015: see :func:`misaddressed_links`. The repair sends the column that holds the values."""
    return [C.Issue("semantic", C.EMPTY_FILTER, location,
                    f"the link sends {name}={{row.{column}}}, which holds none of the values page {page!r} compares "
                    f"{name} with: it opens an empty list; it should send {{row.{right}}}")
            for location, name, column, right, page in misaddressed_links(site)]


def unsent_fields(site: Site) -> Iterator[tuple[str, str, str]]:
    """Each field of a form that its marker argument of the same name does not send (``stock`` taken
    from the row, ``title`` from the body field, the street sent as the city and the city as the
    street): what is typed there is thrown away. The path of the argument, the field and what the
    argument sends instead."""
    from veriweb.scaffold.values import Ref

    for element, path, _ in C.all_elements(site):
        action = C.field_of(element, "action")
        if element.type != "form" or action is None or action.kind != "marker":
            continue
        names = {f.name for f in element.fields}
        for field_el in element.fields:
            sent = action.args.get(field_el.name)
            if field_el.type == "hidden" or sent is None or (isinstance(sent, Ref) and sent.ref == f"field.{field_el.name}"):
                continue
            if any(isinstance(v, Ref) and v.ref == f"field.{field_el.name}" and a not in names for a, v in action.args.items()):
                continue  # sent under another name that is no field's
            yield f"{path}.action.args.{field_el.name}", field_el.name, sent.ref if isinstance(sent, Ref) else repr(sent)


def check_unsent_fields(site: Site) -> list[C.Issue]:
    """S004: see :func:`unsent_fields`. The repair sends the field."""
    return [C.Issue("structural", C.FIELD_MISMATCH, location,
                    f"the form shows a field {name!r} but sends {instead} as {name}: it never sends what is typed "
                    f"into it")
            for location, name, instead in unsent_fields(site)]


def misfed_keys(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each marker argument named for a key (``project_id``) that a form fills with its row's own key
    (``row.id`` of a star) while the row has a column of that very name: it sends the key of another
    table's row. The path of the argument, its name, the source and what it should send."""
    from veriweb.scaffold.values import Ref

    for element, path, _, bound in bound_elements(site):
        action = C.field_of(element, "action")
        if element.type != "form" or action is None or action.kind != "marker" or bound is None:
            continue
        columns = source_columns(site, bound) or set()
        for name, value in action.args.items():
            if (isinstance(value, Ref) and value.ref == "row.id" and name.endswith("_id") and name in columns
                    and name != "id"):
                yield f"{path}.action.args.{name}", name, bound, f"row.{name}"


def check_misfed_keys(site: Site) -> list[C.Issue]:
    """S004: see :func:`misfed_keys`. The repair sends the row's column of the argument's name."""
    return [C.Issue("structural", C.FIELD_MISMATCH, location,
                    f"the form sends its {source} row's own key (row.id) as {name}, while the row holds {name}: it "
                    f"should send {right}")
            for location, name, source, right in misfed_keys(site)]


# ----------------------------------------------------------------------------- M011: tabs named for each other


def _words_of(elements: list[Any]) -> set[str]:
    """The stems of what a tab holds says it is about: the tables and views its lists read, their
    names, labels and empty texts, and its headings."""
    from veriweb.verify.wording import stem

    said = []
    for element, _ in C.walk(elements, "$"):
        if element.type in ("list", "table"):
            said += [element.query.table, C.field_of(element, "name") or "", C.field_of(element, "label") or "",
                     C.field_of(element, "empty_text") or ""]
        elif element.type == "heading":
            said.append(element.text)
    return {stem(w) for w in re.findall(r"[a-z]+", " ".join(said).lower().replace("_", " ")) if len(w) >= 3}


def swapped_tabs(site: Site) -> Iterator[tuple[str, str, str, int, int]]:
    """Two tabs of one widget each labelled with a name only the other one's content answers to ("Forums"
    over the accounts list, while the forums list sits under "Accounts"): the path of the widget's tabs,
    the two labels, and their indexes."""
    from veriweb.verify.wording import stem

    for element, path, _ in C.all_elements(site):
        tabs = C.field_of(element, "tabs") or []
        if len(tabs) < 2:
            continue
        about = [_words_of(t.elements) for t in tabs]
        named = [{stem(w) for w in re.findall(r"[a-z]+", (t.label or "").lower()) if len(w) >= 3} for t in tabs]
        pair = next(((a, b) for a in range(len(tabs)) for b in range(len(tabs)) if a != b and named[b]
                     and named[b] <= about[a] and not named[b] & about[b] and not named[a] & about[a]), None)
        if pair is not None:
            yield f"{path}.tabs", tabs[pair[0]].label, tabs[pair[1]].label, *pair


def check_swapped_tabs(site: Site) -> list[C.Issue]:
    """M011: see :func:`swapped_tabs`. The repair swaps the two labels."""
    return [C.Issue("semantic", C.AMBIGUOUS_CONTROL, f"{location}[{b}].label",
                    f"tab {second!r} holds what its words do not name, while tab {first!r} holds what {second!r} "
                    f"names: the two labels are the wrong way round")
            for location, first, second, _, b in swapped_tabs(site)]


# ----------------------------------------------------------------------------- M015: a list keyed by another table


def _entity(site: Site, source: str, column: str, cache: dict[Any, Any]) -> tuple[str, str] | None:
    """The table whose rows ``column`` of ``source`` names, and its key column: its own table for the
    primary key, the referenced table for a declared foreign key, ``None`` for anything else."""
    from veriweb.verify.checks_pages import base_column

    base = base_column(site, source, column, cache)
    table = site.database.table(base[0]) if base is not None else None
    if table is None or base is None:
        return None
    if base[1] == table.primary_key:
        return table.name, base[1]
    fk = next((f for f in table.foreign_keys if f.column == base[1]), None)
    return (fk.ref_table, fk.ref_column) if fk is not None else None


def miskeyed_filters(site: Site) -> Iterator[tuple[str, str, str, str, str]]:
    """Each list inside a record that keeps the rows whose key of one table equals the record's key of
    another (a user's profile listing the comments of the post whose id is the user's id: ``post_id =
    row.id`` over users), while exactly one column of the list names the record's table (``user_id``): the
    path of the test's column, the column, the table it names, the record's table and the right column."""
    cache: dict[Any, Any] = {}
    for element, path, _, bound in bound_elements(site):
        if element.type not in ("list", "table") or bound is None or not element.query.table:
            continue
        source = element.query.table
        for index, cond in enumerate(element.query.where):
            value = cond.value
            if getattr(value, "namespace", None) != "row" or cond.op not in (None, "=", "=="):
                continue
            named = _entity(site, source, cond.column, cache)
            shown = _entity(site, bound, value.name, cache)
            if named is None or shown is None or named[0] == shown[0]:
                continue
            fits = [c for c in sorted(source_columns(site, source) or ()) if c != cond.column
                    and _entity(site, source, c, cache) == shown]
            if len(fits) == 1:
                yield f"{path}.query.where[{index}].column", cond.column, named[0], shown[0], fits[0]


def check_miskeyed_filters(site: Site) -> list[C.Issue]:
    """M015: see :func:`miskeyed_filters`. The repair compares the column that names the record's table."""
    return [C.Issue("semantic", C.EMPTY_FILTER, location,
                    f"the list keeps the rows whose {column} (a key of {named}) equals the {shown} row's key it sits "
                    f"in: it lists another record's rows; it should compare {right}")
            for location, column, named, shown, right in miskeyed_filters(site)]


# ----------------------------------------------------------------------------- S011: two values passed crosswise


def crossed_values(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each link or form that passes two values crosswise, each under the other's name
    (``?check_in={query.check_out}&check_out={query.check_in}``; a marker's ``origin`` sent the
    ``destination`` field and the reverse): the path of the address (or of the first argument), the
    two names and the namespace they are read from."""
    from veriweb.scaffold.values import Ref

    for element, path, _ in C.all_elements(site):
        href = C.field_of(element, "href")
        if isinstance(href, str) and "?" in href:
            sent = {name: (space, read) for name, space, read in re.findall(r"[?&](\w+)=\{(\w+)\.(\w+)\}", href)}
            for a, (space, read) in sorted(sent.items()):
                if a < read and read != a and sent.get(read) == (space, a):
                    yield f"{path}.href", a, read, space
        action = C.field_of(element, "action")
        if element.type == "form" and action is not None and action.kind == "marker":
            args = {n: v for n, v in action.args.items() if isinstance(v, Ref)}
            for a, value in sorted(args.items()):
                other = args.get(value.name)
                if a < value.name and other is not None and other.name == a and other.namespace == value.namespace:
                    yield f"{path}.action.args.{a}", a, value.name, value.namespace


def check_crossed_values(site: Site) -> list[C.Issue]:
    """S011: see :func:`crossed_values`. The repair passes each value under its own name."""
    return [C.Issue("structural", C.WRONG_TARGET, location,
                    f"{a} is sent {space}.{b} and {b} is sent {space}.{a}: the two values are passed crosswise "
                    f"(each should be sent under its own name)")
            for location, a, b, space in crossed_values(site)]


_ALL_WORDS = re.compile(r"\b(?:all|any|every|each|whatever|regardless)\b", re.I)
_DOERS = frozenset("you i we they he she you've i've we've have has had".split())


def _without_deeds(text: str) -> str:
    """``text`` without each word that follows a subject or "have": a verb of what someone did ("the orders
    you placed", "have you placed"), not a state of the rows."""
    tokens = text.split()
    return " ".join(t for n, t in enumerate(tokens) if not (n and tokens[n - 1].lower().strip(",.?!") in _DOERS))


def unasked_states(site: Site) -> Iterator[tuple[str, str, str, Any, str]]:
    """Each retrieve task whose instruction's own words (its template, slots left out) put the rows it asks
    about in one state ("his biggest *refunded* order", "the *cancelled* booking") that its answer's query
    never tests: the answer reads rows in every state, so it answers another question, or one whose
    premise is false (none of the rows is in that state, and the honest reply is judged wrong). A state
    is one value of a status column of the rows' table, or a yes/no or amount column named by its own
    word (``refunded``, ``archived``). Only where the rows the query reads hold another state too.
    The path of the query's tests, the column, the test's operator and value, and the words."""
    from veriweb.verify.checks_data import ordered_rows
    from veriweb.verify.checks_guards import _domains
    from veriweb.verify.checks_tasks import _told

    domains = _domains(site)
    for number, task in enumerate(site.tasks):
        answer = task.answer
        if task.kind != "retrieve" or answer is None:
            continue
        listed = C.field_of(answer, "list_query")
        query, where = (listed, "answer.list_query") if listed is not None else \
            (getattr(answer.value, "query", None), "answer.value.query")
        if query is None:
            continue
        words = _told(task.template) if task.template else task.instruction
        for value in task.slots.values():
            words = words.replace(str(value), " ")
        words = _without_deeds(words)
        if _ALL_WORDS.search(words):
            continue
        source = query.table
        used = {cond.column for cond in query.where} | {o.column for o in query.order_by} | {query.select}
        rows = ordered_rows(site, query, task)
        for column in sorted(source_columns(site, source) or set()):
            if column in used:
                continue
            kind = _stored_type(site, source, column)
            domain = {v for v in (domains.get((source, column)) or domains.get(_passthrough(site, source).get(column, ()))
                                  or {}).values() if v.strip()}
            if kind == "text" and len(domain) >= 2 and len(named := _said_values(words, domain)) == 1:
                state = next(iter(named))
                test: tuple[str, Any] = ("=", state)
                already = rows is not None and all(row.get(column) == state for row in rows)
            elif kind in ("boolean", "integer", "money") and column.endswith("ed") and len(column) >= 5 \
                    and _said_values(words, {column.removeprefix("is_")}):
                test = ("=", True) if kind == "boolean" else (">", 0)
                already = rows is not None and all(row.get(column) for row in rows)
            else:
                continue
            if already:
                continue  # every row the answer reads is already in that state: the test changes nothing
            yield f"$.tasks[{number}].{where}.where", column, test[0], test[1], words.strip()
            break


def check_unasked_states(site: Site) -> list[C.Issue]:
    """M017: see :func:`unasked_states`. The repair adds the test (a task whose rows then hold no answer is
    dropped as unanswerable)."""
    return [C.Issue("semantic", C.ANSWER_ASKS_OTHER, location,
                    f"the task asks about rows that are {value if op == '=' and value is not True else column} "
                    f"({words!r}) but its answer never tests {column}, so it reads rows in any state: "
                    f"it should test {column} {op} {value!r}")
            for location, column, op, value, words in unasked_states(site)]


WORD_CHECKS = [check_text_figures, check_list_orders, check_filter_bounds, check_ignored_fields, check_misread_filters,
               check_swapped_tabs, check_unsent_fields, check_misfed_keys, check_listed_against_words, check_priced_against_words, check_untested_states,
               check_misaddressed_links, check_miskeyed_filters, check_crossed_values,
               check_misnamed_fields, check_misnamed_link_values,
               check_fixed_people, check_truncated_lists, check_strict_rooms, check_misworded_fields,
               check_login_words, check_prefix_searches, check_claimed_words,
               check_unskipped_choices, check_dialog_words, check_misfilled_fields,
               check_swapped_options, check_misrouted_forms,
               check_checkbox_numbers, check_unasked_states]

__all__ = ["WORD_CHECKS", "check_filter_bounds", "check_priced_against_words", "check_untested_states", "untested_states", "priced_against_words", "check_misfed_keys", "check_miskeyed_filters", "check_ignored_fields", "check_list_orders", "check_misread_filters",
           "check_swapped_tabs", "check_text_figures", "check_unsent_fields", "filter_bounds", "ignored_fields",
           "list_orders", "miskeyed_filters", "misread_filters", "swapped_tabs", "text_fixes", "unsent_fields"]
