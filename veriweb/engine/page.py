"""The page model: one tree of nodes per page state, from which all three renderings are made.

A node is what an accessibility tree shows (a role, a name, a value, states) plus what the
engine needs to act on it (its behaviour). Element ids (``bid``) are numbered in document
order, so the same page state always gets the same ids. Hidden nodes (closed widgets,
unselected tab panels) stay in the tree, marked invisible, as a browser keeps them in its DOM.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Protocol
from weakref import ref as _ref

from veriweb.engine.query import Context
from veriweb.engine.templates import Url, as_text, render
from veriweb.scaffold import elements as el
from veriweb.scaffold.values import Query, Ref

EDITABLE_ROLES = frozenset({"textbox", "date", "combobox"})
INTERACTIVE_ROLES = frozenset(
    {"link", "button", "textbox", "date", "combobox", "option", "checkbox", "radio", "tab", "menuitem"}
)


@dataclass(slots=True, eq=False, weakref_slot=True)
class Node:
    """One node of the page model.

    The public attributes are what any browser-like source can provide; ``key``,
    ``behaviour`` and ``tag`` are engine internals that never reach a policy.
    """

    role: str
    name: str = ""
    text: str = ""
    value: str | None = None
    checked: bool | None = None
    selected: bool | None = None
    expanded: bool | None = None
    disabled: bool = False
    required: bool = False
    focused: bool = False
    visible: bool = True
    level: int | None = None
    bid: str = ""
    depth: int = 0
    key: str = ""
    tag: str = "div"
    href: str | None = None
    input_type: str | None = None
    behaviour: tuple[Any, ...] | None = None
    children: list[Node] | tuple[()] = ()
    """The nodes inside this one, in document order: a list once it has one (:meth:`add`). A leaf keeps
    the shared empty tuple, not an empty list of its own: most nodes are leaves, and every object a
    cached page holds is one more for the cycle collector to scan."""
    up: Any = field(default=None, repr=False)
    """A weak reference to the parent (``None`` at the root): see :attr:`parent`."""

    @property
    def parent(self) -> Node | None:
        """The node this one is inside (``None`` at the root).

        Held weakly, so that a page's tree has no reference cycles and a dropped page is freed at
        once rather than left to the cycle collector: a node's parent lives as long as its page
        (the page model holds every node), or as long as someone holds the parent.
        """
        up = self.up
        return None if up is None else up()

    @parent.setter
    def parent(self, node: Node | None) -> None:
        self.up = None if node is None else _ref(node)

    @property
    def interactable(self) -> bool:
        """Can an agent act on it (click, type, select)?"""
        return self.visible and not self.disabled and self.role in INTERACTIVE_ROLES

    @property
    def editable(self) -> bool:
        """Can an agent type into it?"""
        return self.visible and not self.disabled and self.role in ("textbox", "date")

    def add(self, child: Node) -> Node:
        """Append ``child`` and return it."""
        child.up = _ref(self)
        if self.children:
            self.children.append(child)  # type: ignore[union-attr]
        else:
            self.children = [child]
        return child


@dataclass
class FormInfo:
    """A form on the page: where it is, in which context, and its fields' keys and defaults."""

    key: str
    form: el.Form
    ctx: Context
    fields: dict[str, str] = field(default_factory=dict)
    defaults: dict[str, Any] = field(default_factory=dict)
    options: dict[str, list[tuple[str, str]]] = field(default_factory=dict)


@dataclass
class PageModel:
    """A rendered page state: the root node, nodes in document order, and the forms."""

    url: str
    title: str
    page_id: str
    params: dict[str, Any]
    root: Node
    nodes: list[Node] = field(default_factory=list)
    by_bid: dict[str, Node] = field(default_factory=dict)
    by_key: dict[str, Node] = field(default_factory=dict)
    forms: dict[str, FormInfo] = field(default_factory=dict)
    modal: Node | None = None
    status: int = 200
    renderings: dict[str, Any] = field(default_factory=dict)
    """Renderings made from this (immutable once built) model, memoised by kind."""
    overlay_plan: Any = field(default=None, repr=False, compare=False)
    """What :func:`overlay` needs to copy this model fast (made on its first overlay)."""
    parents: list[int] = field(default_factory=list, repr=False, compare=False)
    """Per node of ``nodes``, the index in ``nodes`` of its parent (-1: the root). The builder fills it;
    a model made some other way may leave it empty (then ask each node for its :attr:`Node.parent`)."""

    def find(self, role: str, name: str | None = None, *, nth: int = 0) -> Node:
        """The ``nth`` visible node with this role (and name or text), for scripts and tests.

        Raises:
            LookupError: no such node on the page.
        """
        found = [n for n in self.nodes if n.visible and n.role == role and (name is None or name in (n.name, n.text))]
        if len(found) <= nth:
            raise LookupError(f"no visible {role} {name!r} (#{nth}) on {self.url}")
        return found[nth]

    def blocked(self, node: Node) -> bool:
        """Is ``node`` behind an open modal dialog?"""
        if self.modal is None:
            return False
        current: Node | None = node
        while current is not None:
            if current is self.modal:
                return False
            current = current.parent
        return True


def overlay(base: PageModel, fields: dict[str, Any], focus: str | None) -> PageModel:
    """``base`` (built with no field edits and no focus) with field values and focus applied.

    Equal to building the page with those values, at a fraction of the cost: typing into a
    field changes nothing else on a page.
    """
    plan = base.overlay_plan
    if plan is None:
        plan = base.overlay_plan = _overlay_plan(base)
    rows, key_index, modal_index, bids, key_rows = plan
    root = _clone(base.root)
    nodes: list[Node] = [root]  # the root first, so that a parent index of -1 finds it at 0
    append = nodes.append
    for attrs, parent_index in rows:
        clone = Node(*attrs)
        parent = nodes[parent_index + 1]
        clone.up = _ref(parent)
        if parent.children:
            parent.children.append(clone)  # type: ignore[union-attr]
        else:
            parent.children = [clone]
        append(clone)
    del nodes[0]
    modal = None if modal_index is None else (root if modal_index < 0 else nodes[modal_index])
    model = PageModel(url=base.url, title=base.title, page_id=base.page_id, params=base.params, root=root,
                      nodes=nodes, by_bid=dict(zip(bids, nodes)), forms=base.forms, modal=modal,
                      status=base.status, parents=list(base.parents))
    model.by_key = {key: nodes[index] for key, index in key_index.items()}
    _apply_fields(model.by_key, fields)
    if focus is not None:
        for index in key_rows.get(focus, ()):
            nodes[index].focused = True
    return model


def _apply_fields(by_key: dict[str, Node], fields: dict[str, Any]) -> None:
    """Show each field's value on the first node of its key (and its options): what :func:`overlay` changes."""
    for key, value in fields.items():
        node = by_key.get(key)
        if node is None:
            continue
        text = "" if value is None else str(value)
        if node.role in ("textbox", "date"):
            node.value = "\u2022" * len(text) if node.input_type == "password" else text
        elif node.role == "combobox":
            node.value = next((c.name for c in node.children if c.value == text), "")
            for child in node.children:
                child.selected = child.value == text
        elif node.role == "checkbox":
            node.checked = bool(value)
        elif node.role == "radiogroup":
            for child in node.children:
                child.checked = child.value == text


_MAKING = threading.Lock()
_TREE = ("root", "nodes", "by_bid", "by_key", "modal", "parents", "overlay_plan")
"""What an :class:`OverlaidPage` makes only when asked for."""


class OverlaidPage(PageModel):
    """``overlay(base, fields, focus)``, its node tree made only when something reads it.

    Each value an agent types is a new page state, and what an env needs of that state is its
    encoding, which is the base page's with the typed rows re-encoded
    (:func:`veriweb.envs.observation.encode_page`). So the tree (a copy of every node of the
    page) is made on the first read of ``root``, ``nodes``, ``by_bid``, ``by_key``, ``modal``,
    ``parents`` or ``overlay_plan``, and is then exactly what :func:`overlay` gives; until then
    :meth:`changed` says which nodes differ from the base's, and how.
    """

    def __init__(self, base: PageModel, fields: dict[str, Any], focus: str | None) -> None:  # noqa: D107
        self.__dict__.update(url=base.url, title=base.title, page_id=base.page_id, params=base.params,
                             forms=base.forms, status=base.status, renderings={})
        self.base, self.fields, self.focus = base, dict(fields), focus
        self.made = False

    def _make(self) -> None:
        with _MAKING:  # the site's cache shares pages between threads: one tree per page, made once
            if self.made:
                return
            model = overlay(self.base, self.fields, self.focus)
            for name in _TREE:
                self.__dict__[name] = getattr(model, name)
            self.made = True

    def changed(self) -> dict[int, Node]:
        """The nodes :func:`overlay` changes, by index in the base's ``nodes``, as copies with the
        change made (a changed list's options are its copy's children); every other node is the base's."""
        base = self.base
        position = base.renderings.get("node_index")
        if position is None:
            position = base.renderings["node_index"] = {id(node): number for number, node in enumerate(base.nodes)}
        copies: dict[int, Node] = {}
        by_key: dict[str, Node] = {}
        for key in self.fields:
            node = base.by_key.get(key)  # the first node of the key, as overlay() fills
            if node is None:
                continue
            number = position[id(node)]
            copy = copies[number] = _clone(node)
            if node.role in ("combobox", "radiogroup") and node.children:
                copy.children = [copies.setdefault(position[id(child)], _clone(child)) for child in node.children]
            by_key[key] = copy
        _apply_fields(by_key, self.fields)
        if self.focus is not None:
            for number, node in enumerate(base.nodes):
                if node.key == self.focus:
                    copy = copies.get(number)
                    if copy is None:
                        copy = copies[number] = _clone(node)
                    copy.focused = True
        return copies


def acting_page(page: PageModel) -> PageModel:
    """``page`` as far as acting on it and reading its names, texts and links go: a typed page whose tree is
    not made yet is read on its base (typing changes only values, checks, selections and focus)."""
    return page.base if page.__class__ is OverlaidPage and not page.made else page  # type: ignore[attr-defined]


def _tree_attribute(name: str) -> property:
    def get(page: OverlaidPage) -> Any:
        if not page.made:
            page._make()
        return page.__dict__[name]

    def put(page: OverlaidPage, value: Any) -> None:
        if not page.made:
            page._make()
        page.__dict__[name] = value

    return property(get, put, doc=f"The overlaid page's ``{name}`` (made on first read).")


for _name in _TREE:
    setattr(OverlaidPage, _name, _tree_attribute(_name))
del _name


def _attrs(node: Node) -> tuple[Any, ...]:
    """A node's attributes in constructor order, up to its children and parent (which come last)."""
    return (node.role, node.name, node.text, node.value, node.checked, node.selected, node.expanded, node.disabled,
            node.required, node.focused, node.visible, node.level, node.bid, node.depth, node.key,
            node.tag, node.href, node.input_type, node.behaviour)


def _clone(node: Node) -> Node:
    return Node(*_attrs(node))


def _overlay_plan(base: PageModel) -> tuple[list[tuple[tuple[Any, ...], int]], dict[str, int], int | None,
                                            list[str], dict[str, list[int]]]:
    """Each node's attributes and its parent's index in document order (-1: the root), the index of
    the first node of each key, the modal's index, the bids, and the indices of the nodes of each key:
    enough to copy the tree without lookups. The parents are the builder's list when it made one."""
    parents = base.parents if len(base.parents) == len(base.nodes) else None
    index = {id(base.root): -1}
    rows: list[tuple[tuple[Any, ...], int]] = []
    key_index: dict[str, int] = {}
    key_rows: dict[str, list[int]] = {}
    for number, node in enumerate(base.nodes):
        if parents is None:
            parent = node.parent
            if parent is None or id(parent) not in index:
                raise ValueError(f"page {base.url}: node {number} ({node.role}) has a parent outside the page "
                                 f"or after it in document order")
            rows.append((_attrs(node), index[id(parent)]))
        else:
            rows.append((_attrs(node), parents[number]))
        index[id(node)] = number
        key_index.setdefault(node.key, number)
        key_rows.setdefault(node.key, []).append(number)
    modal_index = None if base.modal is None else index.get(id(base.modal))
    return rows, key_index, modal_index, [node.bid for node in base.nodes], key_rows


class DataSource(Protocol):
    """What the builder needs from the session: cached, guarded reads."""

    def rows(self, query: Query, ctx: Context, **kwargs: Any) -> list[dict[str, Any]]: ...

    def count(self, query: Query, ctx: Context) -> int: ...


@dataclass
class UIView:
    """The UI state the builder reads (a read-only view of the session's UI state)."""

    url: Url
    fields: dict[str, Any]
    widgets: dict[str, Any]
    focus: str | None
    flash: tuple[str, str] | None
    confirm: str | None


class PageBuilder:
    """Turns a scaffold page, its context and the UI state into a :class:`PageModel`."""

    def __init__(self, data: DataSource, ui: UIView) -> None:
        self.data = data
        self.ui = ui
        self.forms: dict[str, FormInfo] = {}
        self.widget_ids: dict[str, str] = {}
        self.modal: Node | None = None
        cls = type(self)
        handlers = _HANDLERS.get(cls)
        if handlers is None:
            handlers = _HANDLERS[cls] = {kind: getattr(cls, name) for kind, name in _HANDLER_NAMES.items()}
        self._handlers: dict[str, Any] = handlers

    # ------------------------------------------------------------------ entry point

    def build(self, *, page_id: str, title: str, params: dict[str, Any], header: list[Any],
              body: list[Any], footer: list[Any], ctx: Context, status: int = 200) -> PageModel:
        """Build the whole tree: layout header, ``main`` with the flash message and body, footer.

        The layout's header and footer are copied from a memo when what they read (see
        :mod:`veriweb.engine.parts`) is the same as when the memo was made.
        """
        root = Node(role="RootWebArea", name=title, key="root", tag="body")
        parts = part_memo(self)
        if parts is None:
            self.elements(root, header, ctx, "h")
        else:
            parts.add(root, header, ctx, "h")
        main = root.add(Node(role="main", key="m", tag="main"))
        if self.ui.flash:
            kind, message = self.ui.flash
            main.add(Node(role="alert" if kind == "error" else "status", text=message, key="flash",
                          tag="div"))
        self.elements(main, body, ctx, "m")
        if parts is None:
            self.elements(root, footer, ctx, "f")
        else:
            parts.add(root, footer, ctx, "f")
        if self.ui.confirm and self.ui.confirm in self.forms:
            self._confirm_dialog(root, self.forms[self.ui.confirm])
        model = PageModel(url=str(self.ui.url), title=title, page_id=page_id, params=params, root=root,
                          forms=self.forms, modal=self.modal, status=status)
        self._number(model)
        return model

    def _number(self, model: PageModel) -> None:
        """Number the nodes in document order (bids ``"1"``, ``"2"``, ...), set depths, hide what is
        inside hidden nodes, mark the focused node, and index them by bid and key."""
        nodes, parents = _document_order(model.root)
        bids = _bids(len(nodes))
        by_key: dict[str, Node] = {}
        for node, bid in zip(nodes, bids):
            node.bid = bid
            if node.key not in by_key:
                by_key[node.key] = node
        focus = self.ui.focus
        if focus is not None:
            for node in nodes:
                if node.key == focus:
                    node.focused = True
        model.nodes.extend(nodes)
        model.parents[:] = parents
        model.by_bid.update(zip(bids, nodes))
        for key, node in by_key.items():
            model.by_key.setdefault(key, node)

    # ------------------------------------------------------------------ elements

    def elements(self, parent: Node, items: list[Any], ctx: Context, key: str) -> None:
        """Add nodes for each scaffold element under ``parent``."""
        for index, item in enumerate(items):
            self.element(parent, item, ctx, f"{key}.{index}")

    def element(self, parent: Node, item: Any, ctx: Context, key: str) -> None:
        """Add the node(s) for one scaffold element."""
        handler = self._handlers.get(item.type)
        if handler is not None:
            handler(self, parent, item, ctx, key)

    def _heading(self, parent: Node, item: el.Heading, ctx: Context, key: str) -> None:
        node = Node(role="heading", name=render(item.text, ctx), level=item.level, key=key,
                    tag=_HEADING_TAGS.get(item.level) or f"h{item.level}")
        node.up = _ref(parent)
        if parent.children:
            parent.children.append(node)  # type: ignore[union-attr]
        else:
            parent.children = [node]

    def _paragraph(self, parent: Node, item: el.Text, ctx: Context, key: str) -> None:
        node = Node(role="paragraph", text=render(item.text, ctx), key=key, tag="p")
        node.up = _ref(parent)
        if parent.children:
            parent.children.append(node)  # type: ignore[union-attr]
        else:
            parent.children = [node]

    def _link(self, parent: Node, item: el.Link, ctx: Context, key: str) -> None:
        href = render(item.href, ctx, url=True)
        node = Node(role="link", name=render(item.text, ctx), key=key, tag="a", href=href, behaviour=("nav", href))
        node.up = _ref(parent)
        if parent.children:
            parent.children.append(node)  # type: ignore[union-attr]
        else:
            parent.children = [node]

    def _record(self, parent: Node, item: el.Record, ctx: Context, key: str) -> None:
        rows = self.data.rows(item.query, ctx, limit=1)
        if rows:
            self.elements(parent, item.elements, ctx.with_row(rows[0]), key)
        elif item.missing_text:
            parent.add(Node(role="paragraph", text=render(item.missing_text, ctx), key=key, tag="p"))

    def _dialog(self, parent: Node, item: el.Dialog, ctx: Context, key: str) -> None:
        wkey = self._wkey(item.id, ctx)
        is_open = bool(self.ui.widgets.get(wkey, False))
        node = parent.add(Node(role="dialog", name=render(item.title, ctx), key=key, tag="dialog", visible=is_open))
        if is_open and item.modal:
            self.modal = node
        self.elements(node, item.elements, ctx, key)

    def _collapsible(self, parent: Node, item: el.Collapsible, ctx: Context, key: str) -> None:
        wkey = self._wkey(item.id, ctx)
        is_open = bool(self.ui.widgets.get(wkey, item.open))
        parent.add(Node(role="button", name=render(item.label, ctx), expanded=is_open, key=key + ".t",
                        tag="button", behaviour=("widget", wkey, "toggle", item.open)))
        region = parent.add(Node(role="group", name=render(item.label, ctx), key=key, tag="section",
                                 visible=is_open))
        self.elements(region, item.elements, ctx, key)

    def _menu(self, parent: Node, item: Any, ctx: Context, key: str) -> None:
        wkey = self._wkey(item.id, ctx)
        is_open = bool(self.ui.widgets.get(wkey, False))
        parent.add(Node(role="button", name=render(item.label, ctx), expanded=is_open, key=key + ".t",
                        tag="button", behaviour=("widget", wkey, "toggle", False)))
        menu = parent.add(Node(role="menu", name=render(item.label, ctx), key=key, tag="ul", visible=is_open))
        self.elements(menu, item.items, ctx, key)

    def _section(self, parent: Node, item: Any, ctx: Context, key: str) -> None:
        node = parent.add(Node(role=item.role, name=render(item.label, ctx), key=key,
                               tag=_SECTION_TAGS.get(item.role, "section")))
        self.elements(node, item.elements, ctx, key)

    def _wkey(self, widget_id: str, ctx: Context) -> str:
        row_key = ctx.row.get("id") if ctx.row else None
        return widget_id if row_key is None else f"{widget_id}@{row_key}"

    def _widget_button(self, parent: Node, item: el.Button, ctx: Context, key: str) -> None:
        wkey = self._wkey(item.target, ctx)
        parent.add(Node(role="button", name=render(item.text, ctx), key=key, tag="button",
                        behaviour=("widget", wkey, item.action, False)))

    # ------------------------------------------------------------------ forms

    def _form(self, parent: Node, form: el.Form, ctx: Context, key: str) -> None:
        info = FormInfo(key=key, form=form, ctx=ctx)
        self.forms[key] = info
        node = parent.add(Node(role="form", name=render(form.label, ctx), key=key, tag="form"))
        for field_el in form.fields:
            fkey = f"{key}:{field_el.name}"
            info.fields[field_el.name] = fkey
            self._field(node, field_el, info, fkey, ctx)
        node.add(Node(role="button", name=render(form.submit, ctx), key=f"{key}:submit", tag="button",
                      behaviour=("submit", key)))

    def _options(self, field_el: Any, ctx: Context) -> list[tuple[str, str]]:
        options = [(o.value, o.label) for o in field_el.options]
        if field_el.options_query is not None:
            oq = field_el.options_query
            for row in self.data.rows(oq.query, ctx):
                options.append((_text(row.get(oq.value)), _text(row.get(oq.label))))
        return options

    def _field(self, form: Node, field_el: Any, info: FormInfo, fkey: str, ctx: Context) -> None:
        label = render(field_el.label, ctx)
        current = self.ui.fields.get(fkey)
        if field_el.type in ("textbox", "password", "textarea", "date"):
            default = _text(_resolve(field_el.value, ctx))
            info.defaults[field_el.name] = default
            value = default if current is None else str(current)
            shown = "•" * len(value) if field_el.type == "password" else value
            form.add(Node(role="date" if field_el.type == "date" else "textbox", name=label, value=shown,
                          required=field_el.required, key=fkey, tag="textarea" if field_el.type == "textarea"
                          else "input", input_type=field_el.type, behaviour=("field", info.key, field_el.name)))
        elif field_el.type == "select":
            options = self._options(field_el, ctx)
            info.options[field_el.name] = options
            default = _text(_resolve(field_el.value, ctx))
            if default not in [v for v, _ in options]:
                default = options[0][0] if options else ""
            info.defaults[field_el.name] = default
            value = default if current is None else str(current)
            chosen = next((lab for v, lab in options if v == value), "")
            box = form.add(Node(role="combobox", name=label, value=chosen, expanded=False,
                                required=field_el.required, key=fkey, tag="select",
                                behaviour=("field", info.key, field_el.name)))
            for number, (opt_value, opt_label) in enumerate(options):
                box.add(Node(role="option", name=opt_label, selected=opt_value == value, key=f"{fkey}#{number}",
                             tag="option", value=opt_value,
                             behaviour=("option", info.key, field_el.name, opt_value)))
        elif field_el.type == "checkbox":
            info.defaults[field_el.name] = bool(field_el.checked)
            value = bool(field_el.checked) if current is None else bool(current)
            form.add(Node(role="checkbox", name=label, checked=value, required=field_el.required, key=fkey,
                          tag="input", input_type="checkbox", behaviour=("field", info.key, field_el.name)))
        elif field_el.type == "radio":
            options = self._options(field_el, ctx)
            info.options[field_el.name] = options
            default = _text(_resolve(field_el.value, ctx))
            info.defaults[field_el.name] = default
            value = default if current is None else str(current)
            group = form.add(Node(role="radiogroup", name=label, required=field_el.required, key=fkey,
                                  tag="fieldset"))
            for number, (opt_value, opt_label) in enumerate(options):
                group.add(Node(role="radio", name=opt_label, checked=opt_value == value, key=f"{fkey}#{number}",
                               tag="input", input_type="radio", value=opt_value,
                               behaviour=("option", info.key, field_el.name, opt_value)))

    def _confirm_dialog(self, root: Node, info: FormInfo) -> None:
        confirm = info.form.confirm
        assert confirm is not None
        key = f"{info.key}:confirm"
        dialog = root.add(Node(role="dialog", name=render(confirm.title, info.ctx), key=key, tag="dialog"))
        if confirm.text:
            dialog.add(Node(role="paragraph", text=render(confirm.text, info.ctx), key=f"{key}.text", tag="p"))
        dialog.add(Node(role="button", name=render(confirm.confirm, info.ctx), key=f"{key}.yes", tag="button",
                        behaviour=("confirm", info.key)))
        dialog.add(Node(role="button", name=render(confirm.cancel, info.ctx), key=f"{key}.no", tag="button",
                        behaviour=("cancel", info.key)))
        self.modal = dialog

    # ------------------------------------------------------------------ lists and tables

    def _bound(self, parent: Node, item: Any, ctx: Context, key: str) -> None:
        url = self.ui.url
        params = url.params
        sort_key = params.get(f"{item.name}_sort")
        sort = next((s for s in item.sorts if s.key == sort_key), None)
        order = [(sort.column, sort.dir)] + [(o.column, o.dir) for o in item.query.order_by] if sort else None
        offset, page, pages = 0, 1, 1
        limit = item.page_size
        if limit:
            total = self.data.count(item.query, ctx)
            pages = max(1, -(-total // limit))
            try:
                page = min(max(1, int(params.get(f"{item.name}_page", "1"))), pages)
            except ValueError:
                page = 1
            offset = (page - 1) * limit
            if item.query.limit is not None:
                limit = max(0, min(limit, item.query.limit - offset)) or 1
        rows = self.data.rows(item.query, ctx, order=order, limit=limit, offset=offset)
        if item.sorts:
            bar = parent.add(Node(role="group", name="Sort by", key=f"{key}.sort", tag="nav"))
            for number, option in enumerate(item.sorts):
                if sort is option:
                    bar.add(Node(role="paragraph", text=option.label, key=f"{key}.sort.{number}", tag="span"))
                else:
                    href = str(url.with_params(**{f"{item.name}_sort": option.key, f"{item.name}_page": None}))
                    bar.add(Node(role="link", name=option.label, key=f"{key}.sort.{number}", tag="a", href=href,
                                 behaviour=("nav", href)))
        if not rows:
            parent.add(Node(role="paragraph", text=render(item.empty_text, ctx), key=f"{key}.empty", tag="p"))
        elif item.type == "list":
            container = parent.add(Node(role="list", key=key, tag="ul"))
            for row in rows:
                row_key = f"{key}[{_text(row.get('id', len(container.children)))}]"
                entry = container.add(Node(role="listitem", key=row_key, tag="li"))
                self.elements(entry, item.item, ctx.with_row(row), row_key)
        else:
            table = parent.add(Node(role="table", name=render(item.label, ctx), key=key, tag="table"))
            head = table.add(Node(role="row", key=f"{key}.head", tag="tr"))
            for number, column in enumerate(item.columns):
                head.add(Node(role="columnheader", name=render(column.header, ctx), key=f"{key}.head.{number}",
                              tag="th"))
            for row in rows:
                row_key = f"{key}[{_text(row.get('id', len(table.children)))}]"
                line = table.add(Node(role="row", key=row_key, tag="tr"))
                row_ctx = ctx.with_row(row)
                for number, column in enumerate(item.columns):
                    cell = line.add(Node(role="cell", key=f"{row_key}.{number}", tag="td"))
                    self.elements(cell, column.cell, row_ctx, f"{row_key}.{number}")
        if item.page_size and pages > 1:
            nav = parent.add(Node(role="navigation", name="Pagination", key=f"{key}.pages", tag="nav"))
            if page > 1:
                href = str(url.with_params(**{f"{item.name}_page": page - 1}))
                nav.add(Node(role="link", name="Previous", key=f"{key}.prev", tag="a", href=href,
                             behaviour=("nav", href)))
            nav.add(Node(role="paragraph", text=f"Page {page} of {pages}", key=f"{key}.pageno", tag="span"))
            if page < pages:
                href = str(url.with_params(**{f"{item.name}_page": page + 1}))
                nav.add(Node(role="link", name="Next", key=f"{key}.next", tag="a", href=href,
                             behaviour=("nav", href)))

    # ------------------------------------------------------------------ tabs

    def _tabs(self, parent: Node, item: el.Tabs, ctx: Context, key: str) -> None:
        wkey = self._wkey(item.id, ctx)
        selected = self.ui.widgets.get(wkey, item.selected)
        if not isinstance(selected, int) or not 0 <= selected < len(item.tabs):
            selected = 0
        bar = parent.add(Node(role="tablist", key=key, tag="div"))
        for number, tab in enumerate(item.tabs):
            bar.add(Node(role="tab", name=render(tab.label, ctx), selected=number == selected,
                         key=f"{key}.tab{number}", tag="button", behaviour=("tab", wkey, number)))
        for number, tab in enumerate(item.tabs):
            panel = parent.add(Node(role="tabpanel", name=render(tab.label, ctx), key=f"{key}.panel{number}",
                                    tag="div", visible=number == selected))
            self.elements(panel, tab.elements, ctx, f"{key}.panel{number}")


from veriweb.engine.parts import part_memo  # noqa: E402  (it builds with PageBuilder and Node)

def _document_order(root: Node) -> tuple[list[Node], list[int]]:
    """The nodes under ``root`` in document order and the index of each one's parent among them (-1:
    ``root``), with their depths set (1 for the root's children) and every node inside a hidden one
    hidden too. (A loop, not a recursive closure: a closure that calls itself is a reference cycle,
    left for the cycle collector on every build.)"""
    nodes: list[Node] = []
    parents: list[int] = []
    append, up = nodes.append, parents.append
    stack: list[tuple[list[Node] | tuple[()], int, int, bool, int]] = [(root.children, 0, 1, True, -1)]
    while stack:
        children, index, depth, visible, parent = stack.pop()
        count = len(children)
        while index < count:
            node = children[index]
            index += 1
            node.depth = depth
            if not visible:
                node.visible = False
            append(node)
            up(parent)
            if node.children:
                stack.append((children, index, depth, visible, parent))
                children, index, count = node.children, 0, len(node.children)
                depth, visible, parent = depth + 1, node.visible, len(nodes) - 1
    return nodes, parents


_BIDS: list[str] = []


def _bids(count: int) -> list[str]:
    """The bids of the first ``count`` nodes (``"1"``, ``"2"``, ...), made once."""
    if len(_BIDS) < count:
        _BIDS.extend(str(number) for number in range(len(_BIDS) + 1, count + 1))
    return _BIDS[:count]


_SECTION_TAGS = {"navigation": "nav", "main": "section", "banner": "header", "contentinfo": "footer",
                 "complementary": "aside", "region": "section", "group": "div", "search": "search"}


def _resolve(expr: Any, ctx: Context) -> Any:
    return ctx.lookup(expr) if isinstance(expr, Ref) else (None if hasattr(expr, "query") else expr)


def _text(value: Any) -> str:
    return value if value.__class__ is str else as_text(value)


_HEADING_TAGS = {level: f"h{level}" for level in range(1, 7)}
_HANDLER_NAMES = {
    "heading": "_heading", "text": "_paragraph", "link": "_link", "button": "_widget_button", "form": "_form",
    "list": "_bound", "table": "_bound", "record": "_record", "tabs": "_tabs", "dialog": "_dialog",
    "collapsible": "_collapsible", "menu": "_menu", "section": "_section",
}
"""The builder's method for each element type (a subclass's overrides are found too)."""
_HANDLERS: dict[type, dict[str, Any]] = {}
