"""veriweb: verified, deterministic websites for training and evaluating web agents.

Importing the package registers its Gymnasium environments (``veriweb/<domain>-v0``,
``veriweb/site-v0``).
"""

from __future__ import annotations

__version__ = "0.1.0"


def _register() -> None:
    try:
        from veriweb.envs import register_envs
    except ImportError:  # gymnasium missing: the engine and the CLI still work
        return
    register_envs()


_register()
