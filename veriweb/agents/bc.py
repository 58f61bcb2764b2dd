"""Behaviour cloning from certificates: replay each task's certificate, encode it as discrete actions, fit the heads.

Every certificate of a training corpus is mapped into :class:`DiscreteActions` (with the notes it
needs, :func:`veriweb.envs.certificates.certificate_actions`) and replayed; each step is paired
with the policy features of the state it was taken in. A certificate with a step that has no discrete equivalent, or that the action
masks forbid, or whose replay does not end in success, is skipped and counted by reason (never
silently dropped). Training minimises the masked cross-entropy of the three heads, each given
the teacher's earlier choices (type, then element, then argument).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from veriweb.agents.features import featurize, pack, stack
from veriweb.agents.memory import remember
from veriweb.agents.policy import Policy, PolicyConfig, config_for, to_tensors
from veriweb.envs.actions import DiscreteActions
from veriweb.envs.certificates import certificate_actions
from veriweb.envs.env import VeriwebEnv
from veriweb.errors import VeriwebError
from veriweb.scaffold import Site


@dataclass
class Demonstrations:
    """State-action pairs from certificates, and what was skipped.

    Attributes:
        features: stacked policy features, one row per step.
        actions: (N, 3) discrete actions.
        episode: (N,) index of the task each step came from.
        tasks: tasks seen.
        used: tasks whose certificate became demonstrations.
        skipped: skipped tasks by reason (``unmappable``, ``masked``, ``replay_failed``).
        examples: one example message per reason.
        config: a policy config whose layout matches the env the steps came from.
    """

    features: dict[str, np.ndarray]
    actions: np.ndarray
    episode: np.ndarray
    tasks: int = 0
    used: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)
    config: PolicyConfig = field(default_factory=PolicyConfig)

    def __len__(self) -> int:
        return len(self.actions)

    def summary(self) -> dict[str, Any]:
        """Counts as a JSON-ready dict."""
        return {"tasks": self.tasks, "used": self.used, "steps": len(self), "skipped": dict(self.skipped),
                "examples": dict(self.examples)}


def _allowed(obs: dict[str, Any], action: np.ndarray) -> bool:
    mask = obs["action_mask"]
    kind, row, arg = (int(x) for x in action)
    return bool(mask["type"][kind] and mask["element"][kind, row] and mask["argument"][kind, arg])


def collect(sites: Iterable[Site], *, env_kwargs: dict[str, Any] | None = None, workers: int = 1,
            chunk_sites: int | None = None) -> Demonstrations:
    """Replay every certificate of ``sites`` and record (features, discrete action) pairs.

    Args:
        sites: the training sites (e.g. :func:`veriweb.generate.corpus.load_sites`).
        env_kwargs: extra :class:`VeriwebEnv` arguments (observation config).
        workers: processes to replay in; sites are cut into contiguous chunks of
            :data:`CHUNK_SITES`, replayed by the workers and joined in order, so the result is the
            same as with one.
        chunk_sites: sites per chunk (default :data:`CHUNK_SITES`).
    """
    sites = list(sites)
    if not sites:
        raise VeriwebError("no training sites: give a corpus with at least one site")
    size = chunk_sites or CHUNK_SITES
    chunks = [(sites[a:a + size], env_kwargs) for a in range(0, len(sites), size)]
    if workers > 1 and len(chunks) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(min(workers, len(chunks)), mp_context=multiprocessing.get_context("fork")) as pool:
            parts = list(pool.map(_collect_chunk, chunks))
    else:
        parts = [_replay(chunk, env_kwargs) for chunk, _ in chunks]
    return concatenate(parts, consume=True)


def memory_needed(sites: Sequence[Site], *, env_kwargs: dict[str, Any] | None = None) -> int:
    """Bytes :func:`collect` will hold for ``sites``: every certificate step's features, at the size
    of the first site's steps (one site replayed; 0 when no certificate maps)."""
    sites = list(sites)
    steps = sum(len(task.certificate) for site in sites for task in site.tasks)
    for site in sites:
        probe = _replay([site], env_kwargs)
        if len(probe):
            return int(steps * sum(v.nbytes for v in probe.features.values()) / len(probe))
    return 0


def available_memory() -> int | None:
    """Bytes this machine can still give (``MemAvailable`` of ``/proc/meminfo``; None where there is none)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


CHUNK_SITES = 16
"""Sites replayed by one env: each chunk's env, with the pages its sites' sessions cached, is
dropped when the chunk is done, and a worker hands back one chunk's steps at a time (960 sites
in two chunks held 6 GB a worker before their steps were even stacked)."""


def _replay(sites: list[Site], env_kwargs: dict[str, Any] | None) -> Demonstrations:
    """:func:`collect` in this process; the result may hold no step."""
    env = DiscreteActions(VeriwebEnv(sites=sites, **(env_kwargs or {})))
    rows: list[dict[str, np.ndarray]] = []
    actions: list[np.ndarray] = []
    episodes: list[int] = []
    demos = Demonstrations({}, np.zeros((0, 3), np.int64), np.zeros(0, np.int64), config=config_for(env))
    for index, site in enumerate(sites):
        for task in site.tasks:
            demos.tasks += 1
            reason = detail = None
            steps, info = _one_pass(env, task, index)
            if steps is None:  # a step needs notes, is masked or ends the episode early: plan, then replay
                steps, info, reason, detail = _planned_pass(env, task, index)
            if reason is None and not info.get("success"):
                reason, detail = "replay_failed", f"{site.id}/{task.id}: {info.get('reason')}"
            if reason is not None:
                demos.skipped[reason] += 1
                demos.examples.setdefault(reason, f"{site.id}/{task.id}: {detail}")
                continue
            demos.used += 1
            for features, action in steps:
                rows.append(features)
                actions.append(action)
                episodes.append(demos.tasks - 1)
    if not rows:
        return demos
    demos.features = pack(stack(rows))
    demos.actions = np.stack(actions).astype(np.int64)
    demos.episode = np.array(episodes, np.int64)
    return demos


def _one_pass(env: DiscreteActions, task: Any, index: int
              ) -> tuple[list[tuple[dict[str, np.ndarray], np.ndarray]] | None, dict[str, Any]]:
    """Encode and record a certificate in one replay: the (features, action) steps and the last
    info, or ``None`` when some step needs notes, is masked out or ends the episode before the
    last step (then :func:`certificate_actions` plans it and the replay runs again, as it always
    did: the same steps either way, in one replay instead of two for most certificates)."""
    obs, info = env.reset(options={"site": index, "task": task.id})
    steps: list[tuple[dict[str, np.ndarray], np.ndarray]] = []
    last = len(task.certificate) - 1
    for number, text in enumerate(task.certificate):
        try:
            action = env.encode(text)
        except VeriwebError:
            return None, info
        if not _allowed(obs, action):
            return None, info
        steps.append((featurize(obs, env), action))
        obs, _, terminated, truncated, info = env.step(action)
        remember(env, action, obs)
        if (terminated or truncated) and number < last:
            return None, info
    return steps, info


def _planned_pass(env: DiscreteActions, task: Any, index: int
                  ) -> tuple[list[tuple[dict[str, np.ndarray], np.ndarray]], dict[str, Any], str | None, str | None]:
    """Plan the certificate's discrete actions (with the notes it needs), then replay and record
    them: the steps, the last info, and why the task cannot be used (``unmappable``, ``masked``)
    with a message, or ``None`` twice."""
    steps: list[tuple[dict[str, np.ndarray], np.ndarray]] = []
    try:
        plan = certificate_actions(env, task, index)
    except VeriwebError as exc:
        return steps, {}, "unmappable", str(exc)
    obs, info = env.reset(options={"site": index, "task": task.id})
    for action in plan:
        if not _allowed(obs, action):
            return steps, info, "masked", f"{env.decode(action)} -> {action.tolist()} is masked out"
        steps.append((featurize(obs, env), action))
        obs, _, terminated, truncated, info = env.step(action)
        remember(env, action, obs)
        if terminated or truncated:
            break
    return steps, info, None, None


def _collect_chunk(args: tuple[list[Site], dict[str, Any] | None]) -> Demonstrations:
    torch.set_num_threads(1)
    sites, env_kwargs = args
    return _replay(sites, env_kwargs)


def concatenate(parts: Sequence[Demonstrations], *, consume: bool = False) -> Demonstrations:
    """One demonstration set holding ``parts`` in order (episode indices shifted past the earlier parts').

    Args:
        parts: the demonstration sets.
        consume: empty the parts' feature arrays as they are joined, so at most one feature's
            arrays are held twice (joining 100,000 steps of about 30 kB packed otherwise needs twice
            their 3 GB).

    Raises:
        VeriwebError: no part holds a step.
    """
    full = [p for p in parts if len(p)]
    if not full:
        raise VeriwebError(f"no certificate of the {sum(p.tasks for p in parts)} tasks maps into discrete actions: "
                           + str({k: v for p in parts for k, v in p.examples.items()}))
    features = {}
    for key in list(full[0].features):
        features[key] = np.concatenate([p.features.pop(key) if consume else p.features[key] for p in full])
    episodes, shift = [], 0
    for part in parts:
        if len(part):
            episodes.append(part.episode + shift)
        shift += part.tasks
    out = Demonstrations(features, np.concatenate([p.actions for p in full]), np.concatenate(episodes),
                         tasks=sum(p.tasks for p in parts), used=sum(p.used for p in parts), config=full[0].config)
    for part in parts:
        out.skipped.update(part.skipped)
        for key, value in part.examples.items():
            out.examples.setdefault(key, value)
    return out


def sample(demos: Demonstrations, count: int, seed: int = 0) -> Demonstrations:
    """A seeded draw of ``count`` steps of ``demos`` without replacement, in their order (all of them if fewer).

    Counts (tasks, used, skipped) stay those of the whole set: the draw is of steps, not tasks.
    """
    if count >= len(demos):
        return demos
    index = np.sort(np.random.default_rng(seed).choice(len(demos), count, replace=False))
    out = Demonstrations(_take(demos.features, index), demos.actions[index], demos.episode[index], tasks=demos.tasks,
                         used=demos.used, config=demos.config)
    out.skipped = Counter(demos.skipped)
    out.examples = dict(demos.examples)
    return out


def _take(features: dict[str, np.ndarray], index: np.ndarray) -> dict[str, np.ndarray]:
    return {key: value[index] for key, value in features.items()}


def bc_loss(policy: Policy, features: dict[str, np.ndarray], actions: np.ndarray) -> tuple[torch.Tensor, dict[str, float]]:
    """Masked cross-entropy of the three heads, and per-head accuracies (argmax against the teacher).

    Returns:
        The loss, and ``acc_type``, ``acc_element``, ``acc_argument`` (over steps where the head
        matters) and ``acc_action`` (every relevant head right).
    """
    target = torch.from_numpy(actions)
    out = policy(to_tensors(features), target)
    loss = -out["log_prob"].mean()
    with torch.no_grad():
        ok_type = out["type_logits"].argmax(-1) == target[:, 0]
        ok_el = (out["element_logits"].argmax(-1) == target[:, 1]) | ~out["uses_element"]
        ok_arg = (out["argument_logits"].argmax(-1) == target[:, 2]) | ~out["uses_argument"]
        n_el = max(int(out["uses_element"].sum()), 1)
        n_arg = max(int(out["uses_argument"].sum()), 1)
        stats = {"loss": float(loss),
                 "acc_type": float(ok_type.float().mean()),
                 "acc_element": float(((out["element_logits"].argmax(-1) == target[:, 1]) & out["uses_element"]).sum()) / n_el,
                 "acc_argument": float(((out["argument_logits"].argmax(-1) == target[:, 2]) & out["uses_argument"]).sum()) / n_arg,
                 "acc_action": float((ok_type & ok_el & ok_arg).float().mean())}
    return loss, stats


def length_batches(features: dict[str, np.ndarray], batch_size: int, generator: np.random.Generator,
                   pool: int = 16) -> list[np.ndarray]:
    """Shuffled minibatches of steps with similar numbers of element rows.

    The policy pads a batch to its longest page, so steps are shuffled, cut into pools of
    ``pool`` batches, sorted by page length inside each pool, cut into batches, and the batches
    shuffled: every step is used once per epoch, and little time goes into padding.
    """
    n = len(features["el_mask"])
    rows = features["el_mask"].sum(1)
    order = generator.permutation(n)
    batches: list[np.ndarray] = []
    span = batch_size * pool
    for start in range(0, n, span):
        chunk = order[start:start + span]
        chunk = chunk[np.argsort(rows[chunk], kind="stable")]
        batches += [chunk[i:i + batch_size] for i in range(0, len(chunk), batch_size)]
    return [batches[i] for i in generator.permutation(len(batches))]


def evaluate_bc(policy: Policy, demos: Demonstrations, batch_size: int = 256, limit: int | None = None,
                seed: int = 0) -> dict[str, float]:
    """Teacher-forced accuracies and loss over a demonstration set (no gradients).

    Args:
        policy: the policy to score.
        demos: the demonstrations.
        batch_size: steps per forward pass.
        limit: score a seeded sample of at most this many steps instead of all of them (a summary
            of a large training set: scoring 59,000 steps costs minutes, 4,096 seconds).
        seed: the sample's stream.
    """
    policy.eval()
    totals: Counter[str] = Counter()
    steps = np.arange(len(demos))
    if limit is not None and len(steps) > limit:
        steps = np.sort(np.random.default_rng(seed).choice(steps, limit, replace=False))
    n = len(steps)
    by_length = steps[np.argsort(demos.features["el_mask"][steps].sum(1), kind="stable")]  # little padding
    with torch.no_grad():
        for start in range(0, n, batch_size):
            index = np.sort(by_length[start:start + batch_size])
            _, stats = bc_loss(policy, _take(demos.features, index), demos.actions[index])
            for key, value in stats.items():
                totals[key] += value * len(index)
    return {key: value / n for key, value in totals.items()}


def train_bc(policy: Policy, demos: Demonstrations, *, epochs: int = 10, batch_size: int = 64, lr: float = 1e-3,
             weight_decay: float = 0.01, seed: int = 0, val: Demonstrations | None = None,
             log: Callable[[dict[str, float]], None] | None = None,
             stop: Callable[[], bool] | None = None, keep_best: bool = True,
             time_left: Callable[[], float] | None = None) -> list[dict[str, float]]:
    """Fit ``policy`` to ``demos`` with AdamW; one metrics row per epoch.

    Args:
        policy: the policy to train (in place).
        demos: the training demonstrations.
        epochs: passes over the data.
        batch_size: steps per gradient update.
        lr: peak learning rate (cosine decay to 10% of it).
        weight_decay: AdamW weight decay.
        seed: shuffling and initialisation stream.
        val: held-out demonstrations, scored after every epoch.
        log: called with each epoch's row.
        stop: called between batches; training ends early when it returns True (a time budget).
        time_left: seconds left of that budget. The learning rate's cosine then ends where the
            budget will: every 100 updates the updates that still fit (at the rate so far) cut
            its horizon, so a run the budget stops part way has still annealed (a run of 3
            planned epochs stopped in the second otherwise ends at half its peak rate).
        keep_best: with ``val``, end with the weights of the epoch whose held-out action accuracy
            was best (ties: lower held-out loss); on 24 sites the held-out accuracy peaks long
            before the training accuracy does, and later epochs only memorise.
    """
    generator = np.random.default_rng(seed)
    torch.manual_seed(seed)
    optimizer = torch.optim.AdamW(policy.parameters(), lr=lr, weight_decay=weight_decay)
    n = len(demos)
    total_updates = max(epochs * ((n + batch_size - 1) // batch_size), 1)
    horizon = [total_updates]
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda u: 0.1 + 0.9 * 0.5 * (1 + np.cos(np.pi * min(u / horizon[0], 1.0))))
    began, updates = time.perf_counter(), 0
    history: list[dict[str, float]] = []
    best: tuple[float, float] | None = None
    best_state: dict[str, torch.Tensor] | None = None
    for epoch in range(epochs):
        policy.train()
        totals: Counter[str] = Counter()
        stopped, seen = False, 0
        for index in length_batches(demos.features, batch_size, generator):
            seen += len(index)
            loss, stats = bc_loss(policy, _take(demos.features, index), demos.actions[index])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            updates += 1
            if time_left is not None and updates % 100 == 0:
                rate = updates / max(time.perf_counter() - began, 1e-9)
                horizon[0] = max(updates + 1, min(total_updates, int(updates + rate * max(time_left(), 0.0))))
            schedule.step()
            for key, value in stats.items():
                totals[key] += value * len(index)
            if stop is not None and stop():
                stopped = True
                break
        row = {"epoch": float(epoch + 1), **{f"train_{k}": v / max(seen, 1) for k, v in totals.items()},
               "lr": float(schedule.get_last_lr()[0])}
        if val is not None and len(val):
            row.update({f"val_{k}": v for k, v in evaluate_bc(policy, val).items()})
            score = (row["val_acc_action"], -row["val_loss"])
            if keep_best and (best is None or score > best):
                best = score
                best_state = {k: v.detach().clone() for k, v in policy.state_dict().items()}
        history.append(row)
        if log is not None:
            log(row)
        if stopped:
            break
    if best_state is not None:
        policy.load_state_dict(best_state)
    policy.eval()
    return history


def split_sites(sites: Sequence[Site], fraction: float, seed: int = 0) -> tuple[list[Site], list[Site]]:
    """Split sites into (train, held-out) by a seeded shuffle; ``fraction`` of them held out (at least one)."""
    order = np.random.default_rng(seed).permutation(len(sites))
    k = max(1, int(round(len(sites) * fraction))) if len(sites) > 1 and fraction > 0 else 0
    held = {int(i) for i in order[:k]}
    return [s for i, s in enumerate(sites) if i not in held], [s for i, s in enumerate(sites) if i in held]
