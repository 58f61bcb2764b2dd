"""Compact policies: features, masks, behaviour cloning, floors, evaluation, the smoke pipeline and the CLI."""

from __future__ import annotations

import csv
import re
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
torch.set_num_threads(1)  # more threads spin against other jobs on a shared two-core machine

from veriweb.agents.ablation import config_hash, paired_difference  # noqa: E402
from veriweb.agents.bc import collect, evaluate_bc, train_bc  # noqa: E402
from veriweb.agents.evaluate import EpisodeResult, PolicyAgent, bootstrap_ci, evaluate, run_episodes  # noqa: E402
from veriweb.agents.features import PolicyObservation, featurize, pack, stack, unpack  # noqa: E402
from veriweb.agents.floors import InfeasibleAgent, NearestCertificateAgent, NoopAgent, substitute  # noqa: E402
from veriweb.agents.policy import (  # noqa: E402
    Policy, config_for, discrete_for, load_policy, parameter_count, save_policy, to_tensors)
from veriweb.cli import main  # noqa: E402
from veriweb.envs.actions import DiscreteActions  # noqa: E402
from veriweb.envs.env import VeriwebEnv  # noqa: E402
from veriweb.errors import VeriwebError  # noqa: E402
from veriweb.generate import generate_site  # noqa: E402
from veriweb.scaffold import Site, save  # noqa: E402

TRAIN = (("shop", 101), ("mail", 102))
TEST = (("shop", 201), ("forum", 202))


def _corpus(root: Path, specs: tuple[tuple[str, int], ...]) -> tuple[Path, list[Site]]:
    """A small corpus directory (sites generated from fixed seeds; manifest listing their files)."""
    (root / "sites").mkdir(parents=True)
    sites, entries = [], []
    for number, (domain, seed) in enumerate(specs):
        site = generate_site(domain, seed)
        name = f"sites/{number:05d}-{domain}.json"
        save(site, root / name)
        sites.append(site)
        entries.append({"file": name, "id": site.id, "domain": domain, "seed": seed})
    (root / "manifest.json").write_text(json.dumps({"sites": entries}), encoding="utf-8")
    return root, sites


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, list[Site]]]:
    root = tmp_path_factory.mktemp("agents")
    return {"train": _corpus(root / "train", TRAIN), "test": _corpus(root / "test", TEST)}


@pytest.fixture(scope="module")
def demos(corpora):  # type: ignore[no-untyped-def]
    return collect(corpora["train"][1])


def test_policy_is_compact_and_respects_masks(demos) -> None:  # type: ignore[no-untyped-def]
    policy = Policy(demos.config)
    assert parameter_count(policy) < 10_000_000
    index = np.arange(min(len(demos), 48))
    batch = unpack({k: v[index] for k, v in demos.features.items()})
    torch.manual_seed(0)
    for _ in range(3):
        actions = policy.act(batch, greedy=False)
        for row, (kind, element, arg) in enumerate(actions):
            assert batch["mask_type"][row, kind]
            if kind in (1, 2, 3, 4, 5, 6, 8):  # types that use an element
                assert batch["mask_element"][row, kind, element]
            if kind in (2, 3, 8):  # types that use an argument
                assert batch["mask_argument"][row, kind, arg]


def test_a_step_scores_the_same_alone_and_in_a_batch(demos) -> None:  # type: ignore[no-untyped-def]
    """The encoder packs a batch's tokens and pads attention per block of samples: nothing may leak between samples."""
    torch.manual_seed(0)
    policy = Policy(demos.config).eval()
    index = np.arange(min(len(demos), 24))
    assert len(set(demos.features["el_mask"][index].sum(1).tolist())) > 3  # pages of different lengths
    actions = torch.from_numpy(demos.actions)
    with torch.no_grad():
        together = policy(to_tensors({k: v[index] for k, v in demos.features.items()}), actions[index])
        alone = [policy(to_tensors({k: v[[i]] for k, v in demos.features.items()}), actions[[i]]) for i in index]
    for key in ("log_prob", "entropy", "value"):
        single = torch.cat([out[key] for out in alone])
        assert torch.allclose(together[key], single, atol=1e-4), key
    assert together["log_prob"].std() > 0.1  # the samples' scores differ, so a leak would show


def test_demonstrations_account_for_every_task(demos, corpora) -> None:  # type: ignore[no-untyped-def]
    sites = corpora["train"][1]
    assert demos.tasks == sum(len(s.tasks) for s in sites)
    assert demos.used + sum(demos.skipped.values()) == demos.tasks
    assert demos.used > demos.tasks // 2
    rows = np.arange(len(demos))
    kinds = demos.actions[:, 0]
    features = unpack(demos.features)
    assert features["mask_type"][rows, kinds].all()
    assert features["mask_element"][rows, kinds, demos.actions[:, 1]].all()


def test_demonstrations_are_held_packed_and_unpack_to_the_features_exactly(corpora) -> None:  # type: ignore[no-untyped-def]
    """Held demonstrations are narrowed and bit-packed; unpacking gives back featurize's arrays, bit for bit."""
    site = corpora["train"][1][0]
    env = DiscreteActions(VeriwebEnv(sites=[site]))
    rows = []
    for task in site.tasks[:6]:
        obs, _ = env.reset(options={"site": 0, "task": task.id})
        rows.append(featurize(obs, env))
        for text in task.certificate[:3]:
            action = env.encode(text)
            obs, _, terminated, truncated, _ = env.step(action)
            rows.append(featurize(obs, env))
            if terminated or truncated:
                break
    plain = stack(rows)
    packed = pack(plain)
    assert sum(v.nbytes for v in packed.values()) < 0.7 * sum(v.nbytes for v in plain.values())
    assert packed["mask_element"].dtype == np.uint8 and packed["el_tokens"].dtype == np.int16
    back = unpack(packed)
    assert back.keys() == plain.keys()
    for key, value in plain.items():
        assert back[key].dtype == value.dtype and np.array_equal(back[key], value), key
    assert plain["mask_argument"].any() and not plain["mask_argument"].all()  # the bits carry information
    assert unpack(plain)["mask_element"] is plain["mask_element"]  # unpacked batches pass through
    too_big = dict(plain, el_tokens=plain["el_tokens"] + 40_000)
    with pytest.raises(ValueError, match="el_tokens"):
        pack(too_big)


def test_behaviour_cloning_fits_the_certificates(demos) -> None:  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    policy = Policy(config_for_small(demos))
    before = evaluate_bc(policy, demos)
    history = train_bc(policy, demos, epochs=12, batch_size=32, lr=3e-3, seed=0)
    after = evaluate_bc(policy, demos)
    assert len(history) == 12
    assert after["loss"] < before["loss"] - 1.0
    assert after["acc_action"] > before["acc_action"] + 0.2



def test_evaluation_on_a_sample_scores_that_many_steps(demos) -> None:  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    policy = Policy(config_for_small(demos))
    whole = evaluate_bc(policy, demos)
    assert evaluate_bc(policy, demos, limit=len(demos) + 5) == whole
    sample = evaluate_bc(policy, demos, limit=7, seed=3)
    assert sample == evaluate_bc(policy, demos, limit=7, seed=3)
    assert sample != whole  # seven steps of a few dozen do not average to the whole
    assert 0.0 <= sample["acc_action"] <= 1.0


def config_for_small(demos):  # type: ignore[no-untyped-def]
    from dataclasses import replace

    return replace(demos.config, d_model=32, layers=1, heads=2, ff=64)


def test_checkpoints_round_trip_and_bad_files_are_named(tmp_path: Path, demos) -> None:  # type: ignore[no-untyped-def]
    policy = Policy(config_for_small(demos))
    path = save_policy(policy, tmp_path / "p.pt", {"corpus": "x"})
    loaded, meta = load_policy(path)
    assert meta == {"corpus": "x"}
    batch = {k: v[:4] for k, v in demos.features.items()}
    assert np.array_equal(loaded.act(batch), policy.eval().act(batch))
    with pytest.raises(VeriwebError, match="no policy checkpoint"):
        load_policy(tmp_path / "missing.pt")
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(VeriwebError, match="junk.pt"):
        load_policy(tmp_path / "junk.pt")


def test_policy_observation_wrapper_matches_the_space(corpora) -> None:  # type: ignore[no-untyped-def]
    env = PolicyObservation(DiscreteActions(VeriwebEnv(sites=corpora["train"][1])))
    obs, _ = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    policy = Policy(config_for(env.discrete, d_model=32, layers=1, heads=2, ff=64))
    action = policy.act(stack([obs]))[0]
    obs, *_ = env.step(action)
    assert env.observation_space.contains(obs)


def test_a_policy_meets_only_the_action_layout_it_was_trained_on(corpora, demos) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    base = VeriwebEnv(sites=corpora["train"][1])
    assert discrete_for(base, demos.config).n_args == demos.config.n_args
    with pytest.raises(VeriwebError, match="retrain the policy"):
        discrete_for(base, replace(demos.config, task_start=demos.config.task_start + 1))


def test_ppo_from_scratch_writes_metrics_and_a_checkpoint(tmp_path: Path, corpora) -> None:  # type: ignore[no-untyped-def]
    from veriweb.agents.policy import PolicyConfig
    from veriweb.agents.ppo import Args, train_ppo

    args = Args(total_timesteps=16, num_envs=2, num_steps=8, num_minibatches=2, update_epochs=1, out=str(tmp_path),
                policy=PolicyConfig(d_model=32, layers=1, heads=2, ff=64), value_warmup_updates=0)
    policy, rows = train_ppo(corpora["train"][1], args)
    assert len(rows) == 1 and rows[0]["global_step"] == 16
    assert (tmp_path / "ppo.pt").is_file() and (tmp_path / "metrics.csv").is_file()
    assert all(np.isfinite(rows[0][k]) for k in ("losses/policy_loss", "losses/value_loss", "losses/entropy"))


def test_floors_mean_what_they_say(corpora) -> None:  # type: ignore[no-untyped-def]
    sites = corpora["test"][1]
    results = run_episodes(InfeasibleAgent(), sites)
    assert len(results) == sum(len(s.tasks) for s in sites)
    assert all(r.success == (r.kind == "infeasible") for r in results)
    assert all(r.length == 1 for r in results)
    noop = run_episodes(NoopAgent(), sites[:1], max_steps=5)
    assert not any(r.success for r in noop) and all(r.length == 5 for r in noop)


def test_nearest_certificate_replays_its_own_training_tasks(corpora) -> None:  # type: ignore[no-untyped-def]
    sites = corpora["train"][1]
    agent = NearestCertificateAgent(sites)
    results = run_episodes(agent, sites)
    assert np.mean([r.success for r in results]) >= 0.9
    assert substitute("fill('3', 'red shoes')", {"q": "red shoes"}, {"q": "blue hat"}) == "fill('3', 'blue hat')"


def test_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    values = np.array([1, 0, 1, 1, 0, 0, 1, 1], float)
    groups = np.array(list("aabbccdd"))
    first = bootstrap_ci(values, groups, seed=3)
    assert first == bootstrap_ci(values, groups, seed=3)
    mean, low, high = first
    assert mean == pytest.approx(0.625) and low <= mean <= high and low < high
    rows = [EpisodeResult("a", s, str(i), "shop", "f", "k", "easy", bool(v), float(v), 1, False)
            for i, (s, v) in enumerate(zip(groups, values))]
    assert paired_difference(rows, rows) == (0.0, 0.0, 0.0)
    assert config_hash({"rate": 1}) == config_hash({"rate": 1}) != config_hash({"rate": 2})


def test_smoke_preset_trains_loads_and_evaluates_from_the_cli(tmp_path: Path, corpora,
                                                             capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    train_dir, _ = corpora["train"]
    test_dir, test_sites = corpora["test"]
    out = tmp_path / "run"
    assert main(["train", "--preset", "smoke", "--corpus", str(train_dir), "--out", str(out)]) == 0
    for name in ("policy.pt", "bc.pt", "bc.csv", "curve.png", "summary.json", "ppo/metrics.csv"):
        assert (out / name).is_file(), name
    with (out / "ppo" / "metrics.csv").open() as handle:
        header = next(csv.reader(handle))
    assert "charts/success_rate" in header and "losses/approx_kl" in header
    summary = json.loads((out / "summary.json").read_text())
    assert summary["parameters"] < 10_000_000 and summary["ppo_updates"] >= 1
    capsys.readouterr()
    report = tmp_path / "eval.json"
    assert main(["eval", "--policy", str(out / "policy.pt"), "--corpus", str(test_dir), "--json", str(report)]) == 0
    table = capsys.readouterr().out
    assert "nearest_certificate" in table and "domain:forum" in table
    assert "template:unseen" in table  # the checkpoint names its training corpus: templates are split
    data = json.loads(report.read_text())
    agents = set(data["summary"])
    assert agents == {"policy", "random", "noop", "infeasible", "nearest_certificate"}
    n = sum(len(s.tasks) for s in test_sites)
    assert all(data["summary"][a]["all"]["n"] == n for a in agents)
    assert data["summary"]["noop"]["all"]["success"] == 0.0
    assert {e["template"] for e in data["episodes"]} <= {"seen", "unseen"}
    assert main(["eval", "--policy", str(out / "policy.pt"), "--corpus", str(test_dir), "--agents", "bogus"]) == 2


def test_cli_names_a_missing_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "--corpus", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]) == 2
    assert "no corpus directory" in capsys.readouterr().err
    assert main(["train", "--preset", "huge", "--corpus", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "unknown preset" in capsys.readouterr().err


def test_policy_agent_is_deterministic_greedy_or_seeded(corpora, demos) -> None:  # type: ignore[no-untyped-def]
    torch.manual_seed(1)
    policy = Policy(config_for_small(demos))
    sites = corpora["test"][1][:1]
    one, _ = evaluate([PolicyAgent(policy)], sites, max_steps=6)
    two, _ = evaluate([PolicyAgent(policy)], sites, max_steps=6)
    assert one == two
    _, first = evaluate([PolicyAgent(policy, greedy=False, seed=5)], sites, max_steps=6)
    _, again = evaluate([PolicyAgent(policy, greedy=False, seed=5)], sites, max_steps=6)
    assert first == again  # sampling draws from the agent's own seeded stream


def test_match_features_name_the_rows_that_write_a_slot_value(corpora) -> None:  # type: ignore[no-untyped-def]
    from veriweb.agents.features import element_match
    from veriweb.envs.arguments import node_text

    env = DiscreteActions(VeriwebEnv(sites=corpora["train"][1]))
    checked = 0
    for index, task in ((i, t) for i, site in enumerate(corpora["train"][1]) for t in site.tasks):
        obs, _ = env.reset(options={"site": index, "task": task.id})
        strings = env.task_strings()
        values = {str(v) for v in task.slots.values()}
        match, slot = element_match(obs["elements"], obs["goal_tokens"], env)
        for row, bid in enumerate(env.base.element_bids):
            text = node_text(env.base.page.by_bid[bid])
            if text in values:  # a row that writes a slot value exactly
                assert match[row, 1] == 1.0 and match[row, 3] == 1.0
                assert strings[slot[row] - env.task_start] == text
                checked += 1
        features = featurize(obs, env)
        for k, text in enumerate(strings):
            arg = features["arg_match"][env.task_start + k]
            assert arg[0] == float(text in values or any(text != v and text in _forms(v) for v in values))
    assert checked > 0
    unrelated = np.flatnonzero(obs["elements"]["mask"] & ~(match[:, 0] > 0))
    assert len(unrelated) and (match[unrelated, 3] == 0).all()


def _forms(value: str) -> list[str]:
    import datetime as dt

    from veriweb.envs.arguments import other_forms

    return other_forms(value, dt.date(2026, 6, 1))


def test_argument_context_is_the_goal_words_before_a_value() -> None:
    from veriweb.agents.features import _find

    haystack = np.array([5, 6, 7, 8, 6, 7])
    assert _find(haystack, np.array([6, 7])) == 1
    assert _find(haystack, np.array([7, 6])) == -1
    assert _find(haystack, np.array([], dtype=int)) == -1


def test_length_batches_use_every_step_once_with_little_padding(demos) -> None:  # type: ignore[no-untyped-def]
    from veriweb.agents.bc import length_batches

    batches = length_batches(demos.features, 8, np.random.default_rng(0))
    joined = np.concatenate(batches)
    assert sorted(joined.tolist()) == list(range(len(demos)))
    rows = demos.features["el_mask"].sum(1)
    padded = sum(len(b) * rows[b].max() for b in batches)
    shuffled = np.random.default_rng(0).permutation(len(demos))
    naive = sum(len(b) * rows[b].max() for b in np.array_split(shuffled, len(batches)))
    assert padded < naive
    again = length_batches(demos.features, 8, np.random.default_rng(0))
    assert all(np.array_equal(a, b) for a, b in zip(batches, again))


def test_dagger_labels_the_states_the_policy_reaches_with_the_oracle(corpora, demos) -> None:  # type: ignore[no-untyped-def]
    from veriweb.agents.dagger import dagger_round, merge

    torch.manual_seed(0)
    policy = Policy(config_for_small(demos))
    sites = corpora["train"][1]
    # beta 1: the oracle's actions are executed; on the certificate's track they are the certificate
    followed, stats = dagger_round(policy, sites, beta=1.0, seed=0, tasks_per_round=3)
    assert stats.episodes == 3 and stats.successes == 3
    assert stats.labelled == len(followed) > 0 and stats.disagreements > 0  # an untrained policy disagrees
    assert set(followed.features) == set(demos.features)
    # beta 0: the untrained policy acts; every state it reaches is labelled or counted as skipped
    own, stats = dagger_round(policy, sites, beta=0.0, seed=1, tasks_per_round=1, max_extra_steps=0, oracle_budget=200)
    assert stats.labelled + sum(stats.skipped.values()) == stats.states > 0
    # two workers label the same states with the same actions, in the same order, as one
    shared, shared_stats = dagger_round(policy, sites, beta=0.5, seed=2, tasks_per_round=4, workers=2)
    alone, alone_stats = dagger_round(policy, sites, beta=0.5, seed=2, tasks_per_round=4)
    assert shared_stats.summary() == alone_stats.summary() and shared_stats.episodes == 4
    assert np.array_equal(shared.actions, alone.actions) and np.array_equal(shared.episode, alone.episode)
    assert all(np.array_equal(shared.features[k], alone.features[k]) for k in alone.features)
    both = merge(demos, followed)
    assert len(both) == len(demos) + len(followed)
    assert both.episode[len(demos):].min() > demos.episode.max()
    kinds = both.actions[:, 0]
    assert unpack(both.features)["mask_type"][np.arange(len(both)), kinds].all()


def test_dagger_rounds_train_on_every_label_and_a_fresh_draw_of_certificates(tmp_path: Path, corpora,
                                                                            demos) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    from veriweb.agents.bc import sample
    from veriweb.agents.presets import get_preset, train

    drawn = sample(demos, 7, seed=3)
    assert len(drawn) == 7 and np.array_equal(drawn.actions, sample(demos, 7, seed=3).actions)
    assert sample(demos, len(demos) + 5) is demos and len(demos) > 7
    assert np.all(np.diff(drawn.episode) >= 0)  # the draw keeps the steps' order

    preset = replace(get_preset("smoke"), dagger_rounds=2, dagger_tasks=2, dagger_certificates=10,
                     ppo={"total_timesteps": 0})
    summary = train(preset, corpora["train"][1], tmp_path / "run")
    rounds = summary["dagger"]
    assert len(rounds) == 2
    labels = np.cumsum([r["labelled"] for r in rounds])
    assert [r["steps_after"] for r in rounds] == [10 + int(n) for n in labels]  # labels accumulate, draws do not
    assert summary["demonstrations"]["dagger_labels"] == labels[-1]
    assert summary["demonstrations"]["steps"] > 10  # the certificates' own count


def test_training_that_would_run_out_of_memory_fails_before_collecting(tmp_path: Path, corpora, demos,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from veriweb.agents import presets
    from veriweb.agents.bc import memory_needed

    sites = corpora["train"][1]
    needed = memory_needed(sites)
    one = memory_needed(sites[:1])
    assert 0 < one < needed  # more sites, more certificate steps to hold
    per_step = sum(v.nbytes for v in demos.features.values()) / len(demos)
    steps = sum(len(task.certificate) for site in sites for task in site.tasks)
    assert 0.5 < needed / (per_step * steps) < 2  # the estimate is of the order of what collecting holds
    monkeypatch.setattr(presets, "available_memory", lambda: needed)
    with pytest.raises(VeriwebError, match="GiB of memory"):
        presets.train(presets.get_preset("smoke"), sites, tmp_path / "run")
    assert not (tmp_path / "run" / "policy.pt").exists()


def test_element_groups_put_a_rows_cells_with_the_row() -> None:
    from veriweb.agents.features import element_groups
    from veriweb.envs.observation import ROLE_IDS

    # table > row(1) > cell(2) > link(3); row(1) > cell(4) > button(5); heading(6) outside any group
    roles = ["table", "row", "cell", "link", "cell", "button", "heading"]
    parent = np.array([-1, 0, 1, 2, 1, 4, -1, -1], np.int32)
    elements = {"role": np.array([ROLE_IDS[r] for r in roles] + [0], np.int32), "parent": parent,
                "mask": np.array([1] * 7 + [0], np.int8)}
    groups = element_groups(elements)
    assert groups.tolist() == [-1, 1, 1, 1, 1, 1, -1, -1]


def test_element_groups_on_a_real_page(corpora) -> None:  # type: ignore[no-untyped-def]
    from veriweb.agents.features import GROUP_ROLES, element_groups
    from veriweb.envs.observation import ROLES

    env = DiscreteActions(VeriwebEnv(sites=corpora["train"][1]))
    obs, _ = env.reset(options={"site": 0, "task": corpora["train"][1][0].tasks[0].id})
    elements = obs["elements"]
    groups = element_groups(elements)
    for row in np.flatnonzero(groups >= 0):
        group = int(groups[row])
        assert ROLES[elements["role"][group]] in GROUP_ROLES
        up = row  # the group is an ancestor (or the row itself), and nothing between groups
        while up != group:
            up = int(elements["parent"][up])
            assert up >= 0 and (up == group or ROLES[elements["role"][up]] not in GROUP_ROLES)


def test_behaviour_cloning_keeps_the_epoch_best_on_held_out_steps(corpora, demos) -> None:  # type: ignore[no-untyped-def]
    held = collect(corpora["test"][1][:1])
    torch.manual_seed(0)
    policy = Policy(config_for_small(demos))
    history = train_bc(policy, demos, epochs=4, batch_size=32, lr=3e-3, seed=0, val=held)
    best = max(history, key=lambda row: (row["val_acc_action"], -row["val_loss"]))
    final = evaluate_bc(policy, held)
    assert final["acc_action"] == pytest.approx(best["val_acc_action"])
    assert final["loss"] == pytest.approx(best["val_loss"], rel=1e-5)


def test_an_option_row_gets_the_goal_context_of_the_slot_value_it_is() -> None:
    """'from Barcelona to Madrid': with the context weight up, the origin list's argument head
    prefers the Barcelona option and the destination list's the Madrid one (untrained, not both)."""
    from dataclasses import replace

    from veriweb.agents.policy import config_for, to_tensors
    from veriweb.envs.actions import ACTION_TYPES, DiscreteActions
    from veriweb.envs.env import VeriwebEnv

    site = generate_site("travel", 0)  # its lists are labelled 'Flying from' and 'To'
    task = next(t for t in site.tasks if re.search(r"\bfrom (\w+) to (\w+)", t.instruction)
                and t.certificate and t.certificate[0].startswith("select_option"))
    origin, destination = re.search(r"\bfrom (\w+) to (\w+)", task.instruction).groups()
    base = VeriwebEnv(sites=[site])
    env = DiscreteActions(base)
    obs, _ = env.reset(options={"site": 0, "task": task.id})
    batch = to_tensors({k: v[None] for k, v in featurize(obs, env).items()})
    select = ACTION_TYPES.index("select")
    lists = [n for n in base.page.by_bid.values() if n.role == "combobox"]
    by_label = {next(w for w in ("from", "to") if w in n.name.lower().split()): n.bid for n in lists
                if {"from", "to"} & set(n.name.lower().split())}
    torch.manual_seed(0)
    picks = {}
    for strength in (0.0, 20.0):
        policy = Policy(config_for(env, d_model=32, layers=1, heads=2, ff=64))
        policy.eval()
        with torch.no_grad():
            policy.page_context_bias.weight[select] = strength
        for word, bid in by_label.items():
            row = base.element_bids.index(bid)
            with torch.no_grad():
                logits = policy(batch, torch.tensor([[select, row, 0]]))["argument_logits"][0]
            pages = [a for a in range(env.page_start, env.page_start + env.n_elements)
                     if env.argument_text(a) and logits[a] > -1e8]
            picks[strength, word] = env.argument_text(max(pages, key=lambda a: float(logits[a])))
    assert picks[20.0, "from"].startswith(origin) and picks[20.0, "to"].startswith(destination)
    assert not (picks[0.0, "from"].startswith(origin) and picks[0.0, "to"].startswith(destination))
    assert Policy(replace(config_for(env), page_context=False)).page_context_bias is None


def test_element_numbers_mark_the_largest_and_smallest_of_alike_numbers() -> None:
    from veriweb.agents.features import element_groups, element_numbers
    from veriweb.engine.actions import parse_action

    site = generate_site("shop", 0)
    env = DiscreteActions(VeriwebEnv(sites=[site]))
    task = next(t for t in site.tasks if t.family == "retrieve_extreme")
    obs, _ = env.reset(options={"site": 0, "task": task.id})
    for action in task.certificate[:-1]:  # up to the answer: a category's products with their prices
        assert parse_action(action)
        obs, *_ = env.step(env.encode(action))
    numbers = featurize(obs, env)["el_numeric"]
    page, bids = env.base.page, env.base.element_bids
    texts = [(page.by_bid[b].name or page.by_bid[b].text or "") for b in bids]
    prices = {row: float(t.lstrip("$").replace(",", "")) for row, t in enumerate(texts) if re.fullmatch(r"\$[\d,]+\.\d\d", t)}
    assert len(set(prices.values())) > 1
    high = [row for row, v in prices.items() if v == max(prices.values())]
    low = [row for row, v in prices.items() if v == min(prices.values())]
    assert all(numbers[row, 0] == 1 for row in prices)
    assert [row for row in prices if numbers[row, 1]] == high and [row for row in prices if numbers[row, 2]] == low
    groups = element_groups(obs["elements"])
    cheapest_item = groups[low[0]]
    assert cheapest_item >= 0 and numbers[groups == cheapest_item, 4].all() and not numbers[groups == cheapest_item, 3].any()
    assert not numbers[[row for row, t in enumerate(texts) if not re.search(r"\d", t)], 0].any()
    assert np.array_equal(element_numbers(env, obs["elements"], groups), numbers)  # memoised: the same again


def test_group_match_says_which_row_names_the_slot_values() -> None:
    from veriweb.agents.features import group_match

    match = np.zeros((7, 8), np.float32)
    slot = np.zeros(7, np.int32)
    groups = np.array([0, 0, 0, 3, 3, 3, -1], np.int32)  # two table rows, and a row in none
    match[1, 1], match[1, 3], slot[1] = 1.0, 1.0, 11  # row 0 writes slot values 11 and 12 in full
    match[2, 1], slot[2] = 1.0, 12
    match[4, 1], slot[4] = 1.0, 11  # row 3 writes 11 only, and part of 12
    match[5, 1], slot[5] = 0.5, 12
    match[6, 1], match[6, 3], slot[6] = 1.0, 1.0, 12  # outside any group: counts for nothing
    out = group_match(match, slot, groups)
    assert out.shape == (7, 3) and out.dtype == np.float32
    assert out[0].tolist() == [1.0, 1.0, 1.0]  # the link in row 0 (it matches nothing itself)
    assert out[3].tolist() == [1.0, 0.0, 0.5]
    assert (out[:3] == out[0]).all() and (out[3:6] == out[3]).all() and not out[6].any()
    assert not group_match(match, slot, np.full(7, -1, np.int32)).any()


def test_group_match_marks_the_booking_the_task_names_and_the_policy_reads_it() -> None:
    """Cancelling "my flight to X" clicks a booking code whose own text matches nothing in the goal;
    its table row names the destination, and the feature says so."""
    from veriweb.envs.certificates import certificate_actions

    checked = strictly = 0
    for seed in range(1, 6):
        site = generate_site("travel", seed)
        env = DiscreteActions(VeriwebEnv(sites=[site]))
        for task in site.tasks:
            if task.family not in ("multi_step_write", "login_write") or "cancel" not in task.instruction:
                continue
            plan = certificate_actions(env, task, 0)  # (it replays the certificate: reset after it)
            obs, _ = env.reset(options={"site": 0, "task": task.id})
            for action in plan:
                features = featurize(obs, env)
                row = int(action[1])
                group, own, named = features["el_group"], features["el_match"], features["el_group_match"]
                if group[row] >= 0 and own[row, 1] == 0 and named[row, 0] == 1.0:  # a code in a row that names X
                    links = (features["el_role"] == features["el_role"][row]) & (group >= 0) & (group != group[row])
                    checked += 1
                    strictly += bool(links.any() and named[row, 2] > named[links, 2].max())
                    assert named[row, 2] == 1.0
                obs, _, terminated, truncated, _ = env.step(action)
                if terminated or truncated:
                    break
    assert checked >= 3 and strictly >= 1
    env = DiscreteActions(VeriwebEnv(sites=[generate_site("travel", 1)]))
    policy = Policy(replace(config_for(env), d_model=32, layers=1, heads=2, ff=64, group_match=True))
    obs, _ = env.reset(seed=0)
    batch = {k: v[None] for k, v in featurize(obs, env).items()}
    assert policy.act(batch).shape == (1, 3)
    assert Policy(replace(config_for(env), d_model=32, layers=1, heads=2, ff=64)).group_match is None



def test_slot_keys_name_where_each_task_string_comes_from_and_the_policy_reads_them() -> None:
    """A flight task's two cities differ only by their slots' names ("origin", "destination"); every
    task string drawn from a slot (its value, another form, a run of its words) carries that name's
    tokens, the instruction's own words carry none, and a policy with ``slot_keys`` reads them."""
    from veriweb.agents.features import KEY_TOKENS
    from veriweb.envs.tokenizer import encode

    site = generate_site("travel", 1)
    env = DiscreteActions(VeriwebEnv(sites=[site]))
    checked = 0
    for task in site.tasks:
        if not {"origin", "destination"} <= set(task.slots):
            continue
        obs, _ = env.reset(options={"site": 0, "task": task.id})
        keys = featurize(obs, env)["arg_key"]
        strings = env.task_strings()
        for name in ("origin", "destination"):
            at = env.task_start + strings.index(str(task.slots[name]))
            assert keys[at].tolist() == encode(name, KEY_TOKENS).tolist()
        for k, text in enumerate(strings):  # a run of the instruction's own words comes from no slot
            if not any(text in str(v) for v in task.slots.values()) and " " in text:
                assert not keys[env.task_start + k].any()
        assert not keys[:env.task_start].any() and not keys[env.task_start + len(strings):].any()
        checked += 1
    assert checked >= 3
    policy = Policy(replace(config_for(env), d_model=32, layers=1, heads=2, ff=64, slot_keys=True))
    obs, _ = env.reset(seed=0)
    batch = {k: v[None] for k, v in featurize(obs, env).items()}
    torch.manual_seed(0)
    with torch.no_grad():
        for weight in (policy.key_proj.weight, policy.slot_key_proj.weight):
            weight.normal_(0, 1.0)
        blank = dict(batch, arg_key=np.zeros_like(batch["arg_key"]))
        given = torch.tensor(policy.act(batch, greedy=True))
        with_keys = policy(to_tensors(batch), given)["log_prob"]
        without = policy(to_tensors(blank), given)["log_prob"]
    assert not torch.allclose(with_keys, without)
    assert Policy(replace(config_for(env), d_model=32, layers=1, heads=2, ff=64)).key_proj is None


def test_row_counts_flag_the_count_a_page_shows_and_the_policy_reads_them() -> None:
    """Counting answers ("how many of my orders are shipped?") are flagged on the number that counts
    a list's data rows or the rows sharing a cell the goal names; the header row is not counted."""
    from veriweb.agents.features import row_counts
    from veriweb.envs.actions import ACTION_TYPES
    from veriweb.envs.certificates import certificate_actions
    from veriweb.envs.observation import ROLE_IDS

    checked = answered = 0
    for domain, seed in (("shop", 1), ("shop", 2), ("mail", 1), ("code", 1), ("travel", 2), ("code", 3)):
        site = generate_site(domain, seed)
        env = DiscreteActions(VeriwebEnv(sites=[site]))
        for task in site.tasks:
            if task.family not in ("retrieve_count", "retrieve_count_profile"):
                continue
            plan = certificate_actions(env, task, 0)
            obs, _ = env.reset(options={"site": 0, "task": task.id})
            for action in plan[:-1]:
                obs, *_ = env.step(action)
            counts = featurize(obs, env)["arg_count"]
            assert counts.dtype == np.int8 and not counts[:env.number_start].any()
            assert counts[:, 0].sum() == 1  # one longest list (or none: 0)
            checked += 1
            answered += bool(counts[int(plan[-1][2])].any())
    assert checked >= 5 and answered >= 0.7 * checked
    env = DiscreteActions(VeriwebEnv(sites=[generate_site("shop", 0)]))
    obs, _ = env.reset(seed=0)
    elements = {key: value.copy() for key, value in obs["elements"].items()}
    role = {name: ROLE_IDS[name] for name in ("table", "row", "columnheader", "cell", "paragraph")}
    layout = [("table", -1, 1), ("row", 0, 0), ("columnheader", 1, 2), ("columnheader", 1, 3)]
    for _ in range(3):  # three data rows: a cell with the status, a cell with a number
        row = len(layout)
        layout += [("row", 0, 0), ("cell", row, 0), ("paragraph", row + 1, 4), ("cell", row, 0), ("paragraph", row + 3, 5)]
    layout[-3] = ("paragraph", layout[-3][1], 6)  # the last row's status differs
    E = len(elements["mask"])
    elements["mask"][:] = 0
    elements["tokens"][:] = 0
    for index, (name, parent, token) in enumerate(layout):
        elements["role"][index], elements["parent"][index], elements["mask"][index] = role[name], parent, 1
        elements["tokens"][index, 0] = token
    match = np.zeros((E, 8), np.float32)
    match[[index for index, (_, _, token) in enumerate(layout) if token == 4], 0] = 1.0  # "Shipped": in the goal
    counts = row_counts(elements, match, env)
    start = env.number_start
    assert np.flatnonzero(counts[:, 0]).tolist() == [start + 3]  # the header row is not a data row
    assert np.flatnonzero(counts[:, 1]).tolist() == [start + 3]
    assert np.flatnonzero(counts[:, 2]).tolist() == [start + 2]  # two rows say "Shipped"
    elements["mask"][:] = 0
    assert np.flatnonzero(row_counts(elements, match, env)[:, 0]).tolist() == [start]  # nothing listed: 0
    policy = Policy(replace(config_for(env), d_model=32, layers=1, heads=2, ff=64, counts=True))
    batch = {k: v[None] for k, v in featurize(obs, env).items()}
    batch["arg_count"][0, start + 3] = 1
    torch.manual_seed(0)
    with torch.no_grad():
        policy.count_bias.weight.normal_(0, 1.0)
        given = torch.tensor([[ACTION_TYPES.index("send"), 0, start + 3]])
        batch["mask_type"][0, ACTION_TYPES.index("send")] = 1
        batch["mask_element"][0, ACTION_TYPES.index("send"), 0] = 1
        batch["mask_argument"][0, ACTION_TYPES.index("send"), start:] = 1
        with_counts = policy(to_tensors(batch), given)["log_prob"]
        without = policy(to_tensors(dict(batch, arg_count=np.zeros_like(batch["arg_count"]))), given)["log_prob"]
    assert not torch.allclose(with_counts, without)
    assert Policy(replace(config_for(env), d_model=32, layers=1, heads=2, ff=64)).count_proj is None


def test_a_time_budget_cuts_the_learning_rate_horizon(demos) -> None:  # type: ignore[no-untyped-def]
    """With no time left the cosine ends at the next update: the rate is at its floor (10%), not
    where 50 planned epochs would have it."""
    torch.manual_seed(0)
    steps = np.arange(min(len(demos), 240))
    few = type(demos)({k: v[steps] for k, v in demos.features.items()}, demos.actions[steps], demos.episode[steps],
                      config=demos.config)
    budgeted = train_bc(Policy(config_for_small(demos)), few, epochs=50, batch_size=2, lr=1e-3,
                        time_left=lambda: 0.0, stop=lambda counter=iter(range(10**6)): next(counter) >= 150)
    free = train_bc(Policy(config_for_small(demos)), few, epochs=50, batch_size=2, lr=1e-3,
                    stop=lambda counter=iter(range(10**6)): next(counter) >= 150)
    assert budgeted[0]["lr"] == pytest.approx(1e-4) and free[0]["lr"] > 0.99e-3
