"""Compact policies: features, the policy, behaviour cloning, PPO, evaluation with floors, presets, the ablation.

Everything here but :mod:`veriweb.agents.cli` needs the ``[train]`` extra (PyTorch, matplotlib)::

    veriweb train --preset smoke --corpus TRAIN_DIR --out runs/smoke
    veriweb eval --policy runs/smoke/policy.pt --corpus TEST_DIR --json results.json
"""
