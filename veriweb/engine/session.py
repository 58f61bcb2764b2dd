"""A browsing session on one site: database, UI state, virtual clock, and the transitions.

Everything an agent does goes through :meth:`Session.step` with an action string. UI
transitions (navigate, fill, select, open a widget, go back) are pure functions of the UI
state; the database changes only when a form reaches a marker. A bad action never raises:
it comes back as ``last_action_error`` with the state unchanged.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import weakref
from dataclasses import dataclass, field, replace
from typing import Any

from veriweb.engine import actions as A
from veriweb.engine import cache as caching
from veriweb.engine.cache import NoCache, SiteCache, site_cache
from veriweb.engine.database import Database, quote
from veriweb.engine.markers import MarkerResult, run_marker
from veriweb.engine.page import Node, OverlaidPage, PageBuilder, PageModel, UIView, acting_page
from veriweb.engine.query import Compiler, Context, count_rows, fetch_rows, scalar_value
from veriweb.engine.templates import Route, Url, render
from veriweb.errors import ActionError, ActionSyntaxError, MarkerFailed, VeriwebError
from veriweb.scaffold.site import Site
from veriweb.scaffold.values import Query


@dataclass
class UIState:
    """Everything about the browser that is not in the database."""

    url: Url = field(default_factory=lambda: Url("/"))
    user_id: int | None = None
    fields: dict[str, Any] = field(default_factory=dict)
    widgets: dict[str, Any] = field(default_factory=dict)
    focus: str | None = None
    hover: str | None = None
    scroll: tuple[float, float] = (0.0, 0.0)
    flash: tuple[str, str] | None = None
    confirm: str | None = None
    history: list[str] = field(default_factory=list)
    position: int = -1

    def key(self, version: str, *, base: bool = False) -> tuple[Any, ...]:
        """What a page's rendering depends on (hover and scroll change nothing visible).

        With ``base``, the key of the same page without field edits and focus.
        """
        edits = () if base or (not self.fields and self.focus is None) else (
            tuple(sorted(self.fields.items())), self.focus)
        return (str(self.url), self.user_id, version, tuple(sorted(self.widgets.items())), self.flash,
                self.confirm, edits)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-able description (for hashes and debugging)."""
        return {"url": str(self.url), "user_id": self.user_id, "fields": self.fields, "widgets": self.widgets,
                "focus": self.focus, "hover": self.hover, "scroll": list(self.scroll), "flash": self.flash,
                "confirm": self.confirm, "history": self.history, "position": self.position}


@dataclass(frozen=True)
class StepResult:
    """What one step did: the error (if any), a message sent to the user, and a committed marker."""

    action: A.Action | None
    error: str | None = None
    message: str | None = None
    infeasible: str | None = None
    marker: MarkerResult | None = None


class Session:
    """One agent's browser on one site, with its own in-memory database.

    Args:
        site: the scaffold.
        cache_size: how many rendered page states the site's cache keeps at least (an LRU shared by
            the sessions of this site object, see :mod:`veriweb.engine.cache`).
        cache: share the site's cache of pages, rows and judge results (default
            :data:`veriweb.engine.cache.ENABLED`); ``False`` computes everything afresh, with the same
            results.
    """

    def __init__(self, site: Site, *, cache_size: int = 512, cache: bool | None = None) -> None:
        self.site = site
        self._now_for: tuple[Any, ...] | None = None
        self._now = ""
        self.routes = [Route.compile(page.id, page.route) for page in site.pages]
        self.pages = {page.id: page for page in site.pages}
        self.markers = {marker.name: marker for marker in site.markers}
        self.steps = 0
        # SQLite holds the clock function where the garbage collector cannot see it: a weak
        # reference keeps that from pinning the session (and its page cache) in memory forever.
        me = weakref.ref(self)
        self.db = Database.build(site, today=site.clock.today.isoformat(),
                                 now_fn=lambda: session.now if (session := me()) is not None else None)
        self.ui = UIState()
        self.version = "0"
        use_cache = caching.ENABLED if cache is None else cache
        self.cache: SiteCache = site_cache(site, cache_size) if use_cache else NoCache(0)
        self._page: PageModel | None = None
        self._page_key: tuple[Any, ...] | None = None
        self._routes: dict[str, tuple[Any, dict[str, Any]]] = {}
        self._keys: dict[str, tuple[Any, ...]] = {}
        self.reset()

    # ------------------------------------------------------------------ clock and state

    @property
    def today(self) -> str:
        """The virtual date."""
        return self.site.clock.today.isoformat()

    @property
    def now(self) -> str:
        """The virtual time: the episode's start time plus a fixed amount per step."""
        clock = self.site.clock
        key = (self.steps, clock.today, clock.start_time, clock.seconds_per_step)
        if key != self._now_for:  # asked many times a step (contexts, markers, predicates): made once
            start = dt.datetime.combine(clock.today, clock.start_time)
            self._now = (start + dt.timedelta(seconds=self.steps * clock.seconds_per_step)).isoformat()
            self._now_for = key
        return self._now

    def close(self) -> None:
        """Free the session's database (it cannot be used afterwards; the site's cache stays for its other sessions)."""
        self.cache = NoCache(0)
        self._page = self._page_key = None
        self.db.conn.close()

    def reset(self, url: str = "/", *, user: str | None = None) -> PageModel:
        """Restore the seeded database and a fresh browser at ``url``, logged in as ``user`` if given.

        Raises:
            ActionError: ``user`` is not an account of the site.
        """
        self.db.reset()
        self.version = "0"
        self.steps = 0
        self.ui = UIState()
        if user is not None:
            self.ui.user_id = self._user_id(user)
        self._navigate(Url.parse(url))
        return self.page()

    def _user_id(self, username: str) -> int:
        auth = self.site.auth
        if auth is None:
            raise ActionError("this site has no accounts, so no user can be logged in")
        rows = self.db.guard.engine(
            f"SELECT {quote(auth.id_column)} FROM {quote(auth.table)} WHERE {quote(auth.username_column)} = ?",
            (username,),
        ).fetchall()
        if not rows:
            raise ActionError(f"no account {username!r} on this site")
        return int(rows[0][0])

    def user_row(self) -> dict[str, Any]:
        """The logged-in user's record (``{}`` if nobody is logged in)."""
        auth = self.site.auth
        if self.ui.user_id is None or auth is None:
            return {}
        key = ("user", self.version, self.ui.user_id)
        found = self.cache.row(key)
        if found is None:
            cursor = self.db.guard.engine(
                f"SELECT * FROM {quote(auth.table)} WHERE {quote(auth.id_column)} = ?", (self.ui.user_id,))
            row = cursor.fetchone()
            names = [d[0] for d in cursor.description]
            found = self.cache.put_row(key, dict(zip(names, row)) if row else {})
        return dict(found)

    def memo(self, name: str) -> dict[Any, Any]:
        """A memo table shared by the sessions of this site (keys must name the database version)."""
        return self.cache.memo(name)

    def context(self) -> Context:
        """The context that references on the current page resolve against."""
        page = self._page
        return Context(param=dict(page.params) if page else {}, query=self.ui.url.params, user=self.user_row(),
                       clock={"today": self.today, "now": self.now})

    def state_hash(self) -> str:
        """A hash of the database content and the UI state."""
        ui = json.dumps(self.ui.as_dict(), sort_keys=True, default=str)
        return hashlib.sha256((self.db.state_hash() + ui).encode()).hexdigest()[:32]

    # ------------------------------------------------------------------ data source for pages

    def rows(self, query: Query, ctx: Context, **kwargs: Any) -> list[dict[str, Any]]:
        """Rows of a query, cached until the database changes."""
        comp = Compiler(ctx)
        sql = comp.rows(query, **kwargs)
        key = (sql, tuple(comp.params), self.version)
        found = self.cache.row(key)
        if found is None:
            found = self.cache.put_row(key, fetch_rows(self.db.guard, query, ctx, **kwargs))
        return found

    def count(self, query: Query, ctx: Context) -> int:
        """Rows matching a query, cached until the database changes."""
        comp = Compiler(ctx)
        where = comp.where(query.where)
        key = ("count", query.table, where, tuple(comp.params), self.version)
        found = self.cache.row(key)
        if found is None:
            found = self.cache.put_row(key, count_rows(self.db.guard, query, ctx))
        return found

    # ------------------------------------------------------------------ pages

    def page(self) -> PageModel:
        """The current page (rendered once per distinct state, then cached)."""
        key = self.ui.key(self.version)
        cache = self.cache
        if key == self._page_key and cache.enabled:  # asked again in the same state (a step asks often)
            return self._page  # type: ignore[return-value]
        cached = cache.page(key)
        if cached is not None:
            self._page, self._page_key = cached, key
            return cached
        if self.ui.fields or self.ui.focus is not None:
            base_key = self.ui.key(self.version, base=True)
            base = cache.page(base_key)
            if base is None:
                base = cache.put_page(base_key, self._build(fields={}, focus=None))
            model = OverlaidPage(base, self.ui.fields, self.ui.focus)
        else:
            model = self._build(fields={}, focus=None)
        self._page, self._page_key = cache.put_page(key, model), key
        return model

    def _structure(self) -> PageModel:
        """The current page as far as acting on it goes: the page itself, or without field edits and focus.

        Typing changes nothing but the values, checked and selected states and focus of the nodes
        it touches (:func:`veriweb.engine.page.overlay`): not which nodes there are, their ids, roles,
        names, visibility, behaviour or forms, which is all a step reads of the page (a checkbox's
        checked state aside: :meth:`_click` reads it from the field edits). So a step in a state
        with field edits whose page is not made yet (a form filled one field after another) finds
        its target on the page without them, and the page with them is made only if someone asks.
        """
        ui = self.ui
        if not ui.fields and ui.focus is None:
            return self.page()
        key = ui.key(self.version)
        if key == self._page_key and self.cache.enabled:
            cached = self._page
        else:
            cached = self.cache.page(key)
        if cached is not None:
            return acting_page(cached)
        base_key = ui.key(self.version, base=True)
        base = self.cache.page(base_key)
        if base is None:
            base = self.cache.put_page(base_key, self._build(fields={}, focus=None))
        return base

    def _resolve(self, url: Url) -> tuple[Any, dict[str, Any]]:
        page, params = self._resolve_shared(url)
        return page, dict(params)  # the caller's own parameters

    def _resolve_shared(self, url: Url) -> tuple[Any, dict[str, Any]]:
        """The page whose route ``url`` matches (``None``: none) and its parameters, shared: not to be changed."""
        found = self._routes.get(url.path)
        if found is None:
            found = (None, {})
            for route in self.routes:
                params = route.match(url.path)
                if params is not None:
                    found = (self.pages[route.page_id], params)
                    break
            if len(self._routes) >= 4_096:
                self._routes.clear()
            self._routes[url.path] = found
        return found

    def _build(self, *, fields: dict[str, Any], focus: str | None,
               builder_type: type[PageBuilder] = PageBuilder) -> PageModel:
        url = self.ui.url
        page, params = self._resolve(url)
        view = UIView(url=url, fields=fields, widgets=self.ui.widgets, focus=focus, flash=self.ui.flash,
                      confirm=self.ui.confirm)
        builder = builder_type(self, view)
        ctx = Context(param=params, query=url.params, user=self.user_row(),
                      clock={"today": self.today, "now": self.now})
        layout = self.site.layout
        if page is None:
            body: list[Any] = _not_found_body()
            return builder.build(page_id="", title="Page not found", params={}, header=layout.header, body=body,
                                 footer=layout.footer, ctx=ctx, status=404)
        header, footer = (layout.header, layout.footer) if page.layout else ([], [])
        try:
            return builder.build(page_id=page.id, title=render(page.title, ctx), params=params, header=header,
                                 body=page.elements, footer=footer, ctx=ctx)
        except VeriwebError as exc:
            builder = builder_type(self, replace(view, flash=("error", f"This page failed to load: {exc}")))
            return builder.build(page_id=page.id, title="Error", params=params, header=header, body=[],
                                 footer=footer, ctx=ctx, status=500)

    def build_with(self, builder_type: type[PageBuilder]) -> PageModel:
        """The current page built afresh, without field edits or focus, by a builder of the caller's choice.

        Nothing is cached and the session does not change. For renderers that need what a builder
        learns on the way (the HTTP server records which widget state each region follows).
        """
        return self._build(fields={}, focus=None, builder_type=builder_type)

    def on_page(self, page_id: str, params: dict[str, Any]) -> bool:
        """Is the browser on page ``page_id`` with route parameters ``params``? (for predicates)

        Read from the address alone (no page is built): a page's id and parameters are those of
        the route its address matches, whatever the page then shows.
        """
        page, here = self._resolve_shared(self.ui.url)
        if (page.id if page is not None else "") != page_id:
            return False
        return all(_same(here.get(name), value) for name, value in params.items())

    def page_key(self) -> tuple[Any, ...]:
        """The id and the sorted route parameters of the current page, from its address alone.

        The same as ``(page.page_id, tuple(sorted(page.params.items())))`` of :meth:`page`, without
        building the page (a judge keys page predicates by it).
        """
        url = self.ui.url
        found = self._keys.get(url.path)
        if found is None:
            page, params = self._resolve_shared(url)
            found = ((page.id, tuple(sorted(params.items()))) if page is not None else ("", ()))
            if len(self._keys) >= 4_096:
                self._keys.clear()
            self._keys[url.path] = found
        return found

    # ------------------------------------------------------------------ navigation

    def _navigate(self, url: Url, *, push: bool = True, flash: tuple[str, str] | None = None) -> None:
        page, _ = self._resolve_shared(url)
        if page is not None and page.requires_login and self.ui.user_id is None:
            login = self.site.auth.login_page if self.site.auth else "/"
            url = Url.parse(login).with_params(next=str(url))
        ui = self.ui
        ui.url, ui.fields, ui.widgets = url, {}, {}
        ui.focus = ui.hover = ui.confirm = None
        ui.scroll = (0.0, 0.0)
        ui.flash = flash
        if push:
            del ui.history[ui.position + 1:]
            ui.history.append(str(url))
            ui.position = len(ui.history) - 1

    # ------------------------------------------------------------------ stepping

    def step(self, action: str | A.Action) -> StepResult:
        """Carry out one action. Never raises for a bad action: see ``StepResult.error``."""
        self.steps += 1
        try:
            parsed = action if isinstance(action, A.Action) else A.parse_action(action)
        except ActionSyntaxError as exc:
            return StepResult(None, error=str(exc))
        before = (self.ui.url, dict(self.ui.fields), dict(self.ui.widgets), self.ui.focus, self.ui.confirm)
        try:
            result = self._do(parsed)
        except ActionError as exc:
            self.ui.url, self.ui.fields, self.ui.widgets, self.ui.focus, self.ui.confirm = before
            return StepResult(parsed, error=str(exc))
        if result is None:
            return StepResult(parsed)
        return result if result.action is parsed else replace(result, action=parsed)

    def _target(self, bid: str) -> Node:
        page = self._structure()
        node = page.by_bid.get(bid)
        if node is None:
            raise ActionError(f"no element with bid {bid!r} on this page")
        if not node.visible:
            raise ActionError(f"element [{bid}] ({node.role} {node.name!r}) is not visible")
        if page.blocked(node):
            raise ActionError(f"element [{bid}] is covered by an open dialog; close or answer the dialog first")
        return node

    def _do(self, action: A.Action) -> StepResult | None:
        if isinstance(action, (A.Click, A.DblClick)):
            node = self._target(action.bid)
            result = self._click(node)
            if isinstance(action, A.DblClick) and result is None and self._still_here(node):
                result = self._click(self._structure().by_key[node.key])
            return result
        if isinstance(action, A.Fill):
            self._type(self._target(action.bid), action.value, replace_text=True)
        elif isinstance(action, A.Clear):
            self._type(self._target(action.bid), "", replace_text=True)
        elif isinstance(action, A.SelectOption):
            self._select(self._target(action.bid), action.options)
        elif isinstance(action, (A.Check, A.Uncheck)):
            self._check(self._target(action.bid), isinstance(action, A.Check))
        elif isinstance(action, A.Press):
            return self._press(self._target(action.bid), action.key)
        elif isinstance(action, A.Focus):
            self.ui.focus = self._target(action.bid).key
        elif isinstance(action, A.Hover):
            self.ui.hover = self._target(action.bid).key
        elif isinstance(action, A.Scroll):
            x, y = self.ui.scroll
            self.ui.scroll = (max(0.0, x + action.delta_x), max(0.0, y + action.delta_y))
        elif isinstance(action, A.Goto):
            url = Url.parse(action.url)
            if action.url.strip().lower().startswith(("javascript:", "data:", "file:", "mailto:")):
                raise ActionError(f"cannot go to {action.url!r}: only pages of this site can be opened")
            self._navigate(url)
        elif isinstance(action, A.GoBack):
            if self.ui.position <= 0:
                raise ActionError("there is no previous page in the history")
            self.ui.position -= 1
            self._navigate(Url.parse(self.ui.history[self.ui.position]), push=False)
        elif isinstance(action, A.GoForward):
            if self.ui.position >= len(self.ui.history) - 1:
                raise ActionError("there is no next page in the history")
            self.ui.position += 1
            self._navigate(Url.parse(self.ui.history[self.ui.position]), push=False)
        elif isinstance(action, A.SendMsgToUser):
            return StepResult(action, message=action.text)
        elif isinstance(action, A.ReportInfeasible):
            return StepResult(action, infeasible=action.reason)
        return None

    def _still_here(self, node: Node) -> bool:
        return node.key in self._structure().by_key

    def _click(self, node: Node) -> StepResult | None:
        behaviour = node.behaviour or ()
        kind = behaviour[0] if behaviour else None
        if node.role in ("button", "textbox", "date", "combobox", "checkbox", "radio", "tab"):
            self.ui.focus = node.key
        if kind == "nav":
            href = behaviour[1]
            if href.lower().startswith(("http://", "https://", "javascript:", "mailto:")):
                raise ActionError(f"link [{node.bid}] leaves the site ({href}); only this site's pages can be opened")
            self._navigate(Url.parse(href))
        elif kind == "widget":
            _, wkey, op, default = behaviour
            current = bool(self.ui.widgets.get(wkey, default))
            self.ui.widgets[wkey] = {"open": True, "close": False}.get(op, not current)
        elif kind == "tab":
            self.ui.widgets[behaviour[1]] = behaviour[2]
        elif kind == "submit":
            return self._submit(behaviour[1], confirmed=False)
        elif kind == "confirm":
            self.ui.confirm = None
            return self._submit(behaviour[1], confirmed=True)
        elif kind == "cancel":
            self.ui.confirm = None
            self.ui.focus = None
        elif kind == "field" and node.role == "checkbox":
            edited = self._field_key(behaviour[1], behaviour[2])
            checked = self.ui.fields[edited] if edited in self.ui.fields else node.checked  # as overlay() shows it
            self._check(node, not bool(checked))
        elif kind == "option":
            _, form_key, name, value = behaviour
            self.ui.fields[self._field_key(form_key, name)] = value
        return None

    def _field_key(self, form_key: str, name: str) -> str:
        return f"{form_key}:{name}"

    def _type(self, node: Node, text: str, *, replace_text: bool) -> None:
        if node.role == "combobox":
            raise ActionError(f"element [{node.bid}] is a drop-down list; use select_option, not fill")
        if not node.editable:
            raise ActionError(f"element [{node.bid}] ({node.role} {node.name!r}) cannot be typed into")
        if node.input_type == "date" and text and not _is_date(text):
            raise ActionError(f"element [{node.bid}] is a date field: fill it with YYYY-MM-DD, got {text!r}")
        _, form_key, name = node.behaviour or ("", "", "")
        key = self._field_key(form_key, name)
        current = self._field_value(form_key, name)
        self.ui.fields[key] = text if replace_text else f"{current}{text}"
        self.ui.focus = node.key

    def _field_value(self, form_key: str, name: str, page: PageModel | None = None) -> Any:
        key = self._field_key(form_key, name)
        if key in self.ui.fields:
            return self.ui.fields[key]
        info = (page or self._structure()).forms.get(form_key)
        return info.defaults.get(name) if info else None

    def _select(self, node: Node, options: tuple[str, ...]) -> None:
        if node.role != "combobox":
            raise ActionError(f"element [{node.bid}] ({node.role}) is not a drop-down list")
        if len(options) != 1:
            raise ActionError(f"element [{node.bid}] takes exactly one option, got {len(options)}")
        wanted = options[0]
        choices = [(child.value or "", child.name) for child in node.children]
        match = next((v for v, label in choices if v == wanted), None)
        if match is None:
            match = next((v for v, label in choices if label.strip() == wanted.strip()), None)
        if match is None:
            shown = ", ".join(repr(label) for _, label in choices[:12])
            raise ActionError(f"element [{node.bid}] has no option {wanted!r}; options are {shown}")
        _, form_key, name = node.behaviour or ("", "", "")
        self.ui.fields[self._field_key(form_key, name)] = match
        self.ui.focus = node.key

    def _check(self, node: Node, state: bool) -> None:
        if node.role == "checkbox":
            _, form_key, name = node.behaviour or ("", "", "")
            self.ui.fields[self._field_key(form_key, name)] = state
        elif node.role == "radio":
            if not state:
                raise ActionError(f"element [{node.bid}] is a radio button: it cannot be unchecked, check another")
            _, form_key, name, value = node.behaviour or ("", "", "", "")
            self.ui.fields[self._field_key(form_key, name)] = value
        else:
            raise ActionError(f"element [{node.bid}] ({node.role}) is not a checkbox or radio button")
        self.ui.focus = node.key

    def _press(self, node: Node, key: str) -> StepResult | None:
        self.ui.focus = node.key
        base = key.split("+")[-1]
        modifiers = key.split("+")[:-1]
        behaviour = node.behaviour or ()
        if base == "Enter":
            if node.role in ("link", "button", "tab", "menuitem"):
                return self._click(node)
            if node.editable and node.input_type != "textarea" and behaviour and behaviour[0] == "field":
                return self._submit(behaviour[1], confirmed=False)
            if node.input_type == "textarea":
                self._type(node, "\n", replace_text=False)
        elif base in (" ", "Space") and node.role in ("button", "checkbox", "tab"):
            return self._click(node)
        elif base == "Escape":
            self.ui.confirm = None
            for wkey, value in list(self.ui.widgets.items()):
                if value is True:
                    self.ui.widgets[wkey] = False
        elif base == "Tab":
            order = [n for n in self._structure().nodes if n.interactable and not self._structure().blocked(n)]
            if order:
                keys = [n.key for n in order]
                index = keys.index(node.key) if node.key in keys else -1
                step = -1 if "Shift" in modifiers else 1
                self.ui.focus = keys[(index + step) % len(keys)]
        elif base == "Backspace" and node.editable:
            _, form_key, name = behaviour
            current = str(self._field_value(form_key, name) or "")
            self._type(node, current[:-1], replace_text=True)
        elif len(base) == 1 and not set(modifiers) - {"Shift"} and node.editable:
            self._type(node, base, replace_text=False)
        return None

    # ------------------------------------------------------------------ forms

    def form_values(self, form_key: str) -> dict[str, Any]:
        """The values a form would submit now, by field name."""
        page = self._structure()
        info = page.forms[form_key]
        values: dict[str, Any] = {}
        for field_el in info.form.fields:
            value = self._field_value(form_key, field_el.name, page)
            if field_el.type == "checkbox":
                value = "on" if value else ""
            values[field_el.name] = "" if value is None else value
        return values

    def _submit(self, form_key: str, *, confirmed: bool) -> StepResult | None:
        page = self._structure()
        info = page.forms.get(form_key)
        if info is None:
            raise ActionError("that form is no longer on the page")
        form = info.form
        values = self.form_values(form_key)
        missing = [f.label or f.name for f in form.fields if f.required and values.get(f.name) in ("", None)]
        if missing:
            self.ui.flash = ("error", f"Please fill in: {', '.join(missing)}.")
            return None
        if form.confirm is not None and not confirmed:
            self.ui.confirm = form_key
            return None
        action = form.action
        ctx = Context(param=dict(page.params), query=self.ui.url.params, field=values, row=info.ctx.row,
                      user=self.user_row(), clock={"today": self.today, "now": self.now})
        if action.kind == "navigate":
            target = Url.parse(render(action.route, ctx, url=True))
            params = {f.name: values[f.name] for f in form.fields if values.get(f.name) not in ("", None)}
            self._navigate(target.with_params(**params) if params else target)
        elif action.kind == "login":
            return self._login(str(values.get(action.username_field, "")),
                               str(values.get(action.password_field, "")), action.redirect)
        elif action.kind == "logout":
            self.ui.user_id = None
            self._navigate(Url.parse(action.redirect), flash=("status", "You have been logged out."))
        else:
            return self._run_marker(action, ctx)
        return None

    def _login(self, username: str, password: str, redirect: str) -> None:
        auth = self.site.auth
        if auth is None:
            self.ui.flash = ("error", "Logging in is not available on this site.")
            return
        rows = self.db.guard.engine(
            f"SELECT {quote(auth.id_column)} FROM {quote(auth.table)} WHERE {quote(auth.username_column)} = ? "
            f"AND {quote(auth.password_column)} = ?", (username.strip(), password)).fetchall()
        if not rows:
            self.ui.flash = ("error", "Invalid username or password.")
            return
        self.ui.user_id = int(rows[0][0])
        target = self.ui.url.params.get("next", "")
        if not target.startswith("/") or target.startswith("//"):
            target = redirect
        self._navigate(Url.parse(target), flash=("status", "You are logged in."))

    def _run_marker(self, action: Any, ctx: Context) -> StepResult | None:
        marker = self.markers.get(action.marker)
        if marker is None:
            self.ui.flash = ("error", "Sorry, something went wrong: this form cannot be submitted.")
            return None
        try:
            raw = {name: scalar_value(self.db.guard, value, ctx) for name, value in action.args.items()}
            result = run_marker(self.db, marker, raw, ctx)
        except MarkerFailed as exc:
            self.ui.flash = ("error", str(exc))
            return None
        except VeriwebError:
            self.ui.flash = ("error", marker.message)
            return None
        # The version names the database state: the same markers with the same arguments, by the
        # same user at the same virtual times from the snapshot give the same state, so caches
        # keyed by it stay valid (and are shared by the site's sessions: veriweb.engine.cache).
        self.version = hashlib.sha256(json.dumps(
            [self.version, result.marker, result.args, self.now, self.ui.user_id], default=str,
        ).encode()).hexdigest()[:16]
        done = ctx.result | {"id": result.last_id}
        target = self.ui.url
        if action.redirect:
            redirect_ctx = Context(param=ctx.param, query=ctx.query, field=ctx.field, row=ctx.row, user=ctx.user,
                                   clock=ctx.clock, result=done)
            target = Url.parse(render(action.redirect, redirect_ctx, url=True))
        message = action.success_message
        self._navigate(target, flash=("status", render(message, ctx)) if message else None)
        return StepResult(None, marker=result)


_NOT_FOUND: list[Any] = []


def _not_found_body() -> list[Any]:
    """The body of the page shown for an address no route matches (made once: scaffold elements are
    immutable values, and a random agent visits many such addresses)."""
    if not _NOT_FOUND:
        from veriweb.scaffold.elements import Heading, Link, Text

        _NOT_FOUND.extend([Heading(type="heading", text="Page not found", level=1),
                           Text(type="text", text="The page you asked for does not exist."),
                           Link(type="link", text="Go to the home page", href="/")])
    return _NOT_FOUND


def _is_date(text: str) -> bool:
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return len(text) == 10


def _same(actual: Any, expected: Any) -> bool:
    if actual == expected:
        return True
    return str(actual) == str(expected)


__all__ = ["Session", "StepResult", "UIState"]
