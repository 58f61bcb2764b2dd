"""Held-out per-step accuracy for the ablation: each arm's policy, teacher-forced on the test corpus's certificates.

Closed-loop success is the ablation's measure, but a small training budget can leave every arm
at or near zero, where no gap shows. Per-step accuracy is a graded second measure: each test
step's state (reached by replaying a certificate) and the policy's choice there against the
certificate's (every head that matters right, as ``acc_action`` in :mod:`veriweb.agents.bc`).

Two label sets, because the arms clone two styles of certificate: the certified test corpus's
(the verifier's search traces, the style the filtered, verified and subsampled arms clone) and
the same test sites as generated (the generator's plans, the style the raw arm clones). A gap
that holds under both labels is not a matter of style.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from veriweb.agents.bc import Demonstrations, _take
from veriweb.agents.evaluate import bootstrap_ci
from veriweb.generate.corpus import load_sites


def heldout_steps(corpus: str | Path) -> tuple[Demonstrations, np.ndarray]:
    """Every certificate step of ``corpus`` that can be taken (see :func:`veriweb.agents.given.collect_as_given`),
    and the site id of each step."""
    from veriweb.agents.given import collect_as_given

    sites = list(load_sites(corpus))
    demos, _ = collect_as_given(sites)
    owner = np.array([site.id for site in sites for _ in site.tasks])
    return demos, owner[demos.episode]


def cached_heldout_steps(corpus: str | Path, cache: str | Path) -> tuple[Demonstrations, np.ndarray]:
    """:func:`heldout_steps`, kept in ``cache`` (an ``.npz`` file stamped with the corpus manifest's SHA-256) so a
    rerun does not replay the test corpus again."""
    import hashlib

    digest = hashlib.sha256((Path(corpus) / "manifest.json").read_bytes()).hexdigest()
    cache = Path(cache)
    if cache.is_file():
        data = np.load(cache, allow_pickle=False)
        if str(data["digest"]) == digest:
            features = {key[2:]: data[key] for key in data.files if key.startswith("f_")}
            return Demonstrations(features, data["actions"], data["episode"]), data["sites"]
    demos, sites = heldout_steps(corpus)
    cache.parent.mkdir(parents=True, exist_ok=True)
    partial = cache.with_name(cache.name + ".partial.npz")
    np.savez(partial, digest=np.array(digest), actions=demos.actions, episode=demos.episode, sites=sites,
             **{f"f_{key}": value for key, value in demos.features.items()})
    partial.replace(cache)
    return demos, sites


def step_correct(policy: Any, demos: Demonstrations, batch_size: int = 256) -> np.ndarray:
    """Whether ``policy`` (teacher-forced) picks each step's action: its type, and its element and argument
    where they matter."""
    import torch

    from veriweb.agents.policy import to_tensors

    policy.eval()
    out = np.zeros(len(demos), bool)
    order = np.argsort(demos.features["el_mask"].sum(1), kind="stable")  # little padding per batch
    with torch.no_grad():
        for start in range(0, len(demos), batch_size):
            index = np.sort(order[start:start + batch_size])
            target = torch.from_numpy(demos.actions[index])
            res = policy(to_tensors(_take(demos.features, index)), target)
            ok = res["type_logits"].argmax(-1) == target[:, 0]
            ok &= (res["element_logits"].argmax(-1) == target[:, 1]) | ~res["uses_element"]
            ok &= (res["argument_logits"].argmax(-1) == target[:, 2]) | ~res["uses_argument"]
            out[index] = ok.numpy()
    return out


def accuracies(correct: dict[str, np.ndarray], sites: np.ndarray, contrasts: Any, *, seed: int = 0
               ) -> dict[str, Any]:
    """Each arm's accuracy with its 95% interval, and each contrast's paired difference (resampling test sites)."""
    arms = {arm: bootstrap_ci(values.astype(float), sites, seed=seed) for arm, values in correct.items()}
    gaps = {f"{a}-{b}": bootstrap_ci(correct[a].astype(float) - correct[b].astype(float), sites, seed=seed)
            for a, b, _ in contrasts}
    return {"arms": arms, "gaps": gaps, "steps": int(len(sites))}


__all__ = ["accuracies", "cached_heldout_steps", "heldout_steps", "step_correct"]
