"""The Gymnasium environment: one veriweb site and task per episode, rewards from the backend state.

Description:
    A web agent acts on a generated or given website through BrowserGym-style actions. Every
    reward comes from the task's goal and progress predicates evaluated on the site's database;
    nothing in judging uses an LLM or a regular expression over the page.

Action Space:
    ``Text``: one action string in BrowserGym's high-level syntax, e.g. ``click('12')``,
    ``fill('7', 'red shoes')``, ``send_msg_to_user('$12.50')``, ``report_infeasible('...')``.
    A bad action is not an exception: it comes back in ``last_action_error``. For compact
    policies, wrap the env in :class:`veriweb.envs.actions.DiscreteActions`.

Observation Space:
    ``Dict`` with the goal (text and token ids), the accessibility-tree text, the URL,
    ``last_action_error``, progress ``[done, total]`` and the element table (see
    :mod:`veriweb.envs.observation`, which also documents the truncation rule).

Rewards:
    ``reward="sparse"``: 1 on verified success. ``reward="dense"``: plus potential-based shaping
    ``gamma * Phi(s') - Phi(s)``, Phi the fraction of subgoals that hold. ``violation_penalty``
    is subtracted on the step that breaks a constraint or the footprint.

Starting State:
    The site's seeded database (restored, not rebuilt), the task's start URL, logged in when the
    task says so. Which site and task: see :mod:`veriweb.envs.pool` (the seed mapping), or
    ``reset(options={"site": ..., "task": ...})``.

Episode End:
    Terminated: the agent sent a message (judged as the answer) or reported the task infeasible
    (a success exactly when it is), a navigate or mutate goal holds (unless
    ``end_on_success=False``), or a constraint or the footprint broke (a failure). Truncated: the
    task's step budget (40 by default) ran out, or the engine failed (``info["infra_error"]``).

Arguments:
    domain / corpus / sites: where sites come from; split, num_sites; family, kind, difficulty,
    task_ids: task filters; reward, gamma, violation_penalty; end_on_success; max_steps
    (overrides the task's); oracle (put the oracle's next action in ``info``, when available);
    observation sizes (``ObservationConfig``); render_mode ``"ansi"`` or ``"html"``; gc_freeze.

Speed:
    ``gc_freeze=True`` calls :func:`gc.freeze` after every step, so the site and the pages its
    cache keeps leave the cycle collector's full passes, which otherwise take a quarter to a half
    of the CPU of a walk on new states and never free anything (a step leaves no cyclic
    garbage). Frozen objects are still freed by reference counting. The freeze is process-wide:
    it is bounded by a full pass whenever the frozen set doubles, and ``close()`` thaws
    everything (see :mod:`veriweb.envs.freezing`), but while it holds, :func:`gc.get_objects`
    and :func:`gc.get_referrers` do not see frozen objects, which tools that inspect the heap
    rely on. So it is off by default; set it in a process that exists to collect rollouts, or
    around a rollout loop that closes the env after.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from veriweb.engine import Episode, PageModel, Session, html_page
from veriweb.engine.render import axtree_text
from veriweb.envs import freezing
from veriweb.envs.observation import CHARSET, ObservationConfig, PageView, Relatives, observation
from veriweb.envs.pool import SitePool, task_filter
from veriweb.errors import VeriwebError
from veriweb.rewards import potential, reward_fn
from veriweb.scaffold import Site, Task


class VeriwebEnv(gym.Env[dict[str, Any], str]):
    """A veriweb site as a Gymnasium environment (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "html"], "render_fps": 4}

    def __init__(self, domain: str | None = None, *, corpus: str | Path | None = None,
                 sites: Sequence[Site | str | Path] | None = None, split: str = "train", num_sites: int = 16,
                 family: str | Sequence[str] | None = None, kind: str | Sequence[str] | None = None,
                 difficulty: str | Sequence[str] | None = None, task_ids: str | Sequence[str] | None = None,
                 reward: str = "sparse", gamma: float = 0.99, violation_penalty: float = 0.0,
                 end_on_success: bool = True, max_steps: int | None = None, oracle: bool = False,
                 config: ObservationConfig | None = None, render_mode: str | None = None,
                 gc_freeze: bool = False) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise VeriwebError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.pool = SitePool(domain=domain, corpus=corpus, sites=sites, split=split, num_sites=num_sites,
                             filters=task_filter(family, kind, difficulty, task_ids))
        self.config = config or ObservationConfig()
        self.observation_space = self.config.space()
        self.action_space = spaces.Text(max_length=2_000, min_length=0, charset=CHARSET)
        self.reward = reward_fn(reward)
        self.gamma, self.violation_penalty = gamma, violation_penalty
        self.end_on_success, self.max_steps, self.oracle = end_on_success, max_steps, oracle
        self.render_mode = render_mode
        self._sessions: OrderedDict[int, Session] = OrderedDict()
        self.episode: Episode | None = None
        self.site_index = -1
        self._phi = 0.0
        self._view: PageView | None = None
        self._page: PageModel | None = None
        self._goal_tokens: np.ndarray | None = None
        self._on_track = True
        self._relatives: Relatives = {}
        self.gc_freeze = gc_freeze

    # ------------------------------------------------------------------ episodes

    @property
    def task(self) -> Task:
        """The current task."""
        if self.episode is None:
            raise VeriwebError("call reset() first")
        return self.episode.task

    @property
    def site(self) -> Site:
        """The current site."""
        return self.pool.site(self.site_index)

    @property
    def element_bids(self) -> tuple[str, ...]:
        """The bid of each row of the current observation's element table."""
        return self._view.bids if self._view else ()

    @property
    def view(self) -> PageView:
        """The encoded current page (element table, text, bids and per-row facts)."""
        if self._view is None:
            raise VeriwebError("call reset() first")
        return self._view

    @property
    def page(self) -> PageModel:
        """The current page model."""
        if self._page is None:
            raise VeriwebError("call reset() first")
        return self._page

    def _session(self, index: int) -> Session:
        session = self._sessions.get(index)
        if session is None:
            session = Session(self.pool.site(index))
            self._sessions[index] = session
            if len(self._sessions) > 32:
                self._sessions.popitem(last=False)
        else:
            self._sessions.move_to_end(index)
        return session

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode: by ``options={"site": ..., "task": ...}``, by ``seed``, or drawn at random."""
        super().reset(seed=seed)
        options = options or {}
        if "site" in options or "task" in options:
            index, task = self.pool.find(options.get("site", 0), options.get("task"))
        else:
            draw = seed if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
            index, task = self.pool.pick(draw)
        if self.max_steps is not None:
            task = task.model_copy(update={"max_steps": self.max_steps})
        self.site_index = index
        session = self._session(index)
        self.episode = Episode(session.site, task, session=session, end_on_success=self.end_on_success)
        page = self.episode.reset()
        progress = self.episode.judge.progress()
        self._phi = potential(progress.done, progress.total)
        self._goal_tokens = None
        self._on_track = True
        obs = self._observe(page, None, (progress.done, progress.total))
        return obs, self._info(progress.done, progress.total, success=False, violation=None, error=None)

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Take one action; see the module docstring for rewards and episode ends."""
        if self.episode is None:
            raise VeriwebError("call reset() before step()")
        certificate = self.task.certificate
        done_steps = self.episode.steps
        self._on_track = (self._on_track and done_steps < len(certificate)
                          and certificate[done_steps] == str(action).strip())
        try:
            outcome = self.episode.step(str(action))
        except VeriwebError as exc:
            if "episode is over" in str(exc):
                raise
            return self._infra_failure(exc)
        except Exception as exc:  # an engine fault: never an ordinary reward of 0
            return self._infra_failure(exc)
        progress = outcome.progress
        phi = potential(progress.done, progress.total)
        violated = outcome.info.get("violation") is not None and outcome.terminated and not outcome.success
        reward = self.reward(success=outcome.success, phi_before=self._phi, phi_after=phi, violated=violated,
                             gamma=self.gamma)
        if violated:
            reward -= self.violation_penalty
        self._phi = phi
        obs = self._observe(outcome.page, outcome.error, (progress.done, progress.total))
        info = self._info(progress.done, progress.total, success=outcome.success,
                          violation=outcome.info.get("violation"), error=outcome.error)
        info["reason"] = outcome.info.get("reason")
        if "answer" in outcome.info:
            info["answer"] = outcome.info["answer"]
        if self.gc_freeze:  # see Speed in the module docstring
            freezing.after_step()
        return obs, float(reward), outcome.terminated, outcome.truncated, info

    def _infra_failure(self, exc: BaseException) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        page = self.page
        obs = self._observe(page, "the environment failed; this episode is void", (0, 0))
        info = self._info(0, 0, success=False, violation=None, error=str(exc))
        info["infra_error"] = True
        info["infra_detail"] = f"{type(exc).__name__}: {exc}"
        return obs, 0.0, False, True, info

    def _observe(self, page: PageModel, error: str | None, progress: tuple[int, int]) -> dict[str, Any]:
        self._page = page
        if self._goal_tokens is None:
            from veriweb.envs.tokenizer import encode

            self._goal_tokens = encode(self.task.instruction, self.config.goal_tokens)
            self._goal_tokens.setflags(write=False)
        obs, self._view = observation(page, self.task.instruction, error, progress, self.config, self._goal_tokens,
                                      self._relatives)
        return obs

    def _info(self, done: int, total: int, *, success: bool, violation: str | None,
              error: str | None) -> dict[str, Any]:
        task = self.task
        info: dict[str, Any] = {
            "success": success, "progress": (done, total), "violation": violation, "last_action_error": error or "",
            "infra_error": False, "site": self.site.id, "task": task.id, "family": task.family, "kind": task.kind,
            "difficulty": task.difficulty, "element_bids": self.element_bids,
            "truncated_elements": self._view.truncated if self._view else 0,
        }
        if self.oracle:
            info["oracle"] = self.oracle_action()
        return info

    def oracle_action(self, budget: int = 500) -> str | None:
        """The next action of a solution from the current state, or ``None`` if none is found.

        While the agent has followed the task's certificate exactly, the certificate's next
        action (free); otherwise the verifier's best-first search from the current state
        (:func:`veriweb.verify.search.oracle`), within ``budget`` engine steps. Its solution is
        replayed and shortened but not guaranteed shortest (``solve(..., exact=True)`` is, and
        is slower), so optimality gaps measured with it are upper bounds. For an infeasible
        task, ``report_infeasible``.
        """
        if self.episode is None:
            return None
        task = self.task
        if task.kind == "infeasible":
            return "report_infeasible('This cannot be done on this site.')"
        certificate = task.certificate
        steps = self.episode.steps
        if self._on_track and steps < len(certificate):
            return certificate[steps]
        from veriweb.verify.search import oracle

        return oracle(self.site, task, self.episode.session, budget=budget)

    def close(self) -> None:
        """Give what this env froze back to the cycle collector (see Speed in the module docstring)."""
        if self.gc_freeze:
            freezing.thaw()
        super().close()

    def render(self) -> str | None:
        """``ansi``: the accessibility-tree text; ``html``: the page's HTML."""
        if self.render_mode == "ansi":
            return axtree_text(self.page)
        if self.render_mode == "html":
            return html_page(self.page)
        return None
