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

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from veriweb.agents.bc import Demonstrations, _allowed
from veriweb.agents.features import featurize, stack
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
                 max_extra_steps: int = 6, stop: Callable[[], bool] | None = None) -> tuple[Demonstrations, RoundStats]:
    """Run ``policy`` on training tasks and label the states it reaches with the oracle's actions.

    Args:
        policy: the current policy (not trained here).
        sites: the training sites.
        beta: probability of executing the oracle's action instead of the policy's.
        seed: the stream for the task subsample, ``beta`` draws and the policy's samples.
        tasks_per_round: how many (site, task) pairs to run (default: all, in a seeded order).
        greedy: execute the policy's most likely action (default: sample it).
        oracle_budget: engine steps the oracle's search may spend per state.
        max_extra_steps: end an episode this many steps past its certificate's length.
        stop: called between episodes; the round ends early when it returns True.

    Returns:
        The new demonstrations (features and oracle actions) and the round's counts.
    """
    if not sites:
        raise VeriwebError("DAgger needs at least one training site")
    env = discrete_for(VeriwebEnv(sites=list(sites)), policy.config)
    rng = np.random.default_rng(seed)
    generator = torch.Generator().manual_seed(seed)
    pairs = [(i, task.id, len(task.certificate)) for i, site in enumerate(sites) for task in site.tasks
             if task.certificate or task.kind == "infeasible"]
    order = rng.permutation(len(pairs))[: tasks_per_round or len(pairs)]
    rows: list[dict[str, np.ndarray]] = []
    actions: list[np.ndarray] = []
    episodes: list[int] = []
    stats = RoundStats()
    policy.eval()
    for number, pick in enumerate(order):
        if stop is not None and stop():
            break
        site_index, task_id, length = pairs[int(pick)]
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
                rows.append(features)
                actions.append(label)
                episodes.append(number)
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
    demos = Demonstrations(stack(rows) if rows else {}, np.stack(actions).astype(np.int64) if actions
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
