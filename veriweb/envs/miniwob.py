"""MiniWoB++ as a veriweb environment: its ``dom_elements`` as our element table, our actions on its tasks.

Description:
    A policy trained on veriweb sites reads an element table (role, name, value, states,
    depth, parent) that holds nothing engine-internal, so an outside benchmark can fill it.
    :class:`MiniWoBEnv` does that for MiniWoB++ (``pip install miniwob``; real Chromium through
    Selenium): each step, MiniWoB++'s ``dom_elements`` become a page model
    (:func:`page_from_dom`), which is encoded by the very function that encodes veriweb pages
    (:func:`veriweb.envs.observation.observation`). So :class:`veriweb.envs.DiscreteActions` and
    a trained policy run on MiniWoB++ unchanged: zero-shot transfer is measured, not assumed.

Action Space:
    BrowserGym-syntax strings, as :class:`veriweb.envs.VeriwebEnv`: ``click(bid)`` and
    ``check(bid)`` click the element, ``fill(bid, text)`` focuses it and types, ``press(bid,
    'Enter')`` types a newline into it, ``select_option(bid, option)`` clicks the option;
    ``noop()``, ``send_msg_to_user`` and ``report_infeasible`` do nothing (MiniWoB++ judges the
    page, not a message). ``goto`` and ``go_back`` are errors: a MiniWoB++ task is one page.
    An element's bid is its MiniWoB++ ``ref``.

Observation Space:
    :meth:`veriweb.envs.observation.ObservationConfig.space`: the utterance as the goal, the
    element table, the accessibility-tree text, the URL ``miniwob://<task>``, the last action's
    error, and progress ``[0, 0]`` (MiniWoB++ has no subgoals).

Element roles:
    From the tag (``a`` a link, ``button`` and button inputs a button, text inputs and
    ``textarea`` a textbox, ``select`` a combobox, checkbox and radio inputs, headings, lists,
    tables, labels, text pseudo-elements ``t`` as ``StaticText``), and an element styled as a
    link (a class ``alink``, ``link`` or ``*-link``) as a link, which is how MiniWoB++ writes
    its links. A field's name is the text of the label just before it, else its id. Every
    element MiniWoB++ lists is visible (it drops zero-sized ones).

Rewards:
    1 when MiniWoB++'s raw reward (without its wall-clock time penalty) is positive, else 0.
    ``info["raw_reward"]`` and ``info["env_reward"]`` carry MiniWoB++'s own figures.

Episode End:
    Terminated when MiniWoB++ says the episode is done; truncated after ``max_steps`` steps.
    MiniWoB++ also ends an episode after its own wall-clock limit, which no veriweb code can
    make deterministic: this env is for measuring transfer, not for replayable training.

Task strings (for ``DiscreteActions``): the values of MiniWoB++'s ``fields`` (its own parse of
the utterance), then the quoted strings of the utterance, distinct, in order.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from veriweb.engine import actions as A
from veriweb.engine.page import Node, PageModel
from veriweb.engine.render import axtree_text
from veriweb.envs.observation import CHARSET, ObservationConfig, PageView, observation
from veriweb.errors import VeriwebError

TASKS = ("click-link", "click-button", "click-dialog", "click-checkboxes", "click-option", "click-tab", "focus-text",
         "enter-text", "enter-password", "login-user", "click-test", "click-test-2")
"""MiniWoB++ tasks whose moves are all element actions (click, type): the transfer set."""

_ROLE_BY_TAG = {
    "a": "link", "button": "button", "input_button": "button", "input_submit": "button", "input_reset": "button",
    "input_text": "textbox", "input_password": "textbox", "input_email": "textbox", "input_search": "textbox",
    "input_tel": "textbox", "input_url": "textbox", "input_number": "textbox", "textarea": "textbox",
    "input_date": "date", "select": "combobox", "option": "option", "input_checkbox": "checkbox",
    "input_radio": "radio", "label": "LabelText", "h1": "heading", "h2": "heading", "h3": "heading",
    "h4": "heading", "h5": "heading", "h6": "heading", "p": "paragraph", "ul": "list", "ol": "list",
    "li": "listitem", "table": "table", "tr": "row", "td": "cell", "th": "columnheader", "form": "form",
    "t": "StaticText", "img": "img",
}
_LINK_CLASS = re.compile(r"(?:^|\s)(?:alink|link|[\w-]+-link)(?:\s|$)")
_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”")


def _role(tag: str, classes: str) -> str:
    role = _ROLE_BY_TAG.get(tag)
    if role is not None:
        return role
    return "link" if classes and _LINK_CLASS.search(classes) else "generic"


def page_from_dom(elements: Sequence[Mapping[str, Any]], url: str, title: str = "") -> PageModel:
    """A page model of MiniWoB++ ``dom_elements`` (the serialized form its observations carry).

    Args:
        elements: the elements, parents before children (as MiniWoB++ lists them).
        url: the page's address.
        title: the page's title.

    Raises:
        VeriwebError: an element names a parent that is not listed before it.
    """
    root = Node(role="RootWebArea", name=title, bid="", depth=-1, tag="html")
    by_ref: dict[int, Node] = {0: root}
    nodes: list[Node] = []
    previous_label = ""
    for index, element in enumerate(elements):
        ref, parent_ref = int(element["ref"]), int(element["parent"])
        parent = by_ref.get(parent_ref)
        if parent is None:
            raise VeriwebError(f"dom_elements[{index}] (ref {ref}): its parent {parent_ref} is not listed before it")
        tag = str(element.get("tag", "")).lower()
        role = _role(tag, str(element.get("classes", "")))
        text = str(element.get("text", "") or "").strip()
        raw_value = str(element.get("value", "") or "")
        flags = np.asarray(element.get("flags", (0, 0, 0, 0))).reshape(-1)
        node = Node(role=role, bid=str(ref), depth=parent.depth + 1, tag=tag, focused=bool(flags[0]))
        if role in ("checkbox", "radio"):
            node.checked = raw_value == "True"
            node.name = text or previous_label or str(element.get("id", ""))
        elif role in ("textbox", "date"):
            node.value = raw_value
            node.name = previous_label or str(element.get("id", ""))
        elif role == "button" and tag.startswith("input_"):
            node.name = raw_value or text
        elif role in ("link", "button", "option", "heading", "tab"):
            node.name = text
        else:
            node.text = text
        if role in ("LabelText", "StaticText") and text:
            previous_label = text.rstrip(":").strip()
        elif role not in ("generic",):
            previous_label = ""
        parent.add(node)
        by_ref[ref] = node
        nodes.append(node)
    return PageModel(url=url, title=title, page_id="miniwob", params={}, root=root, nodes=nodes,
                     by_bid={node.bid: node for node in nodes})


def task_strings(fields: Sequence[Sequence[str]], utterance: str, limit: int) -> list[str]:
    """The strings a policy may type or send: ``fields`` values, then quoted utterance strings."""
    found: list[str] = []
    for pair in fields:
        if len(pair) >= 2 and str(pair[1]) and str(pair[1]) not in found:
            found.append(str(pair[1]))
    for match in _QUOTED.finditer(utterance):
        text = match.group(1) or match.group(2)
        if text and text not in found:
            found.append(text)
    return found[:limit]


def _use_system_chromium() -> None:
    """Point MiniWoB++ at Debian's Chromium and ChromeDriver unless the caller chose others."""
    if os.environ.get("MINIWOB_CHROME_BINARY") or os.environ.get("MINIWOB_CHROMEDRIVER"):
        return
    from veriweb.browser.chromium import chromium_path

    os.environ["MINIWOB_CHROME_BINARY"] = chromium_path()
    os.environ["MINIWOB_CHROMEDRIVER"] = os.environ.get("VERIWEB_CHROMEDRIVER", "/usr/bin/chromedriver")


class MiniWoBEnv(gym.Env[dict[str, Any], str]):
    """A MiniWoB++ task with veriweb's observation and action syntax (see the module docstring).

    Args:
        task: the MiniWoB++ task name (``click-link``; see :data:`TASKS`).
        max_steps: steps before truncation.
        config: observation sizes.
        render_mode: ``"ansi"`` (the accessibility-tree text) or ``None``.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, task: str = "click-link", *, max_steps: int = 10, config: ObservationConfig | None = None,
                 render_mode: str | None = None) -> None:
        if not re.fullmatch(r"[a-z0-9-]+", task):
            raise VeriwebError(f"MiniWoB++ task names are lower-case words with dashes, got {task!r}")
        if max_steps <= 0:
            raise VeriwebError(f"max_steps must be positive, got {max_steps}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise VeriwebError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.task_name, self.max_steps, self.render_mode = task, max_steps, render_mode
        self.config = config or ObservationConfig()
        self.observation_space = self.config.space()
        self.action_space = spaces.Text(max_length=2_000, min_length=0, charset=CHARSET)
        self.episode = None  # no veriweb episode: no history, no going back
        self._env: Any = None
        self._page: PageModel | None = None
        self._view: PageView | None = None
        self._utterance = ""
        self._fields: tuple[tuple[str, str], ...] = ()
        self._steps = 0

    # ------------------------------------------------------------------ what DiscreteActions reads

    @property
    def page(self) -> PageModel:
        """The current page model."""
        if self._page is None:
            raise VeriwebError("call reset() first")
        return self._page

    @property
    def view(self) -> PageView:
        """The encoded current page."""
        if self._view is None:
            raise VeriwebError("call reset() first")
        return self._view

    @property
    def element_bids(self) -> tuple[str, ...]:
        """The bid (MiniWoB++ ref) of each row of the element table."""
        return self._view.bids if self._view else ()

    @property
    def goal(self) -> str:
        """The current utterance."""
        return self._utterance

    @property
    def fields(self) -> tuple[tuple[str, str], ...]:
        """The current task's fields as MiniWoB++ parses its utterance: (name, value) pairs."""
        return self._fields

    def task_strings(self, limit: int) -> list[str]:
        """The current task's strings (see the module docstring)."""
        return task_strings(self._fields, self._utterance, limit)

    # ------------------------------------------------------------------ episodes

    def _miniwob(self) -> Any:
        if self._env is None:
            try:
                import miniwob
            except ImportError as exc:
                raise VeriwebError("MiniWoB++ is not installed: pip install miniwob") from exc
            _use_system_chromium()
            gym.register_envs(miniwob)
            env_id = f"miniwob/{self.task_name}-v1"
            if env_id not in gym.registry:
                raise VeriwebError(f"no MiniWoB++ task {self.task_name!r} (no {env_id} is registered)")
            self._env = gym.make(env_id, action_space_config="all_supported").unwrapped
        return self._env

    def _observe(self, raw: Mapping[str, Any], error: str | None) -> dict[str, Any]:
        if raw.get("utterance"):
            self._utterance = str(raw["utterance"])
            self._fields = tuple((str(k), str(v)) for k, v in raw.get("fields", ()))
        elements = raw.get("dom_elements", ())
        if elements or self._page is None:
            self._page = page_from_dom(elements, f"miniwob://{self.task_name}", self.task_name)
        obs, self._view = observation(self._page, self._utterance, error, (0, 0), self.config)
        return obs

    def _info(self, *, success: bool, error: str | None, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        info = {"success": success, "progress": (0, 0), "violation": None, "last_action_error": error or "",
                "infra_error": False, "site": "miniwob", "task": self.task_name, "family": self.task_name,
                "kind": "mutate", "difficulty": "easy", "element_bids": self.element_bids}
        for key in ("raw_reward", "env_reward", "reason"):
            if extra and key in extra:
                info[key] = extra[key]
        return info

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode of the task (MiniWoB++ draws its instance from ``seed``)."""
        super().reset(seed=seed)
        raw, extra = self._miniwob().reset(seed=seed)
        self._steps = 0
        self._page = None
        return self._observe(raw, None), self._info(success=False, error=None, extra=extra)

    def _command(self, action: str) -> tuple[dict[str, Any] | None, str | None]:
        """MiniWoB++'s action for ``action``, or ``None`` and an error for what cannot run here."""
        env = self._miniwob()
        try:
            parsed = A.parse_action(action)
        except VeriwebError as exc:
            return None, str(exc)
        page = self.page

        def target(bid: str) -> int | None:
            return int(bid) if bid in page.by_bid else None

        if isinstance(parsed, (A.Click, A.Check)):
            ref = target(parsed.bid)
            if ref is None:
                return None, f"no element [{parsed.bid}] on the page"
            return env.create_action("CLICK_ELEMENT", ref=ref), None
        if isinstance(parsed, A.Fill):
            ref = target(parsed.bid)
            if ref is None:
                return None, f"no element [{parsed.bid}] on the page"
            if not page.by_bid[parsed.bid].editable:
                return None, f"element [{parsed.bid}] is not a field one can type into"
            return env.create_action("FOCUS_ELEMENT_AND_TYPE_TEXT", ref=ref, text=parsed.value), None
        if isinstance(parsed, A.Press) and parsed.key == "Enter":
            ref = target(parsed.bid)
            if ref is None:
                return None, f"no element [{parsed.bid}] on the page"
            return env.create_action("FOCUS_ELEMENT_AND_TYPE_TEXT", ref=ref, text="\n"), None
        if isinstance(parsed, A.SelectOption):
            node = page.by_bid.get(parsed.bid)
            for child in node.children if node is not None else []:
                if child.role == "option" and child.name in parsed.options:
                    return env.create_action("CLICK_ELEMENT", ref=int(child.bid)), None
            return None, f"no option {parsed.options[0]!r} in element [{parsed.bid}]"
        if isinstance(parsed, (A.Noop, A.SendMsgToUser, A.ReportInfeasible)):
            return env.create_action("NONE"), None
        return None, f"{parsed.name}() has no MiniWoB++ equivalent (a MiniWoB++ task is one page)"

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Take one action (see the module docstring)."""
        if self._page is None:
            raise VeriwebError("call reset() before step()")
        self._steps += 1
        command, error = self._command(str(action))
        if command is None:
            command = self._miniwob().create_action("NONE")
        raw, _, terminated, _, extra = self._miniwob().step(command)
        success = bool(terminated and float(extra.get("raw_reward", 0.0)) > 0)
        obs = self._observe(raw, error)
        truncated = not terminated and self._steps >= self.max_steps
        return obs, float(success), bool(terminated), truncated, self._info(success=success, error=error, extra=extra)

    def render(self) -> str | None:
        """``ansi``: the accessibility-tree text."""
        return axtree_text(self.page) if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Stop MiniWoB++'s browser."""
        if self._env is not None:
            self._env.close()
            self._env = None
