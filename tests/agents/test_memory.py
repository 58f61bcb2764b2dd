"""The policy's own memory (last actions, address, rows acted on) and parallel certificate replay."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
torch.set_num_threads(1)

from veriweb.agents.bc import collect  # noqa: E402
from veriweb.agents.features import featurize  # noqa: E402
from veriweb.agents.memory import MEMORY, memory_of, remember  # noqa: E402
from veriweb.agents.policy import Policy, PolicyConfig, config_for, load_policy, save_policy  # noqa: E402
from veriweb.envs.actions import DiscreteActions  # noqa: E402
from veriweb.envs.env import VeriwebEnv  # noqa: E402
from veriweb.generate import generate_site  # noqa: E402


@pytest.fixture(scope="module")
def sites():  # type: ignore[no-untyped-def]
    return [generate_site("shop", 101), generate_site("forum", 202)]


@pytest.fixture(scope="module")
def demos(sites):  # type: ignore[no-untyped-def]
    return collect(sites)


def test_memory_holds_the_last_actions_of_this_episode_only(demos) -> None:  # type: ignore[no-untyped-def]
    kinds, actions, episode = demos.features["mem_kind"], demos.actions, demos.episode
    starts = np.r_[True, episode[1:] != episode[:-1]]
    assert (kinds[starts] == 0).all()  # a new episode remembers nothing
    later = np.flatnonzero(~starts)
    assert len(later) > 0
    assert (kinds[later, 0] == actions[later - 1, 0] + 1).all()  # the most recent first
    deep = later[np.isin(later - 1, later)]
    assert (kinds[deep, 1] == actions[deep - 2, 0] + 1).all()
    assert ((kinds > 0).sum(1) <= MEMORY).all()
    assert (demos.features["url"] > 0).any(1).all()


def test_a_row_the_last_action_targeted_is_marked_while_the_page_stays(sites) -> None:  # type: ignore[no-untyped-def]
    env = DiscreteActions(VeriwebEnv(sites=sites))
    for index, site in enumerate(sites):
        for task in site.tasks:
            obs, _ = env.reset(options={"site": index, "task": task.id})
            fields = np.flatnonzero(obs["action_mask"]["element"][2])  # rows "fill" may target
            args = np.flatnonzero(obs["action_mask"]["argument"][2])
            if not len(fields) or not len(args):
                continue
            featurize(obs, env)
            action = np.array([2, fields[0], args[0]])
            after, *_ = env.step(action)
            remember(env, action, after)
            features = featurize(after, env)
            names = obs["elements"]["tokens"][fields[0]]
            same = (after["elements"]["tokens"] == names).all(1) & (after["elements"]["mask"] > 0)
            assert features["mem_kind"][0] == 3 and features["mem_kind"][1] == 0
            assert (features["el_recent"][:, 1] == same).all() and same.any()
            assert (features["mem_row"][0, :len(names)] == names[:12]).all()
            obs, _ = env.reset(options={"site": index, "task": task.id})
            assert (featurize(obs, env)["mem_kind"] == 0).all() and not memory_of(env).kinds
            return
    pytest.fail("no page with a field to fill")


def test_parallel_replay_gives_the_same_demonstrations(sites, demos) -> None:  # type: ignore[no-untyped-def]
    assert len(sites) == 2
    both = collect(sites, workers=2, chunk_sites=1)  # a chunk a site, each in a fresh env
    assert (both.tasks, both.used, dict(both.skipped)) == (demos.tasks, demos.used, dict(demos.skipped))
    assert np.array_equal(both.actions, demos.actions) and np.array_equal(both.episode, demos.episode)
    assert all(np.array_equal(both.features[k], demos.features[k]) for k in demos.features)


def test_memory_changes_the_policy_and_old_checkpoints_load_without_it(tmp_path, demos) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import asdict, replace

    torch.manual_seed(0)
    small = dict(d_model=32, layers=1, heads=2, ff=64)
    policy = Policy(replace(demos.config, **small))
    assert policy.config.memory
    batch = {k: v[:16] for k, v in demos.features.items()}
    from veriweb.agents.policy import to_tensors

    with torch.no_grad():
        with_memory = policy(to_tensors(batch), torch.from_numpy(demos.actions[:16]))["log_prob"]
        blank = {**batch, "mem_kind": np.zeros_like(batch["mem_kind"])}
        without = policy(to_tensors(blank), torch.from_numpy(demos.actions[:16]))["log_prob"]
    assert not torch.allclose(with_memory, without)
    old = Policy(replace(demos.config, memory=False, **small))
    path = save_policy(old, tmp_path / "old.pt")
    data = torch.load(path, weights_only=True)
    config = asdict(old.config)
    del config["memory"]  # a checkpoint written before the memory existed
    torch.save({**data, "config": config}, path)
    loaded, _ = load_policy(path)
    assert not loaded.config.memory
    assert isinstance(loaded.config, PolicyConfig) and config_for  # noqa: B015
