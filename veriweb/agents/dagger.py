"""DAgger with the env's oracle: run the policy, label every state it reaches with the oracle's next action.

Behaviour cloning only ever sees the states a certificate passes through; one wrong step puts
the policy somewhere it never saw a demonstration. A DAgger round runs the current policy (with
probability ``beta`` the oracle's own action is taken instead, so early rounds stay near good
states) on training tasks, asks :meth:`veriweb.envs.env.VeriwebEnv.oracle_action` for the next
step of a solution from each state it reaches, and adds the (features, oracle action) pairs to
the training set. While the policy follows the certificate the oracle is the certificate (free);
off it, the verifier's search finds a way back, within a budget of engine steps.

Labels the policy could not learn from are left out and counted: the oracle found nothing
(``no_oracle``), its action has no discrete equivalent or is masked (``unmappable``), or it
answers a retrieve task with a text the page does not show (``unseen_answer``: the search may
answer from the judge before navigating to where the answer is written, which would teach the
policy to guess).
"""

from __future__ import annotations

import gc
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import numpy as np
import torch

from veriweb.agents.bc import Demonstrations, _allowed
from veriweb.agents.features import featurize, pack, stack
from veriweb.agents.memory import remember
from veriweb.agents.policy import Policy, discrete_for, to_tensors
from veriweb.engine import actions as A
from veriweb.envs.env import VeriwebEnv
from veriweb.errors import VeriwebError
from veriweb.scaffold import Site


@dataclass
class RoundStats:
    """What one DAgger round saw.

    Attributes:
        episodes: episodes run.
        successes: episodes the executed actions solved.
        states: states visited.
        labelled: states that became demonstrations.
        skipped: states left out, by reason.
        disagreements: labelled states where the policy's own action differed from the oracle's.
    """

    episodes: int = 0
    successes: int = 0
    states: int = 0
    labelled: int = 0
    disagreements: int = 0
    skipped: Counter[str] = field(default_factory=Counter)

    def summary(self) -> dict[str, Any]:
        """Counts as a JSON-ready dict."""
        return {"episodes": self.episodes, "successes": self.successes, "states": self.states,
                "labelled": self.labelled, "disagreements": self.disagreements, "skipped": dict(self.skipped)}


def _shown(answer: str, obs: dict[str, Any]) -> bool:
    """Whether an answer's text is written on the page (its accessibility-tree text)."""
    text = answer.strip()
    return bool(text) and text.casefold() in obs["axtree"].casefold()


def dagger_round(policy: Policy, sites: Sequence[Site], *, beta: float = 0.0, seed: int = 0,
                 tasks_per_round: int | None = None, greedy: bool = False, oracle_budget: int = 500,
                 max_extra_steps: int = 6, stop: Callable[[], bool] | None = None, workers: int = 1,
                 time_left: float | None = None) -> tuple[Demonstrations, RoundStats]:
    """Run ``policy`` on training tasks and label the states it reaches with the oracle's actions.

    Args:
        policy: the current policy (not trained here).
        sites: the training sites.
        beta: probability of executing the oracle's action instead of the policy's.
        seed: the stream for the task subsample; each episode draws its ``beta`` coins and the
            policy's samples from a stream of its own (``seed`` and the task's place), so the
            labels do not depend on how the episodes are shared among workers.
        tasks_per_round: how many (site, task) pairs to run (default: all, in a seeded order).
        greedy: execute the policy's most likely action (default: sample it).
        oracle_budget: engine steps the oracle's search may spend per state.
        max_extra_steps: end an episode this many steps past its certificate's length.
        stop: called between episodes; the round ends early when it returns True (one worker).
        workers: processes to run episodes in: the sites are cut into that many contiguous
            chunks, each runs the picked tasks of its chunk in the round's order, and the
            labels are put back in that order. The oracle's search is most of a round's time
            and runs one state at a time, so two workers label about twice as much.
        time_left: seconds the round may take (each worker stops starting episodes after it);
            with ``workers > 1`` this replaces ``stop``, which cannot cross processes.

    Returns:
        The new demonstrations (features and oracle actions) and the round's counts.
    """
    if not sites:
        raise VeriwebError("DAgger needs at least one training site")
    sites = list(sites)
    rng = np.random.default_rng(seed)
    pairs = [(i, task.id, len(task.certificate)) for i, site in enumerate(sites) for task in site.tasks
             if task.certificate or task.kind == "infeasible"]
    order = rng.permutation(len(pairs))[: tasks_per_round or len(pairs)]
    picks = [(number, pairs[int(pick)]) for number, pick in enumerate(order)]
    settings = {"beta": beta, "seed": seed, "greedy": greedy, "oracle_budget": oracle_budget,
                "max_extra_steps": max_extra_steps}
    if time_left is not None:
        deadline = time.monotonic() + time_left
        stop = (lambda old=stop: time.monotonic() > deadline or (old is not None and old()))  # noqa: E731
    if workers > 1 and len(sites) > 1:
        parts = _parallel(policy, sites, picks, settings, workers, time_left)
    else:
        parts = [_episodes(policy, sites, picks, settings, stop)]
    return _join(parts, policy)


def _episodes(policy: Policy, sites: Sequence[Site], picks: Sequence[tuple[int, tuple[int, str, int]]],
              settings: dict[str, Any], stop: Callable[[], bool] | None) -> list[_Episode]:
    """Run the picked episodes (``(number, (site index, task id, certificate length))``) in order."""
    env = discrete_for(VeriwebEnv(sites=list(sites)), policy.config)
    policy.eval()
    done: list[_Episode] = []
    for number, (site_index, task_id, length) in picks:
        if stop is not None and stop():
            break
        done.append(_episode(policy, env, number, site_index, task_id, length, **settings))
    return done


@dataclass
class _Episode:
    """One DAgger episode's labels and counts (``number``: its place in the round's order)."""

    number: int
    rows: list[dict[str, np.ndarray]] = field(default_factory=list)
    actions: list[np.ndarray] = field(default_factory=list)
    stats: RoundStats = field(default_factory=RoundStats)


def _episode(policy: Policy, env: Any, number: int, site_index: int, task_id: str, length: int, *, beta: float,
             seed: int, greedy: bool, oracle_budget: int, max_extra_steps: int) -> _Episode:
    rng = np.random.default_rng([seed, number])
    generator = torch.Generator().manual_seed(seed * 1_000_003 + number)
    out = _Episode(number)
    stats = out.stats
    obs, info = env.reset(options={"site": site_index, "task": task_id})
    stats.episodes += 1
    retrieve = env.base.task.kind == "retrieve"
    for _ in range(length + max_extra_steps):
        stats.states += 1
        features = featurize(obs, env)
        text = env.base.oracle_action(oracle_budget)
        label = None
        if text is None:
            stats.skipped["no_oracle"] += 1
        else:
            try:
                label = env.encode(text)
            except VeriwebError:
                stats.skipped["unmappable"] += 1
            if label is not None and not _allowed(obs, label):
                stats.skipped["unmappable"] += 1
                label = None
            if label is not None and retrieve and isinstance(A.parse_action(text), A.SendMsgToUser) \
                    and not _shown(A.parse_action(text).text, obs):
                stats.skipped["unseen_answer"] += 1
                label = None
        with torch.no_grad():
            batch = to_tensors({k: v[None] for k, v in features.items()})
            state = torch.get_rng_state()
            torch.set_rng_state(generator.get_state())
            try:
                own = policy(batch, greedy=greedy)["action"][0].numpy()
            finally:
                generator.set_state(torch.get_rng_state())
                torch.set_rng_state(state)
        if label is not None:
            out.rows.append(features)
            out.actions.append(label)
            stats.labelled += 1
            stats.disagreements += int(not _same_action(own, label))
        if text is None:
            break  # no way to the goal from here: nothing more to learn in this episode
        executed = label if label is not None and rng.random() < beta else own
        obs, _, terminated, truncated, info = env.step(executed)
        remember(env, executed, obs)
        if terminated or truncated:
            break
    stats.successes += int(bool(info.get("success")))
    return out


def _parallel(policy: Policy, sites: list[Site], picks: list[tuple[int, tuple[int, str, int]]],
              settings: dict[str, Any], workers: int, time_left: float | None) -> list[list[_Episode]]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    bounds = np.linspace(0, len(sites), min(workers, len(sites)) + 1).round().astype(int)
    state = {k: v.detach().clone() for k, v in policy.state_dict().items()}
    jobs = []
    for a, b in pairwise(bounds):  # a worker gets only the sites its episodes use, not its whole chunk
        used = sorted({index for _, (index, _, _) in picks if a <= index < b})
        place = {index: k for k, index in enumerate(used)}
        mine = [(number, (place[index], task_id, length)) for number, (index, task_id, length) in picks
                if a <= index < b]
        jobs.append((policy.config, state, [sites[index] for index in used], mine, settings, time_left))
    # Frozen, the parent's objects are never visited by a child's collector, so their pages stay shared
    # (a collection in each child otherwise copied every page of the training sites and demonstrations).
    gc.freeze()
    try:
        with ProcessPoolExecutor(len(jobs), mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(_worker, jobs))
    finally:
        gc.unfreeze()


def _worker(job: tuple[Any, ...]) -> list[_Episode]:
    config, state, sites, picks, settings, time_left = job
    torch.set_num_threads(1)
    policy = Policy(config)
    policy.load_state_dict(state)
    deadline = None if time_left is None else time.monotonic() + time_left
    return _episodes(policy, sites, picks, settings, None if deadline is None else lambda: time.monotonic() > deadline)


def _join(parts: Sequence[Sequence[_Episode]], policy: Policy) -> tuple[Demonstrations, RoundStats]:
    """The episodes of every worker as one demonstration set, in the round's order."""
    done = sorted((episode for part in parts for episode in part), key=lambda episode: episode.number)
    stats = RoundStats()
    rows: list[dict[str, np.ndarray]] = []
    actions: list[np.ndarray] = []
    episodes: list[int] = []
    for place, episode in enumerate(done):
        rows += episode.rows
        actions += episode.actions
        episodes += [place] * len(episode.rows)
        for name in ("episodes", "successes", "states", "labelled", "disagreements"):
            setattr(stats, name, getattr(stats, name) + getattr(episode.stats, name))
        stats.skipped.update(episode.stats.skipped)
    demos = Demonstrations(pack(stack(rows)) if rows else {}, np.stack(actions).astype(np.int64) if actions
                           else np.zeros((0, 3), np.int64), np.array(episodes, np.int64), tasks=stats.episodes,
                           used=stats.episodes, config=policy.config)
    return demos, stats


def _same_action(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two discrete actions agree on every head their type uses."""
    from veriweb.agents.policy import USES_ARGUMENT, USES_ELEMENT

    kind = int(a[0])
    if kind != int(b[0]):
        return False
    if bool(USES_ELEMENT[kind]) and int(a[1]) != int(b[1]):
        return False
    return not (bool(USES_ARGUMENT[kind]) and int(a[2]) != int(b[2]))


def merge(first: Demonstrations, second: Demonstrations) -> Demonstrations:
    """One demonstration set holding both (episode indices of ``second`` shifted past ``first``'s)."""
    if not len(second):
        return first
    if not len(first):
        return second
    if set(first.features) != set(second.features):
        raise VeriwebError("cannot merge demonstrations with different feature keys: "
                           f"{sorted(set(first.features) ^ set(second.features))}")
    features = {k: np.concatenate([first.features[k], second.features[k]]) for k in first.features}
    shift = int(first.episode.max()) + 1 if len(first.episode) else 0
    out = Demonstrations(features, np.concatenate([first.actions, second.actions]),
                         np.concatenate([first.episode, second.episode + shift]), tasks=first.tasks + second.tasks,
                         used=first.used + second.used, config=first.config)
    out.skipped = first.skipped + second.skipped
    out.examples = {**second.examples, **first.examples}
    return out
