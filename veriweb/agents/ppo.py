"""PPO for the compact policy over veriweb vector envs (one readable file, after cleanrl's ``ppo.py``).

Reads top to bottom: the ``Args``, the env factory, then the algorithm (rollout, GAE, clipped
update) with banner comments between plumbing and algorithm. Metrics are named ``charts/...``
and ``losses/...``, written to a CSV (and TensorBoard when it is installed).

Vector envs: Gymnasium's ``SyncVectorEnv`` over ``PolicyObservation(DiscreteActions(VeriwebEnv))``
with autoreset mode ``SAME_STEP``: when a sub-env's episode ends, the step returns that episode's
reward and the *next* episode's first observation (the final one is in ``info["final_obs"]``),
so every stored transition is a real one and none has to be masked out. An episode cut by the
horizon is treated as ended (no bootstrap from its final state); the horizon is part of the task.

Action masks: the policy's heads are masked by the env's masks, in the rollout and in the update
(the stored features carry the masks), so log-probabilities match between the two.
"""

from __future__ import annotations

import csv
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from veriweb.agents.features import PolicyObservation
from veriweb.agents.policy import Policy, PolicyConfig, config_for, discrete_for, save_policy, to_tensors
from veriweb.envs.actions import DiscreteActions
from veriweb.envs.env import VeriwebEnv
from veriweb.errors import VeriwebError
from veriweb.scaffold import Site


@dataclass
class Args:
    """PPO settings (defaults: a small CPU run)."""

    seed: int = 1
    """seed of the env draws, the initialisation and the action sampling"""
    total_timesteps: int = 4096
    """env steps to collect in total"""
    num_envs: int = 8
    """parallel sub-envs (stepped in this process)"""
    num_steps: int = 32
    """steps per sub-env per rollout (the batch is ``num_envs * num_steps``)"""
    learning_rate: float = 1e-4
    """Adam learning rate"""
    anneal_lr: bool = True
    """decay the learning rate linearly to 0 over the run"""
    gamma: float = 0.97
    """discount factor"""
    gae_lambda: float = 0.95
    """lambda of generalised advantage estimation"""
    num_minibatches: int = 4
    """minibatches per update epoch"""
    update_epochs: int = 2
    """passes over each batch"""
    norm_adv: bool = True
    """normalise advantages per minibatch"""
    clip_coef: float = 0.2
    """PPO's surrogate clipping coefficient"""
    clip_vloss: bool = True
    """clip the value loss too"""
    ent_coef: float = 0.003
    """entropy bonus (small: the cloned policy already explores through its masks)"""
    vf_coef: float = 0.5
    """value loss coefficient"""
    max_grad_norm: float = 0.5
    """global gradient clipping norm"""
    target_kl: float | None = 0.05
    """stop an update early when the approximate KL exceeds this"""
    reward: str = "dense"
    """``sparse`` or ``dense`` (potential-based shaping from verified subgoals)"""
    violation_penalty: float = 0.1
    """subtracted when a constraint or the footprint is broken"""
    max_steps: int | None = None
    """override every task's step budget (horizon)"""
    value_warmup_updates: int = 2
    """first updates that train only the value head (a cloned policy starts with a blank critic)"""
    checkpoint_every: int = 0
    """write a checkpoint every this many updates (0: only at the end)"""
    threads: int = 1
    """torch threads (this machine has two cores shared by many jobs)"""
    out: str = "runs/ppo"
    """where checkpoints, ``metrics.csv`` and ``curve.png`` go"""
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    """policy sizes when starting from scratch (the argument layout always comes from the env)"""


def make_env(sites: Sequence[Site], args: Args, config: PolicyConfig) -> Callable[[], gym.Env[Any, Any]]:
    """A thunk for one sub-env: the sites, the reward, the policy's discrete-action layout, policy features."""
    def thunk() -> gym.Env[Any, Any]:
        base = VeriwebEnv(sites=list(sites), reward=args.reward, gamma=args.gamma,
                          violation_penalty=args.violation_penalty, max_steps=args.max_steps)
        return PolicyObservation(discrete_for(base, config))
    return thunk


def train_ppo(sites: Sequence[Site], args: Args, policy: Policy | None = None, *,
              log: Callable[[dict[str, float]], None] | None = None,
              stop: Callable[[], bool] | None = None) -> tuple[Policy, list[dict[str, float]]]:
    """Train ``policy`` (or a new one) with PPO on ``sites``; returns it and the metric rows.

    Args:
        sites: training sites.
        args: settings.
        policy: a starting policy (e.g. behaviour-cloned), trained in place.
        log: called with each update's metrics.
        stop: called after each update; training ends early when it returns True.
    """
    if not sites:
        raise VeriwebError("PPO needs at least one training site")
    # ------------------------------------------------------------------ plumbing
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if policy is None:
        probe = DiscreteActions(VeriwebEnv(sites=list(sites[:1])))
        policy = Policy(config_for(probe, **{k: v for k, v in asdict(args.policy).items()
                                             if k in ("d_model", "layers", "heads", "ff", "dropout")}))
    envs = SyncVectorEnv([make_env(sites, args, policy.config) for _ in range(args.num_envs)],
                         autoreset_mode=AutoresetMode.SAME_STEP)
    optimizer = torch.optim.Adam(policy.parameters(), lr=args.learning_rate, eps=1e-5)
    writer = _tensorboard(out)
    batch_size = args.num_envs * args.num_steps
    minibatch_size = max(batch_size // args.num_minibatches, 1)
    num_updates = max(args.total_timesteps // batch_size, 1)
    rows: list[dict[str, float]] = []
    csv_path = out / "metrics.csv"

    obs, _ = envs.reset(seed=args.seed)
    ep_return = np.zeros(args.num_envs)
    ep_length = np.zeros(args.num_envs, dtype=np.int64)
    global_step, start = 0, time.perf_counter()

    for update in range(1, num_updates + 1):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = args.learning_rate * (1.0 - (update - 1.0) / num_updates)

        # ------------------------------------------------------------------ rollout
        policy.eval()
        storage: list[dict[str, np.ndarray]] = []
        actions = np.zeros((args.num_steps, args.num_envs, 3), np.int64)
        logprobs = np.zeros((args.num_steps, args.num_envs), np.float32)
        values = np.zeros((args.num_steps + 1, args.num_envs), np.float32)
        rewards = np.zeros((args.num_steps, args.num_envs), np.float32)
        dones = np.zeros((args.num_steps, args.num_envs), np.float32)
        finished: list[tuple[float, int, bool]] = []
        for step in range(args.num_steps):
            storage.append({k: np.array(v) for k, v in obs.items()})
            with torch.no_grad():
                result = policy(to_tensors(obs))
            actions[step] = result["action"].numpy()
            logprobs[step] = result["log_prob"].numpy()
            values[step] = result["value"].numpy()
            obs, reward, terminated, truncated, infos = envs.step(actions[step])
            global_step += args.num_envs
            rewards[step] = reward
            done = terminated | truncated
            dones[step] = done
            ep_return += reward
            ep_length += 1
            for i in np.flatnonzero(done):
                final = infos.get("final_info", {})
                success = bool(final.get("success", np.zeros(args.num_envs, bool))[i])
                finished.append((float(ep_return[i]), int(ep_length[i]), success))
                ep_return[i], ep_length[i] = 0.0, 0
        with torch.no_grad():
            values[args.num_steps] = policy(to_tensors(obs))["value"].numpy()

        # ------------------------------------------------------------------ GAE
        advantages = np.zeros_like(rewards)
        last = np.zeros(args.num_envs, np.float32)
        for t in reversed(range(args.num_steps)):
            nonterminal = 1.0 - dones[t]
            delta = rewards[t] + args.gamma * values[t + 1] * nonterminal - values[t]
            last = delta + args.gamma * args.gae_lambda * nonterminal * last
            advantages[t] = last
        returns = advantages + values[:-1]

        # ------------------------------------------------------------------ flatten the batch
        b_obs = {k: np.concatenate([s[k] for s in storage]) for k in storage[0]}
        b_actions = torch.from_numpy(actions.reshape(-1, 3))
        b_logprobs = torch.from_numpy(logprobs.reshape(-1))
        b_advantages = torch.from_numpy(advantages.reshape(-1))
        b_returns = torch.from_numpy(returns.reshape(-1))
        b_values = torch.from_numpy(values[:-1].reshape(-1))

        # ------------------------------------------------------------------ clipped policy and value update
        policy.train()
        value_only = update <= args.value_warmup_updates
        generator = np.random.default_rng(args.seed * 1_000_003 + update)
        clipfracs: list[float] = []
        pg_loss = v_loss = entropy_loss = approx_kl = old_approx_kl = torch.tensor(0.0)
        for _ in range(args.update_epochs):
            order = generator.permutation(batch_size)
            for begin in range(0, batch_size, minibatch_size):
                index = order[begin:begin + minibatch_size]
                mb = to_tensors({k: v[index] for k, v in b_obs.items()})
                new = policy(mb, b_actions[index])
                logratio = new["log_prob"] - b_logprobs[index]
                ratio = logratio.exp()
                with torch.no_grad():
                    old_approx_kl = (-logratio).mean()
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs.append(float(((ratio - 1.0).abs() > args.clip_coef).float().mean()))
                mb_adv = b_advantages[index]
                if args.norm_adv and len(index) > 1:
                    mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(-mb_adv * ratio,
                                    -mb_adv * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)).mean()
                new_value = new["value"]
                if args.clip_vloss:
                    unclipped = (new_value - b_returns[index]) ** 2
                    clipped = b_values[index] + torch.clamp(new_value - b_values[index], -args.clip_coef, args.clip_coef)
                    v_loss = 0.5 * torch.max(unclipped, (clipped - b_returns[index]) ** 2).mean()
                else:
                    v_loss = 0.5 * ((new_value - b_returns[index]) ** 2).mean()
                entropy_loss = new["entropy"].mean()
                loss = v_loss * args.vf_coef if value_only else pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef
                optimizer.zero_grad()
                loss.backward()
                if value_only:  # a blank critic must not push the cloned actor around
                    for name, parameter in policy.named_parameters():
                        if not name.startswith("value_head") and parameter.grad is not None:
                            parameter.grad = None
                torch.nn.utils.clip_grad_norm_(policy.parameters(), args.max_grad_norm)
                optimizer.step()
            if not value_only and args.target_kl is not None and float(approx_kl) > args.target_kl:
                break

        # ------------------------------------------------------------------ metrics
        var_y = float(np.var(returns))
        row = {
            "global_step": float(global_step), "update": float(update),
            "charts/learning_rate": optimizer.param_groups[0]["lr"],
            "charts/episodes": float(len(finished)),
            "charts/episodic_return": float(np.mean([f[0] for f in finished])) if finished else float("nan"),
            "charts/episodic_length": float(np.mean([f[1] for f in finished])) if finished else float("nan"),
            "charts/success_rate": float(np.mean([f[2] for f in finished])) if finished else float("nan"),
            "charts/SPS": global_step / max(time.perf_counter() - start, 1e-9),
            "losses/value_loss": float(v_loss.detach()), "losses/policy_loss": float(pg_loss.detach()),
            "losses/entropy": float(entropy_loss.detach()), "losses/old_approx_kl": float(old_approx_kl),
            "losses/approx_kl": float(approx_kl), "losses/clipfrac": float(np.mean(clipfracs)) if clipfracs else 0.0,
            "losses/explained_variance": float("nan") if var_y == 0 else 1 - float(np.var(returns - values[:-1])) / var_y,
        }
        rows.append(row)
        _append_csv(csv_path, row)
        if writer is not None:
            for key, value in row.items():
                if "/" in key:
                    writer.add_scalar(key, value, global_step)
        if log is not None:
            log(row)
        if args.checkpoint_every and update % args.checkpoint_every == 0:
            save_policy(policy, out / f"ppo-{update:05d}.pt", {"args": _jsonable(args), "update": update})
        if stop is not None and stop():
            break

    envs.close()
    if writer is not None:
        writer.close()
    policy.eval()
    save_policy(policy, out / "ppo.pt", {"args": _jsonable(args), "updates": len(rows)})
    return policy, rows


# ---------------------------------------------------------------------- helpers


def _append_csv(path: Path, row: dict[str, float]) -> None:
    new = not path.exists()
    with path.open("a", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(row))
        if new:
            writer.writeheader()
        writer.writerow(row)


def _tensorboard(out: Path) -> Any:
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:  # TensorBoard is optional: the CSV is always written
        return None
    return SummaryWriter(str(out / "tb"))


def _jsonable(args: Args) -> dict[str, Any]:
    data = asdict(args)
    data["policy"] = asdict(args.policy)
    return data
