"""Memoised page parts: a layout header or footer is built once per distinct input and copied after.

Most of a page's nodes are its layout (a header and a footer shared by every page: 60-67% of the
nodes built on a random walk of a shop or mail site), and what the layout shows rarely depends
on the page: a search box's value (``query.q``), the logged-in user, a menu's open state. So the
builder builds a part once while writing down everything it reads (each ``ctx`` value by
namespace and name, widget and field states, the URL, and the database version if it queries
rows), and keeps a plan of the nodes it made (their attributes and parent indexes), the forms it
registered and the modal dialog it opened. A later page whose reads give the same values gets a
copy made from the plan, which is what building would give: the build is a deterministic
function of what it read, and every input it has is recorded (the tests compare with fresh
builds on random walks of every domain).

Only the engine's own :class:`~veriweb.engine.page.PageBuilder` uses the memo (a subclass may
write things down on the way, as the HTTP server's does), only for builds without field edits or
focus, and only with the site's cache on (the memo lives in it, so ``cache=False`` builds afresh).
"""

from __future__ import annotations

from typing import Any
from weakref import ref as _ref

from veriweb.engine.page import FormInfo, Node, PageBuilder, _attrs
from veriweb.engine.query import Context
from veriweb.scaffold.values import REF_NAMESPACES

PLANS_LIMIT = 512
"""Plans kept per part of a site before that part's memo is emptied."""

_ALL = "*"
"""A read of a whole namespace (iterated, measured or copied) rather than of one name."""
_MISSING = object()


class _Reads(dict):  # type: ignore[type-arg]
    """A namespace of a context (or a widget or field table) that writes down what is read of it."""

    __slots__ = ("_space", "_log")

    def __init__(self, space: str, data: dict[str, Any], log: dict[tuple[str, str], None]) -> None:
        super().__init__(data)
        self._space = space
        self._log = log

    def get(self, name: Any, default: Any = None) -> Any:
        self._log[(self._space, name)] = None
        return super().get(name, default)

    def __getitem__(self, name: Any) -> Any:
        self._log[(self._space, name)] = None
        return super().__getitem__(name)

    def __contains__(self, name: Any) -> bool:
        self._log[(self._space, name)] = None
        return super().__contains__(name)

    def _whole(self) -> None:
        self._log[(self._space, _ALL)] = None

    def __iter__(self) -> Any:
        self._whole()
        return super().__iter__()

    def __len__(self) -> int:
        self._whole()
        return super().__len__()

    def keys(self) -> Any:
        self._whole()
        return super().keys()

    def values(self) -> Any:
        self._whole()
        return super().values()

    def items(self) -> Any:
        self._whole()
        return super().items()

    def copy(self) -> dict[str, Any]:
        self._whole()
        return dict(super().items())

    def __eq__(self, other: object) -> bool:
        self._whole()
        return super().__eq__(other)

    __hash__ = None  # type: ignore[assignment]


class _RecordedView:
    """The builder's UI view, writing down reads of the URL, the widgets and the fields."""

    __slots__ = ("_view", "_log", "fields", "widgets", "focus", "flash", "confirm")

    def __init__(self, view: Any, log: dict[tuple[str, str], None]) -> None:
        self._view, self._log = view, log
        self.fields = _Reads("@fields", view.fields, log)
        self.widgets = _Reads("@widgets", view.widgets, log)
        self.focus, self.flash, self.confirm = view.focus, view.flash, view.confirm

    @property
    def url(self) -> Any:
        self._log[("@url", "")] = None
        return self._view.url


class _RecordedData:
    """The builder's data source, writing down that rows were read (so the database version matters)."""

    __slots__ = ("_data", "_log")

    def __init__(self, data: Any, log: dict[tuple[str, str], None]) -> None:
        self._data, self._log = data, log

    def rows(self, *args: Any, **kwargs: Any) -> Any:
        self._log[("@version", "")] = None
        return self._data.rows(*args, **kwargs)

    def count(self, *args: Any, **kwargs: Any) -> Any:
        self._log[("@version", "")] = None
        return self._data.count(*args, **kwargs)


def _typed(value: Any) -> tuple[Any, Any]:
    """A value with its type, so that ``1``, ``True`` and ``1.0`` (equal in Python) are different reads."""
    return (value.__class__, value)


class PartMemo:
    """The memo of the layout parts of one site, used by one builder (see the module docstring)."""

    __slots__ = ("builder", "table")

    def __init__(self, builder: PageBuilder, table: dict[Any, Any]) -> None:
        self.builder = builder
        self.table = table

    def _value(self, read: tuple[str, str], ctx: Context) -> Any:
        space, name = read
        builder = self.builder
        if space == "@url":
            return str(builder.ui.url)
        if space == "@version":
            return builder.data.version  # type: ignore[attr-defined]
        source = (builder.ui.widgets if space == "@widgets" else builder.ui.fields if space == "@fields"
                  else getattr(ctx, space))
        if name == _ALL:
            return tuple((key, *_typed(value)) for key, value in source.items())
        return _typed(source.get(name, _MISSING))

    def add(self, parent: Node, items: list[Any], ctx: Context, key: str) -> None:
        """Add the nodes of ``items`` under ``parent``: copied from a plan when one fits, else built and planned."""
        if not items:
            return
        entry = self.table.get((key, id(items)))
        if entry is not None:
            for reads, plans in entry[1]:
                try:
                    plan = plans.get(tuple(self._value(read, ctx) for read in reads))
                except TypeError:  # an unhashable value: build
                    plan = None
                if plan is not None:
                    self._copy(parent, plan, ctx)
                    return
        self._record(parent, items, ctx, key)

    def _record(self, parent: Node, items: list[Any], ctx: Context, key: str) -> None:
        builder = self.builder
        log: dict[tuple[str, str], None] = {}
        recorded = Context(*(_Reads(space, getattr(ctx, space), log) for space in REF_NAMESPACES))
        view, data, modal = builder.ui, builder.data, builder.modal
        forms_before = set(builder.forms)
        first = len(parent.children)
        builder.ui, builder.data = _RecordedView(view, log), _RecordedData(data, log)  # type: ignore[assignment]
        try:
            builder.elements(parent, items, recorded, key)
        finally:
            builder.ui, builder.data = view, data
        # The forms made keep the real context (the recorded one only wrote down what was read).
        forms = []
        for form_key, info in builder.forms.items():
            if form_key in forms_before:
                continue
            row = info.ctx.row
            info.ctx = ctx if isinstance(row, _Reads) else ctx.with_row(row)
            forms.append((form_key, info.form, None if isinstance(row, _Reads) else row, info.fields,
                          info.defaults, info.options))
        rows: list[tuple[tuple[Any, ...], int]] = []
        index = {id(parent): -1}
        made: list[Node] = []
        stack = list(reversed(parent.children[first:]))
        while stack:  # document order
            node = stack.pop()
            index[id(node)] = len(made)
            made.append(node)
            rows.append((_attrs(node), index[id(node.parent)]))
            stack.extend(reversed(node.children))
        opened = None
        if builder.modal is not modal:
            opened = index.get(id(builder.modal))
            if opened is None or opened < 0:  # a modal outside the part: nothing to copy faithfully
                return
        reads = tuple(log)
        try:
            values = tuple(self._value(read, ctx) for read in reads)
            hash(values)
        except TypeError:
            return
        entry = self.table.get((key, id(items)))
        if entry is None or entry[0] is not items:
            entry = self.table[(key, id(items))] = (items, [])  # holds the items, so the id stays theirs
        for known, plans in entry[1]:
            if known == reads:
                break
        else:
            plans = {}
            entry[1].append((reads, plans))
        if len(plans) >= PLANS_LIMIT:
            plans.clear()
        plans[values] = (tuple(rows), tuple(forms), opened)

    def _copy(self, parent: Node, plan: tuple[Any, ...], ctx: Context) -> None:
        rows, forms, opened = plan
        builder = self.builder
        made: list[Node] = []
        append = made.append
        for attrs, up in rows:
            node = Node(*attrs)
            owner = parent if up < 0 else made[up]
            node.up = _ref(owner)
            if owner.children:
                owner.children.append(node)  # type: ignore[union-attr]
            else:
                owner.children = [node]
            append(node)
        for form_key, form, row, fields, defaults, options in forms:
            builder.forms[form_key] = FormInfo(key=form_key, form=form, ctx=ctx if row is None else ctx.with_row(row),
                                               fields=dict(fields), defaults=dict(defaults),
                                               options={name: list(o) for name, o in options.items()})
        if opened is not None:
            builder.modal = made[opened]


def part_memo(builder: PageBuilder) -> PartMemo | None:
    """The part memo a builder may use, or ``None`` (a subclass, field edits or focus, or no site cache)."""
    if builder.__class__ is not PageBuilder or builder.ui.fields or builder.ui.focus is not None:
        return None
    data = builder.data
    cache = getattr(data, "cache", None)
    if cache is None or not cache.enabled or not hasattr(data, "version"):
        return None
    return PartMemo(builder, cache.memo("page_parts"))


__all__ = ["PLANS_LIMIT", "PartMemo", "part_memo"]
