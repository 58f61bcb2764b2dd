"""Checks that a control, a link, a list or an answer means what it says (S011, S015, M003, M013-M015).

- S015: a form posts a fixed key (a hidden input's stale id), or offers fixed choices, that
  name no row of the table its marker looks the parameter up in.
- S015: a choice list offering the rows of every user where the form's marker accepts only the
  signed-in user's own (a "Move to" list of everyone's folders).
- S011 on forms: a form inside a record posts another table's key (``row.user_id``) where its
  marker looks the parameter up in the record's own table.
- M003 widened: a button reading "Delete" (or "Remove", "Trash", ...) whose marker neither
  deletes nor marks anything deleted, cancelled, archived or closed; a button whose label undoes
  ("Unfollow", "Empty Bin", "Leave") on a form whose marker only adds rows.
- M013: a retrieve task's answer reads a column that no page shows: no agent can find it.
- M014: a link to a record's page whose words name the page next to it ("Reply to sender" opening
  ``/message/{id}/forward`` beside ``/message/{id}/reply``).
- M014: a fixed link whose text is the name (title or main heading) of another page and shares
  no word with the page it opens ("Order history" that opens the privacy page).
- M015: a list or table filters on a fixed value that no seed row has and no marker can write:
  it is always empty; or its own words name a period relative to today ("This month so far") and
  its fixed filter reads another ("2026-05" when today is in June).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from veriweb.scaffold import Site
from veriweb.scaffold.values import QueryValue, Ref, SqlPredicate
from veriweb.verify import checks as C
from veriweb.verify import dataflow
from veriweb.verify.checks_pages import base_column, bound_elements, row_columns, shown_columns
from veriweb.verify.intent import passes_key
from veriweb.verify.wording import EMAIL, flag_words, stem
from veriweb.verify.wording import words as content_words

_BY_KEY = re.compile(r"\bFROM\s+\"?(\w+)\"?(?:\s+(?:AS\s+)?(\w+))?\s+WHERE\s+(?:(\w+)\.)?\"?(\w+)\"?\s*=\s*:(\w+)\b",
                     re.I)
_WHERE_KEY = re.compile(r"^\s*(?:UPDATE|DELETE\s+FROM)\s+\"?(\w+)\"?.*?\bWHERE\s+\"?(\w+)\"?\s*=\s*:(\w+)\b",
                        re.I | re.S)
_DELETE_WORDS = re.compile(r"\b(delete|remove|trash|discard|purge|erase|destroy)\b", re.I)
_UNDO_WORDS = re.compile(r"\b(un(?:follow|star|save|subscribe|favou?rite|watch|pin|like|block|mute|assign|link)|"
                         r"leave|empty|clear|erase|withdraw|revoke|delete|remove|trash|discard|purge)\b", re.I)
_GONE = re.compile(r"delet|remov|trash|cancel|archiv|clos|purg|discard|refund|revok|hidden|inactive|disabl|unsave|"
                   r"unstar|leave|bin\b", re.I)


# ----------------------------------------------------------------------------- S015, S011 on forms


def key_tables(site: Site, marker: Any) -> dict[str, str]:
    """For each parameter of ``marker``, the table whose primary key it is compared with (a
    precondition's ``FROM T WHERE id = :p``, an effect's ``UPDATE T ... WHERE id = :p``) or
    stored as (an inserted foreign key column)."""
    out: dict[str, str] = {}

    def add(table: str, column: str, param: str) -> None:
        found = site.database.table(table)
        if found is not None and column == found.primary_key and param in {p.name for p in marker.params}:
            out.setdefault(param, table)

    for check in marker.preconditions:
        predicate = check.predicate
        sql = C.field_of(predicate, "sql")
        if not sql:
            continue
        local = {k: v.name for k, v in predicate.params.items() if isinstance(v, Ref) and v.namespace == "param"}
        for table, alias, qualifier, column, name in _BY_KEY.findall(sql):
            if not qualifier or qualifier in (alias, table):
                add(table, column, local.get(name, name))
    for effect in marker.effects:
        match = _WHERE_KEY.match(effect.sql)
        if match:
            add(match.group(1), match.group(2), match.group(3))
        table = site.database.table(effect.table)
        if effect.op != "insert" or table is None:
            continue
        write = dataflow.parse_effect(marker.name, effect.op, effect.table, effect.sql)
        for fk in table.foreign_keys:  # a parameter stored in a foreign key names a row of its table
            source = write.sources.get(fk.column)
            target = site.database.table(fk.ref_table)
            if source is not None and source.kind == "param" and target is not None and fk.ref_column in (
                    None, target.primary_key):
                add(fk.ref_table, target.primary_key, source.value)
    return out


def _marker_forms(site: Site) -> Iterator[tuple[Any, str, str | None, Any]]:
    for number, page in enumerate(site.pages):
        for element, path, bound in C.walk_bound(page.elements, f"$.pages[{number}].elements", None):
            if element.type == "form" and element.action.kind == "marker":
                marker = site.marker(element.action.marker)
                if marker is not None:
                    yield element, path, bound, marker


def check_form_keys(site: Site) -> list[C.Issue]:
    """S015 and S011: what a form posts as a row's key names an existing row of the right table."""
    keys = {t.name: {str(row.get(t.primary_key)) for row in t.rows} for t in site.database.tables}
    views: dict[Any, Any] = {}
    issues = []
    for form, path, bound, marker in _marker_forms(site):
        tables = key_tables(site, marker)
        for arg, value in form.action.args.items():
            table = tables.get(arg)
            if table is None:
                continue
            if isinstance(value, (int, str)) and not isinstance(value, bool) and str(value) not in keys[table]:
                issues.append(C.Issue("structural", C.KEY_NAMES_NOTHING, f"{path}.action.args.{arg}",
                                      f"form {form.submit!r} always posts {arg} = {value!r}, but {table} has no "
                                      f"row {value!r}: {marker.name} can never succeed"))
            elif isinstance(value, Ref) and value.namespace == "row" and bound is not None \
                    and (source := base_column(site, bound, value.name, views)) is not None \
                    and not passes_key(site, *source, table, site.database.table(table).primary_key):
                issues.append(C.Issue("structural", C.WRONG_TARGET, f"{path}.action.args.{arg}",
                                      f"form {form.submit!r} posts {bound}.{value.name} as {arg}, which "
                                      f"{marker.name} looks up in {table}: it acts on the wrong record"))
            elif isinstance(value, Ref) and value.namespace == "field":
                for number, field_el in enumerate(form.fields):
                    if field_el.name != value.name or C.field_of(field_el, "options_query") is not None:
                        continue
                    options = C.field_of(field_el, "options") or []
                    bad = [o.value for o in options if o.value not in keys[table] and o.value != ""]
                    if options and bad:
                        issues.append(C.Issue("structural", C.KEY_NAMES_NOTHING, f"{path}.fields[{number}].options",
                                              f"field {field_el.label!r} offers {', '.join(bad[:3])}, which name no "
                                              f"row of {table}: {marker.name} refuses them or stores a "
                                              f"key that points at nothing"))
    return issues


def _owned_choices(site: Site) -> Iterator[tuple[str, Any, str, str, str]]:
    """Each choice list (``options_query``) of a marker's form that offers the rows of every user where
    the marker accepts only the signed-in user's own (a "Move to" list of everyone's folders, refused by
    "Please choose one of your folders"): the path of the field's options query, the field, the marker,
    the table and the owner column."""
    for form, path, _, marker in _marker_forms(site):
        owned: dict[str, tuple[str, str]] = {}  # parameter -> (table, owner column) its guard holds it to
        for guard in marker.preconditions:
            predicate = guard.predicate
            if not isinstance(predicate, SqlPredicate):
                continue
            local = {k: v.name for k, v in predicate.params.items() if isinstance(v, Ref) and v.namespace == "param"}
            for name, param in local.items():
                found = re.search(rf"\bFROM\s+(\w+)\s+WHERE\s+(?:[^()]*?\s+AND\s+)?id\s*=\s*:{name}\b[^()]*?"
                                  rf"\b(user_id|owner_id)\s*=\s*:user_id\b", predicate.sql, re.I)
                if found is not None:
                    owned[param] = (found.group(1), found.group(2))
        for arg, value in form.action.args.items():
            if arg not in owned or not isinstance(value, Ref) or value.namespace != "field":
                continue
            table, owner = owned[arg]
            for number, field_el in enumerate(form.fields):
                choices = C.field_of(field_el, "options_query")
                if field_el.name != value.name or choices is None:
                    continue
                query = choices.query
                if query.table != table and table not in dataflow.view_tables(site, query.table):
                    continue
                if any(c.column == owner for c in query.where):
                    continue
                yield f"{path}.fields[{number}].options_query", field_el, marker.name, table, owner


def check_owned_choices(site: Site) -> list[C.Issue]:
    """S015: see :func:`_owned_choices`. The repair offers the signed-in user's own rows."""
    return [C.Issue("structural", C.KEY_NAMES_NOTHING, location,
                    f"field {field_el.label or field_el.name!r} offers the {table} of every user, but {marker} accepts "
                    f"only the signed-in user's own (its {owner}): the others are refused; it should offer "
                    f"those whose {owner} is the user's")
            for location, field_el, marker, table, owner in _owned_choices(site)]


def _shape(values: list[Any]) -> str | None:
    """``"address"`` when every value is an e-mail address, ``"plain"`` when none is (three values at least)."""
    texts = [str(v) for v in values if v not in (None, "")]
    if len(texts) < 3:
        return None
    at = sum(EMAIL.fullmatch(t.strip()) is not None for t in texts)
    return "address" if at == len(texts) else "plain" if at == 0 else None


def _column_values(site: Site, source: str, column: str, cache: dict[Any, Any]) -> list[Any]:
    """The seed values of ``source.column`` (a table's, or the table column a view shows unchanged)."""
    found = base_column(site, source, column, cache)
    table = site.database.table(found[0]) if found is not None else None
    return [r.get(found[1]) for r in table.rows] if table is not None and found is not None else []


def passed_shapes(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """S013: a link that fills a form's field through the address (``/compose?to={row.name}``) with a column
    whose values are not what the marker stores there (names where every stored recipient is an e-mail
    address), or a picker whose choices fill it so (a contact list sending names): the form is filled
    with what its marker cannot use. Yields the link's ``href`` path (or the picker's value), the
    column passed, the column that should be (the bound row's one column of the right kind, or ``""``) and
    what the marker stores."""
    routes = C._routes(site)
    fills: dict[tuple[str, str], tuple[str, str]] = {}  # (page, query param) -> (table.column stored, shape)
    for number, page in enumerate(site.pages):
        for form, _ in C.walk(page.elements, f"$.pages[{number}].elements"):
            if form.type != "form" or form.action.kind != "marker":
                continue
            marker = next((m for m in site.markers if m.name == form.action.marker), None)
            if marker is None:
                continue
            for field_el in form.fields:
                value = C.field_of(field_el, "value")
                if not (isinstance(value, Ref) and value.namespace == "query"):
                    continue
                args = [a for a, v in form.action.args.items() if isinstance(v, Ref) and v.namespace == "field"
                        and v.name == field_el.name]
                for effect in marker.effects:
                    write = dataflow.parse_effect(marker.name, effect.op, effect.table, effect.sql)
                    table = site.database.table(effect.table)
                    for column, source in write.sources.items():
                        if source.kind == "param" and source.value in args and table is not None:
                            shape = _shape([r.get(column) for r in table.rows])
                            if shape is not None:
                                fills[(page.id, value.name)] = (f"{effect.table}.{column}", shape)
    if not fills:
        return
    cache: dict[Any, Any] = {}
    for element, path, _, bound in bound_elements(site):
        if element.type != "link" or bound is None or "?" not in element.href:
            continue
        dest = C.resolve_href(routes, element.href)
        for name, column in re.findall(r"[?&](\w+)=\{row\.(\w+)(?:\|[a-z_]+)?\}", element.href):
            stored = fills.get((dest, name))
            if stored is None:
                continue
            shape = _shape(_column_values(site, bound, column, cache))
            if shape is None or shape == stored[1]:
                continue
            right = [n for n in row_columns(site, bound) if _shape(_column_values(site, bound, n, cache)) == stored[1]]
            yield f"{path}.href", column, right[0] if len(right) == 1 else "", stored[0]
    for element, path, dest in C.searching_forms(site):  # a picker whose choices fill the field: what they send
        for number, field_el in enumerate(element.fields):
            chosen = C.field_of(field_el, "options_query")
            stored = fills.get((dest, field_el.name))
            if chosen is None or stored is None:
                continue
            source = chosen.query.table
            shape = _shape(_column_values(site, source, chosen.value, cache))
            if shape is None or shape == stored[1]:
                continue
            right = [n for n in row_columns(site, source) if _shape(_column_values(site, source, n, cache)) == stored[1]]
            yield f"{path}.fields[{number}].options_query.value", chosen.value, right[0] if len(right) == 1 else "", stored[0]


def check_passed_shapes(site: Site) -> list[C.Issue]:
    """S013: see :func:`passed_shapes`."""
    return [C.Issue("structural", C.FIELD_TYPE, location,
                    f"the {'picker' if location.endswith('options_query.value') else 'link'} passes {column!r} into "
                    f"a form field its marker stores in {stored}, where every row "
                    f"holds another kind of value: the form is filled with what it cannot use")
            for location, column, _, stored in passed_shapes(site)]


# ----------------------------------------------------------------------------- M003 widened


def check_label_meaning(site: Site) -> list[C.Issue]:
    """M003: a delete-sounding button whose marker removes nothing, an undoing label on a form
    whose marker only adds (the labels :func:`veriweb.verify.checks.check_labels` does not know)."""
    issues = []
    from veriweb.verify.checks_guards import _domains

    domains = _domains(site)
    for form, path, _, marker in _marker_forms(site):
        ops = {e.op for e in marker.effects}
        label = form.submit
        meaning = marker.name + " " + " ".join(e.sql for e in marker.effects)
        issues += _said_elsewhere(site, form, marker, ops, meaning, path, domains)
        if C._DESTRUCTIVE.search(label) and ops == {"insert"}:
            continue  # reported by checks.check_labels
        found = _submit_issues(label, marker.name, meaning, ops, path)
        issues += (found or _names_other_marker(site, form, marker, path) or _sign_against_label(form, marker, path)
                   or _value_against_effect(label, marker, domains, f"{path}.submit", "button")
                   or _negates_name(label, marker.name, f"{path}.submit", "button")
                   or _constant_toggle(form, marker, path))
        if form.confirm is not None:  # the dialog's own "yes" button says what the marker does too
            # "Confirm", "Yes" and "OK" only agree to whatever the dialog asks: the words after them count
            said = re.sub(r"^\s*(?:confirm|yes|ok(?:ay)?|continue|proceed)\b[,:!.]?\s*", "", form.confirm.confirm,
                          flags=re.I)
            found = (_verb_against_name(said, marker.name, path) or _opposite_of_name(said, marker.name, path)
                     if said else [])
            issues += [C.Issue(i.cls, i.code, f"{path}.confirm.confirm",
                               i.message.replace("button", "dialog button", 1)) for i in found]
    return issues


def _said_elsewhere(site: Site, form: Any, marker: Any, ops: set[str], meaning: str, path: str,
                    domains: dict[tuple[str, str], dict[str, str]]) -> list[C.Issue]:
    """M003 in what a form says besides its button: its success message ("Contact restored." after
    ``delete_contact``; "marked as shipped" after a cancel) and its confirming dialog's title and text
    ("Delete this ticket?" before a state toggle): the opposite of its marker's verb, a removal its
    marker does not make, or a value its marker does not write."""
    texts = [(form.action.success_message or "", f"{path}.action.success_message", "success message")]
    if form.confirm is not None:
        texts += [(form.confirm.title or "", f"{path}.confirm.title", "dialog title"),
                  (form.confirm.text or "", f"{path}.confirm.text", "dialog text")]
    out: list[C.Issue] = []
    for text, where, what in texts:
        if not text.strip() or "{" in text:
            continue
        if _DELETE_WORDS.search(text) and "delete" not in ops and not _REMOVED.search(meaning):
            out.append(C.Issue("semantic", C.CONTRADICTORY_LABEL, where,
                               f"{what} {text!r} speaks of removing something, but {marker.name} removes nothing"))
            continue
        if ops == {"delete"} and _KEPT_WORDS.search(text) and not _DELETE_WORDS.search(text):
            out.append(C.Issue("semantic", C.CONTRADICTORY_LABEL, where,
                               f"{what} {text!r} speaks of keeping it somewhere, but {marker.name} only deletes"))
            continue
        found = (_opposite_of_name(text, marker.name, where) or _value_against_effect(text, marker, domains, where, what)
                 or (_against_label(text, form.submit, where) if what == "success message"
                     and not label_contradicts(form.submit, marker.name, ops, meaning) else [])
                 or _destination_against_text(site, text, marker, where, what))
        out += [C.Issue(i.cls, i.code, where, i.message.replace("button", what, 1)) for i in found]
        if not found:
            out += _negates_name(text, marker.name, where, what)
    return out


_KEPT_WORDS = re.compile(r"\b(?:move|moved|moving|archive|archived|archiving|restore|restored|keep|kept|"
                         r"saved for later|put back)\b", re.I)
"""Words of a dialog or message that say the thing is kept (moved, archived), which a pure delete is not."""
_REMOVED = re.compile(r"delet|remov|trash|purg|discard|eras|bin\b|unsave|unstar|leave", re.I)
"""Marker names and effects that take something away (a soft delete moving a row to the bin), which a
success message or dialog may call removing: closing or cancelling is not."""


NEGATED = re.compile(r"\b(?:without|not|never|don't|do not)\s+(\w+)", re.I)
"""A verb said not to be done ("without merging")."""


def _negates_name(text: str, name: str, where: str, what: str) -> list[C.Issue]:
    """M003: ``text`` says its marker's own verb is not done ("Close without merging" on ``merge_mr``)."""
    own = {stem(w) for w in re.split(r"[_\W]+", name) if len(w) >= 4}
    for match in NEGATED.finditer(text):
        if stem(match.group(1)) in own:
            return [C.Issue("semantic", C.CONTRADICTORY_LABEL, where,
                            f"{what} {text!r} says {match.group(0)!r}, but its marker {name} does just that")]
    return []


_SET_CONSTANT = re.compile(r"\b(\w+)\s*=\s*'([^']*)'")


def _value_against_effect(text: str, marker: Any, domains: dict[tuple[str, str], dict[str, str]],
                          where: str, what: str) -> list[C.Issue]:
    """M003: ``text`` names a value of a status-like column ("shipped") that the marker's update sets to
    another fixed value (``status = 'canceled'``), and neither that value nor a word of the marker's
    name: it says the marker does something it does not."""
    said = {stem(w) for w in re.findall(r"[A-Za-z]+", text)}
    own = {stem(marker.name.split("_")[0])}  # its verb: "Cancel", not "order" of cancel_order
    for effect in marker.effects:
        if effect.op != "update":
            continue
        match = re.search(r"\bSET\b(.*?)(?:\bWHERE\b|$)", effect.sql, re.I | re.S)
        for column, value in _SET_CONSTANT.findall(match.group(1) if match else ""):
            domain = domains.get((effect.table, column))
            if domain is None or value not in domain.values():
                continue
            if stem(value) in said or own & said:
                continue
            others = [v for v in domain.values() if v != value and " " not in v and stem(v) in said]
            if others:
                return [C.Issue("semantic", C.CONTRADICTORY_LABEL, where,
                                f"button {text!r} says {others[0]!r}, but its marker {marker.name} sets "
                                f"{effect.table}.{column} to {value!r}".replace("button", what, 1))]
    return []


_FLIPS = re.compile(r"\bSET\b.*?\b(\w+)\s*=\s*(?:1\s*-\s*(\w+)|NOT\s+(\w+)|CASE\s+WHEN\s+(\w+))", re.I | re.S)


def _constant_toggle(form: Any, marker: Any, path: str) -> list[C.Issue]:
    """M003: a button with one fixed text naming one way ("Mark as read") on a marker that flips a flag
    (``read = 1 - read``): on a row already that way it does the opposite of what it says."""
    if "{" in form.submit or re.search(r"\btoggle\b|/", form.submit, re.I):
        return []
    for effect in marker.effects:
        found = _FLIPS.search(effect.sql)
        if found is not None and found.group(1) in {found.group(2), found.group(3), found.group(4)}:
            return [C.Issue("semantic", C.CONTRADICTORY_LABEL, f"{path}.submit",
                            f"button {form.submit!r} says the same on every row, but its marker {marker.name} "
                            f"flips {effect.table}.{found.group(1)}: on a row already that way it does the opposite")]
    return []


_GENERIC_VERBS = {"save", "update", "edit", "set", "add", "create", "submit", "send", "change", "apply", "confirm",
                  "make", "new", "post", "go", "do", "get", "view", "open", "show", "mark", "toggle", "put",
                  "delete", "remove", "clear", "cancel", "close", "reset", "select", "choose", "sign", "log", "move"}
"""Verbs many markers share ("Save", "Delete", "Move to Bin"): naming one says nothing about which marker."""


def _names_other_marker(site: Site, form: Any, marker: Any, path: str) -> list[C.Issue]:
    """M003: a button whose label names what another marker of the site does to the same records, by that
    marker's own verb, and says nothing of its own marker ("Archive it" on a form that runs ``trash_email`` while
    ``archive_email`` exists): the button does something else than it says."""
    label = {stem(w) for w in re.findall(r"[A-Za-z]+", form.submit)}
    own = {stem(w) for w in re.split(r"[_\W]+", marker.name) if w}
    own |= {stem(w[2:]) for w in re.split(r"[_\W]+", marker.name) if w.startswith("un")}  # "Remove star": unstar
    if label & own:
        return []
    tables = {e.table for e in marker.effects}
    for other in site.markers:
        verb = other.name.split("_")[0].lower()
        if other.name == marker.name or verb in _GENERIC_VERBS or len(verb) < 4 or stem(verb) not in label:
            continue
        if not tables & {e.table for e in other.effects}:
            continue  # another kind of record: "Trash" on a contact's delete says how, not which marker
        return [C.Issue("semantic", C.CONTRADICTORY_LABEL, f"{path}.submit",
                        f"button {form.submit!r} says what marker {other.name} does, but its form runs "
                        f"{marker.name}")]
    return []


_UP_LABEL = re.compile(r"\b(?:up\s*vote|upvote|like|thumbs? up|increase|raise|plus)\b|\bup\b|(?<![\w+-])\+\s?1\b",
                       re.I)
_DOWN_LABEL = re.compile(r"\b(?:down\s*vote|downvote|dislike|thumbs? down|decrease|lower|minus)\b|\bdown\b|"
                         r"(?<![\w+-])[-\u2212]\s?1\b", re.I)


def _sign_against_label(form: Any, marker: Any, path: str) -> list[C.Issue]:
    """M003: a button that says up (or down) and sends a fixed number of the other sign ("Upvote"
    posting ``value: -1``)."""
    up, down = bool(_UP_LABEL.search(form.submit)), bool(_DOWN_LABEL.search(form.submit))
    if up == down:
        return []
    for name, value in form.action.args.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value != 0 and (value > 0) != up:
            return [C.Issue("semantic", C.CONTRADICTORY_LABEL, f"{path}.action.args.{name}",
                            f"button {form.submit!r} sends {name} = {value} to {marker.name}: the "
                            f"{'opposite' if value < 0 else 'reverse'} of what it says")]
    return []


_OPPOSITES = tuple((re.compile(a, re.I), re.compile(b, re.I)) for a, b in (
    (r"\bconfirm", r"\bcancel"), (r"\brestor", r"\b(?:trash|delet|purg|discard)"),
    (r"\binbox\b", r"\barchiv"), (r"\bmerg", r"\b(?:clos|declin)"),
    (r"\bcharg", r"\brefund"), (r"\bapprov", r"\b(?:reject|declin|deny)"), (r"\baccept", r"\b(?:reject|declin)"),
    (r"\b(?:re)?open\b", r"\bclos"), (r"\barchiv", r"\bunarchiv"), (r"\bpublish", r"\bunpublish"),
    (r"\bfollow", r"\bunfollow"), (r"\benabl", r"\bdisabl"), (r"\bactivat", r"\bdeactivat"),
    (r"\bjoin", r"\b(?:leav|left\b)"), (r"\bsubscrib", r"\bunsubscrib"), (r"\bpin(?:ned)?\b", r"\bunpin"),
    (r"\bstar(?:red)?\b", r"\bunstar"), (r"\bblock", r"\bunblock"), (r"\bmute", r"\bunmute"),
    (r"\block\b", r"\bunlock"), (r"\bupvot", r"\bdownvot"), (r"\badd\b", r"\bremov"),
    (r"\b(?:buy|bought)\b", r"\b(?:sell|sold\b)"), (r"\bassign", r"\bunassign"), (r"\bincreas", r"\bdecreas"),
    (r"\b(?:hide|hid|hidden)\b", r"\b(?:show|shown|unhide|unhid|unhidden)\b"), (r"\bwatch", r"\bunwatch"), (r"\bsave", r"\bunsave"),
))
"""Pairs of verbs that undo each other: a button saying one on a marker named for the other does the
opposite of what it says ("Restore" on ``trash_email``, "Charge customer" on ``refund_order``; a
message's past tense too: "You left the community." after ``join``)."""


_UP_DOWN = (re.compile(r"\b(?:upvot\w*|up\s*vote\w*|vote[sd]?\s+up|like[sd]?|thumbs?\s+up)\b|\+1\b", re.I),
            re.compile(r"\b(?:downvot\w*|down\s*vote\w*|vote[sd]?\s+down|dislike[sd]?|thumbs?\s+down)\b|(?<![\w+-])-1\b",
                       re.I))
"""Words for a vote up and a vote down ("Like", "+1"; "Dislike", "Vote down")."""


def _against_label(text: str, label: str, where: str) -> list[C.Issue]:
    """M003: a form's success message says one verb of a pair that undo each other, or one way of a vote,
    and its own button the other ("Your upvote was recorded." after "Dislike"): one marker may do both
    (a vote of either sign), so the button, not the marker's name, says which."""
    if opposite_words(text, label) is None:
        return []
    return [C.Issue("semantic", C.CONTRADICTORY_LABEL, where,
                    f"success message {text!r} says the opposite of the form's own label {label!r}")]


_LEAVE_WORDS = re.compile(r"\bleav(?:e|es|ing)\s+(?:(?:a|an|your|some)\s+)?(?:\w+\s+)?(?:feedback|notes?|comments?|"
                          r"replies|reply|reviews?|messages?|ratings?|tips?)\b", re.I)
"""Leaving something behind ("Leave a comment"), which is no leaving of a community."""


def opposite_words(text: str, label: str) -> str | None:
    """The words of ``text`` that ``label`` undoes, by one pair of verbs that undo each other or a vote's
    two ways ("Downvote" against "Like"), when neither says both; ``None`` when they agree or say
    nothing of the kind. An undoing word before the verb an "un" label undoes ("Remove the star" for
    "Unstar") counts as saying it; a label that states where things stand ("Following") says no verb."""
    if "{" in label:
        return None
    text = _LEAVE_WORDS.sub(" ", text)  # "Leave a comment" joins in
    for one, other in (*_OPPOSITES, _UP_DOWN):
        if one.pattern in (r"\bconfirm", r"\binbox\b"):
            continue  # a dialog's "Confirm" agrees to whatever it asks; "in your Inbox" says where, not what
        for said, meant in ((one, other), (other, one)):
            if meant.pattern.startswith(r"\bun") and _UNDOING.search(label):
                continue  # "Remove star" for "Unstar the project"
            if said.pattern.startswith(r"\bun") and _UNDOING.search(text):
                continue  # "Unstar" for "Remove the star from the project"
            found, pressed = meant.search(text), said.search(label)
            if found and not said.search(text) and pressed and not meant.search(label) \
                    and not _STATE_WORD.match(label[pressed.start():]):
                return found.group(0)
    return None


_STATE_WORD = re.compile(r"\w+(?:ed|ing)\b", re.I)
"""A toggle's label that says where things stand ("Following", "Starred", "Joined"), not what pressing
it does: such a button may well undo it."""


def _destination_against_text(site: Site, text: str, marker: Any, where: str, what: str) -> list[C.Issue]:
    """M003: ``text`` names a row the marker does not move things to ("Moved to Archived." after a marker
    that sets ``folder_id`` to the user's folder of kind ``trash``), and none the marker does: the row it
    names is another row of the same table, by a name the table's rows hold."""
    return row_against_text(site, text, [e.sql for e in marker.effects if e.op == "update"], where,
                            f"{what} {text!r}", f"{marker.name} moves it to")


def row_against_text(site: Site, text: str, sqls: list[str], where: str, said_by: str, does: str,
                     code: str = "M003") -> list[C.Issue]:
    """An issue when ``text`` names a row of a table by a name its rows hold, while ``sqls`` pick a row
    of that table by a fixed value (``(SELECT id FROM folders WHERE ... kind = 'trash')``) that the
    text names neither by that value nor by any name of the rows that hold it."""
    said = f" {' '.join(re.findall(r'[a-z0-9]+', text.lower()))} "
    for sql in sqls:
        for found in _TO_ROW.finditer(sql):
            table = site.database.table(found.group(2))
            if table is None:
                continue
            column, value = found.group(3), found.group(4)
            names = [c.name for c in table.columns if c.type == "text" and c.name != column]
            inside = [r for r in table.rows if str(r.get(column)) == value]
            outside = [r for r in table.rows if str(r.get(column)) != value]
            words = lambda v: f" {' '.join(re.findall(r'[a-z0-9]+', str(v).lower()))} "  # noqa: E731
            if not inside or any(words(v) in said for v in [value, *(r.get(n) for r in inside for n in names)]
                                 if v):
                continue
            other = next((r.get(n) for r in outside for n in names if isinstance(r.get(n), str)
                          and r.get(n).strip() and words(r.get(n)) in said), None)
            if other is not None:
                return [C.Issue(C.CHECKS[code][0], code, where,
                                f"{said_by} names {other!r}, but {does} the {table.name} row whose {column} is "
                                f"{value!r}")]
    return []


_TO_ROW = re.compile(r"\b(\w+)\s*=\s*\(\s*SELECT\s+\w+\s+FROM\s+\"?(\w+)\"?\s+WHERE\b[^()]*?\b(\w+)\s*=\s*'([^']*)'",
                     re.I)
"""An update that points a row at the row of another table picked by a fixed value (``folder_id = (SELECT id
FROM folders WHERE user_id = :user_id AND kind = 'trash')``)."""


_LOOKING = re.compile(r"^\s*(?:track|view|show|see|display|preview|print|browse|look at|read)\b", re.I)
"""Words a button that only shows something starts with ("Track this order", "View details")."""


def _submit_issues(label: str, name: str, meaning: str, ops: set[str], path: str) -> list[C.Issue]:
    """M003 for a submit button labelled ``label`` on marker ``name`` whose effects do ``ops``
    (``meaning``: the name and the effects' SQL), beyond what
    :func:`veriweb.verify.checks.check_labels` reports."""
    if _DELETE_WORDS.search(label) and "delete" not in ops and not _GONE.search(meaning):
        return [C.Issue("semantic", C.CONTRADICTORY_LABEL, f"{path}.submit",
                        f"button {label!r} sounds like it removes something, but {name} only changes or adds "
                        f"rows and marks nothing removed")]
    if ops == {"insert"} and _UNDO_WORDS.search(label) and not C._DESTRUCTIVE.search(label) \
            and not _GONE.search(name):
        return [C.Issue("semantic", C.CONTRADICTORY_LABEL, f"{path}.submit",
                        f"button {label!r} sounds like it undoes something, but {name} only adds rows")]
    if ops and _LOOKING.match(label) and not (_DELETE_WORDS.search(label) or _ENDING_WORDS.search(label)
                                               or _STARTING_WORDS.search(label)):
        return [C.Issue("semantic", C.CONTRADICTORY_LABEL, f"{path}.submit",
                        f"button {label!r} sounds like it only shows something, but its marker {name} "
                        f"{'deletes' if ops == {'delete'} else 'adds' if ops == {'insert'} else 'changes'} rows")]
    if ops not in ({"insert"}, {"delete"}) and (found := _verb_against_name(label, name, path)):
        return found
    return [] if _generic_contradiction(label, ops) else _opposite_of_name(label, name, path)


def label_contradicts(label: str, name: str, ops: set[str], sql: str = "") -> bool:
    """Whether the label checks (:func:`veriweb.verify.checks.check_labels`, :func:`check_label_meaning`)
    would call ``label`` a contradiction of marker ``name`` whose effects do ``ops`` (``sql``: their SQL)."""
    return _generic_contradiction(label, ops) or bool(_submit_issues(label, name, f"{name} {sql}", ops, ""))


def _generic_contradiction(label: str, ops: set[str]) -> bool:
    """Whether :func:`veriweb.verify.checks.check_labels` reports this label already."""
    destructive = bool(C._DESTRUCTIVE.search(label))
    constructive = bool(C._CONSTRUCTIVE.search(label)) and not destructive
    return (constructive and ops == {"delete"}) or (destructive and ops == {"insert"})


_UNDOING = re.compile(r"\b(?:remov(?:e|ed|es|ing)|stop(?:s|ped)?|undo(?:ne)?|clear(?:ed)?|drop(?:ped)?|"
                      r"take[sn]? off|turn(?:ed)? off|no longer)\b", re.I)
"""Words that undo whatever verb follows them ("Remove star" unstars)."""


def _opposite_of_name(label: str, name: str, path: str) -> list[C.Issue]:
    """M003: the button says one verb of a pair in :data:`_OPPOSITES`, and the marker's name the other
    (a label or a name with both verbs, "Confirm cancellation", is left alone, and so is an undoing
    word before the verb an ``un`` name undoes: "Remove star" on ``unstar``)."""
    named = name.replace("_", " ").replace("-", " ")
    for one, other in _OPPOSITES:
        for said, meant in ((one, other), (other, one)):
            if meant.pattern.startswith(r"\bun") and _UNDOING.search(label):
                continue
            if said.search(label) and not meant.search(label) and meant.search(named) and not said.search(named):
                return [C.Issue("semantic", C.CONTRADICTORY_LABEL, f"{path}.submit",
                                f"button {label!r} says the opposite of what its marker {name} does")]
    return []


_ENDING = re.compile(r"deactivat|disabl|cancel|void|archiv|clos|leave|withdraw|revok|suspend|unpublish|"
                     r"unfollow|unsubscrib|unwatch|unstar|unpin|unlike|block|ban\b|reject|decline", re.I)
"""Marker names that end, withdraw or undo something (``cancel_order``, ``leave_community``)."""
_STARTING = re.compile(r"activat|enabl|join|publish|restor|reopen|approv|subscrib|follow|unarchiv|accept", re.I)
"""Marker names that start or restore something (``activate_product``, ``join_community``)."""
_ENDING_WORDS = re.compile(r"\b(delete|remove|cancel|void|trash|discard|refund|revoke|close|archive|unsubscribe|"
                           r"deactivate|disable|leave|withdraw|suspend|unpublish|reject|decline|block|ban)\b", re.I)
_STARTING_WORDS = re.compile(r"\b(save|keep|add|create|publish|activate|enable|join|restore|reopen|approve|"
                             r"subscribe|follow|accept|unarchive|resume)\b", re.I)


def _verb_against_name(label: str, name: str, path: str) -> list[C.Issue]:
    """M003 on a marker that changes rows: a button that only starts or keeps something ("Save", "Keep",
    "Activate", "Join") on a marker named for ending it (``void_order``, ``deactivate_product``,
    ``leave_community``), or a button that only ends something ("Leave", "Cancel") on a marker named for
    starting it (``join_community``). A label with words of both kinds ("Save and close") is left alone."""
    ends, starts = bool(_ENDING_WORDS.search(label)), bool(_STARTING_WORDS.search(label))
    if ends == starts:
        return []
    ending = bool(_ENDING.search(name))
    starting = not ending and bool(_STARTING.search(name))
    if starts and ending:
        return [C.Issue("semantic", C.CONTRADICTORY_LABEL, f"{path}.submit",
                        f"button {label!r} sounds like it keeps or starts something, but its marker {name} "
                        f"ends it")]
    if ends and starting:
        return [C.Issue("semantic", C.CONTRADICTORY_LABEL, f"{path}.submit",
                        f"button {label!r} sounds like it ends something, but its marker {name} starts it")]
    return []


# ----------------------------------------------------------------------------- M013


def check_answer_shown(site: Site) -> list[C.Issue]:
    """M013: the column a retrieve task's answer reads is shown (or filtered, sorted on) somewhere."""
    shown = shown_columns(site)
    issues = []
    for number, task in enumerate(site.tasks):
        if task.kind != "retrieve" or task.answer is None:
            continue
        reads = []
        if isinstance(task.answer.value, QueryValue):
            reads.append((task.answer.value.query, f"$.tasks[{number}].answer.value.query.select"))
        if task.answer.list_query is not None:
            reads.append((task.answer.list_query, f"$.tasks[{number}].answer.list_query.select"))
        for query, where in reads:
            select = query.select
            if not select or select == "*" or C.field_of(query, "agg") or site.database.table(query.table) is None:
                continue
            if (query.table, select) in shown or base_column(site, query.table, select, {}) in shown:
                continue
            issues.append(C.Issue("semantic", C.HIDDEN_ANSWER, where,
                                  f"task {task.id!r} expects {query.table}.{select} as its answer, but no page "
                                  f"shows that column: no agent can find it"))
    return issues


# ----------------------------------------------------------------------------- M014


def _words(text: str) -> set[str]:
    return {w.rstrip("s") for w in re.findall(r"[a-z0-9]+", text.casefold()) if len(w) > 2 or w.isdigit()}


def page_names(site: Site) -> dict[str, set[str]]:
    """Each page's names: its title and its first top-level heading, where they are plain text."""
    out: dict[str, set[str]] = {}
    for page in site.pages:
        names = {page.title} if page.title and "{" not in page.title else set()
        heading = next((e for e in page.elements if e.type == "heading"), None)
        if heading is not None and "{" not in heading.text:
            names.add(heading.text)
        out[page.id] = {n.strip().casefold() for n in names if n.strip()}
    return out


def check_link_names(site: Site) -> list[C.Issue]:
    """M014: a fixed link whose text names another page and has nothing in common with its own."""
    routes = C._routes(site)
    names = page_names(site)
    owner = {}
    for page_id, found in names.items():
        for name in found:
            owner.setdefault(name, set()).add(page_id)
    issues = []
    for element, path, _ in C.all_elements(site):
        if element.type != "link" or "{" in element.href or "{" in element.text or not element.href.startswith("/"):
            continue
        dest = C.resolve_href(routes, element.href)
        text = element.text.strip().casefold()
        others = owner.get(text, set()) - {dest}
        if dest is None or not others or text in names.get(dest, set()):
            continue
        mine = set().union(*(_words(n) for n in names.get(dest, set()))) | _words(element.href.replace("-", " "))
        if _words(text) & mine:
            continue
        issues.append(C.Issue("semantic", C.LINK_NAMES_OTHER_PAGE, f"{path}.text",
                              f"link {element.text!r} opens {element.href!r} (page {dest!r}), but "
                              f"{element.text!r} is the name of page {sorted(others)[0]!r}"))
    return issues


def sibling_links(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each link to a record's page (``/message/{row.id}/forward``) whose words name a sibling page instead
    (one whose route differs in that one fixed part: "Reply to sender" where ``/message/{id}/reply`` is the
    reply page) and nothing of the page it opens. The path of the ``href``, the text, the page it opens and
    the address it should have."""
    from veriweb.verify.wording import stem

    routes = C._routes(site)
    names = page_names(site)
    shapes = {page.id: page.route.strip("/").split("/") for page in site.pages}
    for element, path, _ in C.all_elements(site):
        href = C.field_of(element, "href")
        text = C.field_of(element, "text")
        if element.type != "link" or not isinstance(href, str) or "{" not in href or not isinstance(text, str) \
                or "{" in text:
            continue
        dest = C.resolve_href(routes, href)
        if dest is None:
            continue
        said = {stem(w) for w in re.findall(r"[a-z]+", text.casefold())}
        own = {stem(w) for n in names.get(dest, set()) for w in re.findall(r"[a-z]+", n)}
        parts = href.split("?")[0].strip("/").split("/")
        mine = shapes[dest]
        if said & own or len(parts) != len(mine) or not any("{" in seg for seg in mine):
            continue  # only pages of one record: their fixed part says what is done with it
        for other, shape in shapes.items():
            if other == dest or len(shape) != len(mine):
                continue
            differ = [i for i, (a, b) in enumerate(zip(mine, shape)) if a != b]
            if len(differ) != 1 or "{" in shape[differ[0]] or "{" in mine[differ[0]]:
                continue
            at = differ[0]
            if stem(shape[at]) in said and stem(mine[at]) not in said and parts[at] == mine[at]:
                fixed = "/" + "/".join(parts[:at] + [shape[at]] + parts[at + 1:])
                fixed += href[len(href.split("?")[0]):]
                yield f"{path}.href", text, dest, fixed
                break


def leaving_links(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each link leaving the site (``mailto:{row.sender}``) whose words name a page of the site that no
    link, form or redirect opens ("Reply", while ``/message/{id}/reply`` is linked from nowhere): the page
    it meant is cut off, and an agent cannot follow the link. The path of the ``href``, the text, the
    page and the address it should have (its route with the row's columns of the route's names)."""
    from veriweb.verify.checks_pages import bound_elements, source_columns
    from veriweb.verify.wording import stem

    routes = C._routes(site)
    elements = list(bound_elements(site))
    opened = set()
    for element, _, _, _ in elements:
        for target in (C.field_of(element, "href"), getattr(C.field_of(element, "action"), "route", None),
                       getattr(C.field_of(element, "action"), "redirect", None)):
            if isinstance(target, str) and target.startswith("/"):
                opened.add(C.resolve_href(routes, target))
    cut_off = [p for p in site.pages if p.id not in opened and p.route != "/"]
    if not cut_off:
        return
    names = page_names(site)
    for element, path, _, bound in elements:
        href, text = C.field_of(element, "href"), C.field_of(element, "text")
        if element.type != "link" or not isinstance(href, str) or not href.startswith(("mailto:", "http://", "https://")) \
                or not isinstance(text, str) or "{" in text:
            continue
        said = {stem(w) for w in re.findall(r"[a-z]+", text.casefold())}
        columns = source_columns(site, bound) or set() if bound is not None else set()
        meant = [p for p in cut_off if said & {stem(w) for n in names.get(p.id, set()) | {p.id} for w in re.findall(r"[a-z]+", n)}]
        if len(meant) != 1:
            continue
        params = re.findall(r"\{(\w+)(?::\w+)?\}", meant[0].route)
        if all(name in columns for name in params):
            fixed = re.sub(r"\{(\w+)(?::\w+)?\}", lambda m: "{row." + m.group(1) + "}", meant[0].route)
            yield f"{path}.href", text, meant[0].id, fixed


def check_sibling_links(site: Site) -> list[C.Issue]:
    """M014: see :func:`sibling_links` and :func:`leaving_links`. The repair opens the page the words name."""
    issues = [C.Issue("semantic", C.LINK_NAMES_OTHER_PAGE, location,
                      f"link {text!r} opens page {dest!r}, whose words it shares none of, while its words name a "
                      f"page next to it: it should open {fixed}")
              for location, text, dest, fixed in sibling_links(site)]
    issues += [C.Issue("semantic", C.LINK_NAMES_OTHER_PAGE, location,
                       f"link {text!r} leaves the site, while its words name page {page!r}, which nothing else opens: "
                       f"it should open {fixed}")
               for location, text, page, fixed in leaving_links(site)]
    return issues


# ----------------------------------------------------------------------------- M015


def check_empty_filters(site: Site) -> list[C.Issue]:
    """M015: a list's fixed ``=`` condition matches no seed row and no marker can write its value."""
    writes = dataflow.site_writes(site)
    issues = []
    for element, path, _ in C.all_elements(site):
        if element.type not in ("list", "table"):
            continue
        table = site.database.table(element.query.table)
        if table is None or not table.rows:
            continue
        for number, cond in enumerate(element.query.where):
            value = cond.value
            if cond.op != "=" or isinstance(value, (Ref, QueryValue, dict, list)) or value is None \
                    or table.column(cond.column) is None:
                continue
            if any(str(row.get(cond.column)) == str(value) for row in table.rows):
                continue
            if any(w.table == table.name and w.op in ("insert", "update")
                   and dataflow.can_produce(site, w, cond.column, value) for w in writes):
                continue
            issues.append(C.Issue("semantic", C.EMPTY_FILTER, f"{path}.query.where[{number}].value",
                                  f"list shows {table.name} rows whose {cond.column} is {value!r}, but no row "
                                  f"has that value and nothing can write it: the list is always empty"))
    return issues


def inverted_flags(site: Site) -> Iterator[tuple[str, bool, str]]:
    """M015: a list on a page named for a yes/no column ("Starred", at ``/starred``) that shows the rows where
    the column is false, or one named for its negation ("Unread") that shows the rows where it is true.
    Yields the filter value's path, the value it should be, and the words that name it."""
    for number, page in enumerate(site.pages):
        said = " ".join([page.id, page.route or "", page.title or ""]).casefold()
        words = re.findall(r"[a-z]+", said)
        for element, path in C.walk(page.elements, f"$.pages[{number}].elements"):
            query = C.field_of(element, "query")
            if element.type not in ("list", "table") or query is None:
                continue
            table = site.database.table(query.table)
            own = re.findall(r"[a-z]+", _own_words(element).casefold())
            for index, cond in enumerate(query.where):
                column = table.column(cond.column) if table is not None else None
                flag = isinstance(cond.value, bool) or (column is not None and column.type == "boolean")
                if not flag or cond.op != "=" or cond.value not in (True, False, 0, 1):
                    continue  # a yes/no column (a view's is known by the literal it is compared with)
                named = flag_words(" ".join(words + own), cond.column)
                if named is not None and bool(cond.value) != named:
                    root = stem(cond.column)
                    word = next((w for w in words + own if root in stem(w)), cond.column)
                    yield f"{path}.query.where[{index}].value", named, word


def check_inverted_flags(site: Site) -> list[C.Issue]:
    """M015: see :func:`inverted_flags`."""
    return [C.Issue("semantic", C.EMPTY_FILTER, location,
                    f"a list on a page named {word!r} shows the rows whose flag is {not value}: what it shows is the "
                    f"opposite of what it says")
            for location, value, word in inverted_flags(site)]


_PERIOD_WORDS = (
    (re.compile(r"\b(?:this|current) month\b|\bmonth(?: |-)to(?: |-)date\b|\bmonth so far\b", re.I), "month", 0),
    (re.compile(r"\b(?:last|previous|past) month\b", re.I), "month", -1),
    (re.compile(r"\btoday(?:'s)?\b", re.I), "day", 0),
    (re.compile(r"\byesterday(?:'s)?\b", re.I), "day", -1),
    (re.compile(r"\b(?:this|current) year\b|\byear(?: |-)to(?: |-)date\b", re.I), "year", 0),
    (re.compile(r"\b(?:last|previous) year\b", re.I), "year", -1),
)
"""Words that name a calendar period relative to today: the period, and how many before the current one."""
_PERIOD_FORMS = {"month": re.compile(r"^\d{4}-\d{2}$"), "day": re.compile(r"^\d{4}-\d{2}-\d{2}$"),
                 "year": re.compile(r"^\d{4}$")}


def _period(today: Any, period: str, back: int) -> str:
    """Today's period (``2026-06``, ``2026-06-15``, ``2026``), or the one ``back`` before it."""
    import datetime as dt

    if period == "day":
        return (today + dt.timedelta(days=back)).isoformat()
    if period == "year":
        return str(today.year + back)
    index = today.year * 12 + today.month - 1 + back
    return f"{index // 12:04d}-{index % 12 + 1:02d}"


def _own_words(element: Any) -> str:
    """What a list, table or record says of itself: its label, empty text, headers and the texts inside it."""
    said = [str(C.field_of(element, name) or "") for name in ("label", "empty_text", "missing_text", "text")]
    for child, _ in C.walk(list(C.field_of(element, "elements") or []) + list(C.field_of(element, "item") or []), "$"):
        said.append(str(C.field_of(child, "text") or ""))
    for column in C.field_of(element, "columns") or []:
        said.append(str(C.field_of(column, "header") or ""))
    return " | ".join(said)


def calendar_filters(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """M015: a list, table or record whose words name a period relative to today ("This month so far",
    "Today's bookings") over a fixed filter on another period (``month = '2026-05'`` on a site whose
    today is 2026-06-15): what it shows is not what it says. Yields the filter value's path, the
    value, the value its words name, and those words."""
    today = site.clock.today
    for element, path, _ in C.all_elements(site):
        query = C.field_of(element, "query")
        if element.type not in ("list", "table", "record") or query is None:
            continue
        words = _own_words(element)
        named = [(found.group(0), period, back) for pattern, period, back in _PERIOD_WORDS
                 if (found := pattern.search(words)) is not None]
        if len({(period, back) for _, period, back in named}) != 1:
            continue  # no period named, or two (a list that compares this month with last)
        said, period, back = named[0]
        for number, cond in enumerate(query.where):
            value = cond.value
            if cond.op != "=" or not isinstance(value, str) or not _PERIOD_FORMS[period].match(value):
                continue
            right = _period(today, period, back)
            if value != right:
                yield f"{path}.query.where[{number}].value", value, right, said


def check_calendar_filters(site: Site) -> list[C.Issue]:
    """M015: see :func:`calendar_filters`."""
    return [C.Issue("semantic", C.EMPTY_FILTER, location,
                    f"it says {said!r} (today is {site.clock.today.isoformat()}, so {right}) but shows the rows "
                    f"of {value}: what it shows is not what it says")
            for location, value, right, said in calendar_filters(site)]


_DESCENDING = re.compile(r"\bhigh(?:est)? to low\b|\bz ?(?:-|to) ?a\b|\b(?:highest|most|largest|biggest|latest|"
                         r"newest|descending|reverse|best|top|recent|recently|longest|dearest)\b", re.I)
_ASCENDING = re.compile(r"\blow(?:est)? to high\b|\ba ?(?:-|to) ?z\b|\b(?:lowest|least|fewest|cheapest|earliest|"
                        r"oldest|ascending|smallest|quickest|shortest|alphabetical)\b", re.I)


def check_sort_labels(site: Site) -> list[C.Issue]:
    """M003: a sort link whose words say one direction ("Price: high to low", "Newest first") over a
    sort in the other: the list comes out the other way round from what its link says."""
    issues = []
    for number, page in enumerate(site.pages):
        for element, path in C.walk(page.elements, f"$.pages[{number}].elements"):
            for index, sort in enumerate(getattr(element, "sorts", None) or []):
                down, up = bool(_DESCENDING.search(sort.label)), bool(_ASCENDING.search(sort.label))
                if (down and not up and sort.dir == "asc") or (up and not down and sort.dir == "desc"):
                    issues.append(C.Issue("semantic", C.CONTRADICTORY_LABEL, f"{path}.sorts[{index}].label",
                                          f"sort {sort.label!r} orders {sort.column} {sort.dir}ending: the "
                                          f"other way round from what it says"))
    return issues


def _names_column(sort: Any, column: str) -> bool:
    """Whether a sort link's key or words name ``column`` ("most_comments" and "Busiest" for ``comments``
    by the key; "Top scoring" by the words)."""
    from veriweb.verify.checks_tasks import _SORT_SYNONYMS
    from veriweb.verify.wording import stem

    said = {stem(w) for w in re.findall(r"[a-z]+", f"{sort.key} {sort.label}".lower().replace("_", " "))}
    names = {column, *column.split("_"), *_SORT_SYNONYMS.get(column, ())}
    return any(stem(n) in said for n in names if len(n) >= 3)


def duplicate_sorts(site: Site) -> Iterator[tuple[str, Any, str | None]]:
    """Each sort link whose key and words name one number column of its list but that sorts by another
    they do not name ("Top scoring" sorting by ``comments``), or that orders its list as another of the
    same list does while only the other names that column: its path, itself, and the one column its key
    or words name instead (``None``: none, and the link repeats its twin)."""
    from veriweb.verify.checks_pages import source_columns
    from veriweb.verify.checks_tasks import _text_type

    for number, page in enumerate(site.pages):
        for element, path in C.walk(page.elements, f"$.pages[{number}].elements"):
            sorts = list(getattr(element, "sorts", None) or [])
            for index, sort in enumerate(sorts):
                if _names_column(sort, sort.column):
                    continue
                used = {t.column for t in sorts}
                columns = sorted(c for c in (source_columns(site, element.query.table) or ()) if c not in used
                                 and _text_type(site, element.query.table, c) in ("integer", "money", "real", "date", None)
                                 and _names_column(sort, c))
                twin = next((t for t in sorts if t is not sort and (t.column, t.dir) == (sort.column, sort.dir)), None)
                if len(columns) == 1 or (twin is not None and _names_column(twin, sort.column)):
                    yield f"{path}.sorts[{index}].column", sort, columns[0] if len(columns) == 1 else None


def check_duplicate_sorts(site: Site) -> list[C.Issue]:
    """M003: see :func:`duplicate_sorts`. The repair sorts by the column the link names, or removes it."""
    return [C.Issue("semantic", C.CONTRADICTORY_LABEL, location,
                    f"sort {sort.label!r} orders by {sort.column}, which its key {sort.key!r} and words do not name"
                    + (f"; its words name {right!r}" if right else ", as another sort link of its list that says so does")
                    + ": the link does not order what it says")
            for location, sort, right in duplicate_sorts(site)]


# ----------------------------------------------------------------------------- option values swapped

_OFF = re.compile(r"^\s*(?:off|no|none|disabled?|hidden|hide|never|inactive|false|unpaid|closed)\b", re.I)
_ON = re.compile(r"^\s*(?:on|yes|enabled?|shown|show|always|active|true|paid|open)\b", re.I)


_NUMBER = re.compile(r"(?<![\w.$])(\d+)(?![\w.%])")
"""A whole number an option's words state ("4 stars or more"; not "$5" or "2.5")."""


def swapped_options(options: list[Any]) -> tuple[int, int, str] | None:
    """Two options of a drop-down (or radio group) whose values are the wrong way round, as their
    indexes and why: "Off" sending 1 while "On" sends 0; "At most 1 stop" sending 0 while another
    option sends 1; "Unread" sending ``starred`` while "Flagged" sends ``unread``; "Milan (MUC)"
    sending ``MXP`` while "Munich (MXP)" sends ``MUC``. ``None`` when nothing says so."""
    pairs = [(str(getattr(o, "label", None) or (o.get("label") if isinstance(o, dict) else "") or ""),
              str(getattr(o, "value", None) if not isinstance(o, dict) else o.get("value"))) for o in options]
    values = [v for _, v in pairs]
    if sorted(values) == ["0", "1"]:
        off = [n for n, (label, _) in enumerate(pairs) if _OFF.match(label)]
        on = [n for n, (label, _) in enumerate(pairs) if _ON.match(label)]
        if len(off) == 1 and len(on) == 1 and pairs[off[0]][1] == "1" and pairs[on[0]][1] == "0":
            return off[0], on[0], f"{pairs[off[0]][0]!r} sends 1 and {pairs[on[0]][0]!r} sends 0"
    for n, (label, value) in enumerate(pairs):  # a label naming another option's value, not its own
        other = next((m for m, (l2, v2) in enumerate(pairs) if m != n and v2 and not v2.isdigit()
                      and _says_value(label, v2) and not _says_value(l2, v2)), None)
        if value and not value.isdigit() and other is not None and not _says_value(label, value):
            return n, other, f"{label!r} sends {value!r} while {pairs[other][0]!r} sends {pairs[other][1]!r}"
    for n, (label, value) in enumerate(pairs):
        said = _NUMBER.findall(label)
        if len(said) != 1 or not value.isdigit() or said[0] == value or re.search(r"[$€£]", label):
            continue
        other = next((m for m, (_, v) in enumerate(pairs) if v == said[0] and m != n), None)
        # the other option says no number, or says this one's value: the two are swapped ("1 star" sends 5
        # while "5 stars" sends 1)
        if other is not None and _NUMBER.findall(pairs[other][0]) in ([], [value]):
            return n, other, f"{label!r} sends {value} while {pairs[other][0]!r} sends {said[0]}"
    return None


def _says_value(label: str, value: str) -> bool:
    """Whether an option's words name its value: a number it states, or a word of it in any form
    ("Shipped" for ``shipped``, "Not yet read" for ``unread``, "Open" for ``open``)."""
    from veriweb.verify.wording import stem

    numbers = _NUMBER.findall(label)
    if numbers:
        return value in numbers
    said = {stem(w) for w in re.findall(r"[a-z]+", label.lower())}
    negated = bool(said & {"not", "no", "un"})
    for word in re.findall(r"[a-z]+", value.lower()):
        if stem(word) in said or (negated and word.startswith("un") and stem(word[2:]) in said):
            return True
    return False


def _known_values(site: Site) -> set[str]:
    """Every value the site's data, SQL and forms hold (the values an option may stand for)."""
    known = {str(v) for t in site.database.tables for r in t.rows for v in r.values() if isinstance(v, (str, int))}
    sql = " ".join([v.sql for v in site.database.views] + [e.sql for m in site.markers for e in m.effects])
    return known | {v.strip() for v in re.findall(r"'([^']*)'", sql)}


def misvalued_options(site: Site, options: list[Any]) -> tuple[int, str | None, str] | None:
    """An option sending the value another option of the same list sends, while its words name another
    value, or the other's name that one ("Open" sending ``closed`` beside "Closed"; "4 stars or more"
    sending 3 beside "3 stars or more"): its index, the value its words name (a number it states, or the
    one value the site knows that they name and no option sends; ``None`` when there is none), and why."""
    pairs = [(str(C.field_of(o, "label") or ""), str(C.field_of(o, "value"))) for o in options]
    for n, (label, value) in enumerate(pairs):
        other = next((m for m, (l2, v2) in enumerate(pairs) if m != n and v2 == value and l2 != label), None)
        if value == "" or other is None or _says_value(label, value):
            continue
        sent = {v for _, v in pairs}
        numbers = _NUMBER.findall(label)
        if numbers:
            right = numbers[0] if numbers[0] not in sent else None
        else:
            shapes = {(v == v.lower(), len(v.split())) for v in sent if v}  # written as the others are
            named = sorted(v for v in _known_values(site) - sent if v and (v == v.lower(), len(v.split())) in shapes
                           and _says_value(label, v))
            right = named[0] if len(named) == 1 else None
        if right is None and not _says_value(pairs[other][0], value):
            continue  # neither option's words say which of them the value is
        return n, right, f"{label!r} sends {value!r}, as {pairs[other][0]!r} does"
    return None


def check_option_values(site: Site) -> list[C.Issue]:
    """M003: a drop-down whose options' values are the wrong way round for their words (see
    :func:`swapped_options`): choosing what it says sends the opposite; or one whose option sends
    another option's value (see :func:`misvalued_options`)."""
    issues = []
    for element, path, _ in C.all_elements(site):
        for number, field in enumerate(C.field_of(element, "fields") or []):
            options = C.field_of(field, "options") or []
            found = swapped_options(options) if len(options) >= 2 else None
            if found is not None:
                issues.append(C.Issue("semantic", C.CONTRADICTORY_LABEL, f"{path}.fields[{number}].options",
                                      f"field {C.field_of(field, 'label')!r}: {found[2]}, the opposite of what "
                                      "the words say"))
                continue
            same = misvalued_options(site, options) if len(options) >= 2 else None
            if same is not None:
                right = f"; its words name {same[1]!r}" if same[1] is not None else ""
                issues.append(C.Issue("semantic", C.CONTRADICTORY_LABEL,
                                      f"{path}.fields[{number}].options[{same[0]}].value",
                                      f"field {C.field_of(field, 'label')!r}: {same[2]}{right}: choosing it "
                                      "does what the other option does"))
    return issues


_OPTIONAL = re.compile(r"\boptional\b|\bextras?\b|\bif you (?:like|wish|want)\b", re.I)


def check_hidden_forms(site: Site) -> list[C.Issue]:
    """M003: a closed section labelled as optional ("Gift wrapping (optional)") that holds a form about
    something else ("Place order"): a visitor, or an agent, takes what the page needs for an extra and
    leaves it shut. The repair labels the section with what its form does."""
    issues = []
    for number, page in enumerate(site.pages):
        for element, path in C.walk(page.elements, f"$.pages[{number}].elements"):
            if element.type != "collapsible" or element.open or not _OPTIONAL.search(element.label):
                continue
            label = _OPTIONAL.sub(" ", element.label)
            for inner, _ in C.walk(element.elements, ""):
                if inner.type != "form" or inner.action.kind != "marker" or not inner.submit.strip():
                    continue
                said = " ".join([inner.submit, inner.action.marker.replace("_", " ")] +
                                [f.label for f in C.field_of(inner, "fields") or []])
                if not content_words(label) & content_words(said):
                    issues.append(C.Issue("semantic", C.CONTRADICTORY_LABEL, f"{path}.label",
                                          f"the closed section {element.label!r} says it is optional but holds the form "
                                          f"{inner.submit!r}, which it does not name; it should say "
                                          f"'{inner.submit}' for '{element.label}'"))
                    break
    return issues


def unheld_choices(site: Site) -> Iterator[tuple[str, str, str, str, str, str]]:
    """Each option of a search form's drop-down that sends a value the list it filters never holds: the
    list tests ``column = query.field`` and the option sends a state no row is in or can get ("Open"
    sending ``opened`` where requests are ``open``): choosing it always lists nothing. Only where the value
    is another form of one value the rows do hold, which its words name (a code where the rows hold
    names is another defect: the list's, see the view checks). The option's path, its words, its value,
    the list's source and column, and that value."""
    from veriweb.verify.checks_guards import _domains
    from veriweb.verify.checks_pages import _passthrough

    domains = _domains(site)
    def shape(route: str) -> str:
        return re.sub(r"\{[^}]*\}", "{}", route.split("?")[0])

    routes = {shape(page.route): page for page in site.pages}
    for element, path, _ in C.all_elements(site):
        if element.type != "form" or element.action.kind != "navigate":
            continue
        target = routes.get(shape(str(element.action.route)))
        if target is None:
            continue
        tests = {}
        for found, _, _ in C.walk_bound(target.elements, "$", None):
            query = C.field_of(found, "query") if found.type in ("list", "table") else None
            for cond in (query.where if query is not None else []):
                if cond.op == "=" and isinstance(cond.value, Ref) and cond.value.namespace == "query":
                    tests[cond.value.name] = (query.table, cond.column)
        for number, field_el in enumerate(C.field_of(element, "fields") or []):
            if field_el.name not in tests or not C.field_of(field_el, "options"):
                continue
            source, column = tests[field_el.name]
            held = set((domains.get((source, column)) or domains.get(_passthrough(site, source).get(column, ())) or {})
                       .values())
            if not held:
                continue
            for o_index, option in enumerate(field_el.options):
                value, label = str(option.value), str(option.label)
                if value == "" or value in held:
                    continue
                named = sorted(v for v in held if _says_value(label, v) and stem(v.lower()) == stem(value.lower()))
                if len(named) == 1:  # another form of a held value its words name ("opened" for "open")
                    yield f"{path}.fields[{number}].options[{o_index}].value", label, value, source, column, named[0]


def check_unheld_choices(site: Site) -> list[C.Issue]:
    """M003: see :func:`unheld_choices`. The repair sends the value the option's words name."""
    return [C.Issue("semantic", C.CONTRADICTORY_LABEL, location,
                    f"option {label!r} sends {value!r}, which no {source}.{column} holds or gets: choosing it always "
                    f"lists nothing; its words name {right!r}")
            for location, label, value, source, column, right in unheld_choices(site)]


MEANING_CHECKS = [check_option_values, check_form_keys, check_label_meaning, check_answer_shown, check_link_names, check_empty_filters, check_calendar_filters,
                  check_inverted_flags, check_passed_shapes, check_sort_labels, check_duplicate_sorts, check_owned_choices,
                  check_sibling_links, check_hidden_forms,
                  check_unheld_choices]

__all__ = ["MEANING_CHECKS", "calendar_filters", "check_answer_shown", "check_calendar_filters", "check_duplicate_sorts",
           "check_empty_filters", "check_form_keys", "check_owned_choices", "duplicate_sorts", "misvalued_options",
           "check_inverted_flags", "check_label_meaning", "check_link_names", "check_sort_labels", "inverted_flags", "key_tables",
           "page_names"]
