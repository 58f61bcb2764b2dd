"""Action masks: memoised per page and per argument layout."""

from __future__ import annotations

import dataclasses

import numpy as np

from veriweb.envs import DiscreteActions, VeriwebEnv
from veriweb.envs.actions import NOTE, SEND
from veriweb.scaffold import Site


def test_wrappers_with_other_layouts_on_the_same_pages_get_their_own_masks(shop: Site) -> None:
    # Two wrappers whose layouts have the same size and page strings but their notes elsewhere,
    # on envs sharing one site object (so one page cache, one encoded view, one mask memo).
    first = DiscreteActions(VeriwebEnv(sites=[shop]), max_history=8, max_notes=8)
    second = DiscreteActions(VeriwebEnv(sites=[shop]), max_history=10, max_notes=6)
    assert (first.n_args, first.page_start) == (second.n_args, second.page_start)
    assert first.note_start != second.note_start
    for env in (first, second):
        obs, _ = env.reset(options={"site": 0, "task": "add_to_cart"})
        row = int(np.flatnonzero(obs["action_mask"]["element"][NOTE])[0])
        env.step(np.array([NOTE, row, 0]))
        assert env.notes(), "a note was taken"
    assert first.base.page is second.base.page  # the same page state, from the shared cache
    for env in (first, second):
        argument = env.masks()["argument"]
        assert argument[SEND, env.note_start] == 1 and argument[SEND, env.note_start + 1] == 0
    assert not (first.masks()["argument"] == second.masks()["argument"]).all()


def test_element_masks_from_affordances_equal_those_from_flags_and_roles() -> None:
    """The encoder's per-row affordance bits give the element mask the flags and roles give, on the
    views of a random walk (dialogs and hidden rows included)."""
    env = DiscreteActions(VeriwebEnv("admin", num_sites=2, max_steps=30))
    env.action_space.seed(3)
    obs, _ = env.reset(seed=3)
    checked = 0
    for _ in range(150):
        obs, _, terminated, truncated, _ = env.step(env.sample(obs["action_mask"]))
        view = env.base.view
        assert len(view.affordances) == env.n_elements
        fast, targets = env._element_mask(), env._targets_of_view()
        env.base._view = dataclasses.replace(view, affordances=view.affordances[:0], memo={})
        try:
            assert (env._element_mask() == fast).all() and env._targets_of_view() == targets
        finally:
            env.base._view = view
        checked += 1
        if terminated or truncated:
            obs, _ = env.reset()
    assert checked == 150
