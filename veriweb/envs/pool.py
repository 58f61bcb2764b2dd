"""Which (site, task) an episode runs: the pool of sites, task filters, and the seed mapping.

The seed mapping (documented, deterministic, the same in every process):

- A pool has ``N`` sites: the ``num_sites`` generated sites of a domain and split, the sites of
  a corpus in manifest order, or the given sites.
- ``reset(seed=s)`` runs site ``k = s mod N`` and, of that site's tasks that pass the filters
  (in an order shuffled once by the site's id), the ``(s div N) mod m``-th. A site with no
  eligible task passes its turn to the next site.
- So consecutive seeds visit different sites first: the 8 envs of a vector env seeded with 0
  get seeds 0..7 and run 8 different sites (when ``N >= 8``), the same on every run.
- ``reset()`` without a seed draws ``s`` from the env's own generator, then maps it the same way.

Generated sites are cached per process (an LRU keyed by domain and seed), so switching sites
does not regenerate them.
"""

from __future__ import annotations

import functools
import random
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from veriweb.errors import VeriwebError
from veriweb.generate.streams import derive
from veriweb.scaffold import Site, Task, load


@functools.lru_cache(maxsize=256)
def generated_site(domain: str, seed: int) -> Site:
    """A generated site, cached per process."""
    from veriweb.generate import generate_site

    return generate_site(domain, seed)


@dataclass(frozen=True)
class TaskFilter:
    """Keep tasks of these families, kinds and difficulties (``None``: any)."""

    families: tuple[str, ...] | None = None
    kinds: tuple[str, ...] | None = None
    difficulties: tuple[str, ...] | None = None
    task_ids: tuple[str, ...] | None = None

    def accepts(self, task: Task) -> bool:
        return ((self.families is None or task.family in self.families)
                and (self.kinds is None or task.kind in self.kinds)
                and (self.difficulties is None or task.difficulty in self.difficulties)
                and (self.task_ids is None or task.id in self.task_ids))


def _tuple(value: str | Sequence[str] | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    return (value,) if isinstance(value, str) else tuple(value)


class SitePool:
    """The sites an env draws from.

    Args:
        domain: generate sites of this domain (with ``num_sites`` and ``split``).
        corpus: a corpus directory (``veriweb generate --out``).
        sites: sites (or paths to scaffold files) to use as they are.
        split: train, val or test: generated splits never share a site.
        num_sites: how many generated sites the pool cycles through.
        filters: which tasks are eligible.
    """

    def __init__(self, *, domain: str | None = None, corpus: str | Path | None = None,
                 sites: Sequence[Site | str | Path] | None = None, split: str = "train", num_sites: int = 16,
                 filters: TaskFilter = TaskFilter(), cache: int = 64) -> None:
        sources = sum(x is not None for x in (domain, corpus, sites))
        if sources != 1:
            raise VeriwebError("give exactly one of domain=, corpus= or sites= to say where sites come from")
        if split not in ("train", "val", "test"):
            raise VeriwebError(f"unknown split {split!r}; use train, val or test")
        self.domain, self.split, self.filters = domain, split, filters
        self._given: list[Site] = []
        self._paths: list[Path] = []
        if domain is not None:
            from veriweb.generate import available_domains

            if domain not in available_domains():
                raise VeriwebError(f"unknown domain {domain!r}; choose from {', '.join(available_domains())}")
            if num_sites <= 0:
                raise VeriwebError(f"num_sites must be positive, got {num_sites}")
            self.size = num_sites
        elif corpus is not None:
            from veriweb.generate.corpus import read_corpus

            _, self._paths = read_corpus(corpus)
            self.size = len(self._paths)
        else:
            assert sites is not None
            self._given = [s if isinstance(s, Site) else load(s) for s in sites]
            self.size = len(self._given)
        if self.size == 0:
            raise VeriwebError("the pool has no sites")
        self._cache: OrderedDict[int, Site] = OrderedDict()
        self._cache_size = cache
        self._order: dict[int, list[Task]] = {}

    def site(self, index: int) -> Site:
        """The ``index``-th site of the pool."""
        if self._given:
            return self._given[index]
        if index in self._cache:
            self._cache.move_to_end(index)
            return self._cache[index]
        if self.domain is not None:
            site = generated_site(self.domain, derive("env", self.domain, self.split, index) % (2**31))
        else:
            site = load(self._paths[index])
        self._cache[index] = site
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return site

    def eligible(self, index: int) -> list[Task]:
        """The site's tasks that pass the filters, in a fixed order shuffled by the site's id."""
        if index not in self._order:
            site = self.site(index)
            tasks = [t for t in site.tasks if self.filters.accepts(t)]
            random.Random(derive("order", site.id)).shuffle(tasks)
            self._order[index] = tasks
        return self._order[index]

    def pick(self, seed: int) -> tuple[int, Task]:
        """The (site index, task) of a seed (see the module docstring)."""
        for shift in range(self.size):
            index = (seed + shift) % self.size
            tasks = self.eligible(index)
            if tasks:
                return index, tasks[(seed // self.size) % len(tasks)]
        raise VeriwebError("no task in the pool passes the filters; loosen family=, kind= or difficulty=")

    def find(self, site_ref: int | str, task_id: str | None) -> tuple[int, Task]:
        """An exact choice: a site by index or id, and a task by id (else its first eligible task)."""
        index: int | None = None
        if isinstance(site_ref, int) or (isinstance(site_ref, str) and site_ref.isdigit()):
            index = int(site_ref)
        else:
            for candidate in range(self.size):
                if self.site(candidate).id == site_ref or self.site(candidate).name == site_ref:
                    index = candidate
                    break
        if index is None or not 0 <= index < self.size:
            raise VeriwebError(f"no site {site_ref!r} in the pool of {self.size} sites")
        site = self.site(index)
        if task_id is None:
            tasks = self.eligible(index)
            if not tasks:
                raise VeriwebError(f"site {site.id} has no eligible task")
            return index, tasks[0]
        task = site.task(task_id)
        if task is None:
            raise VeriwebError(f"site {site.id} has no task {task_id!r}; its tasks: {', '.join(t.id for t in site.tasks)}")
        return index, task


def task_filter(family: str | Sequence[str] | None = None, kind: str | Sequence[str] | None = None,
                difficulty: str | Sequence[str] | None = None,
                task_ids: str | Sequence[str] | None = None) -> TaskFilter:
    """A :class:`TaskFilter` from single values or lists."""
    return TaskFilter(_tuple(family), _tuple(kind), _tuple(difficulty), _tuple(task_ids))
