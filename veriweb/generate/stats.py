"""Corpus statistics: task mix, certificate lengths, and diversity (page graphs, skeletons, vocabulary)."""

from __future__ import annotations

import itertools
import os
import random
import re
import warnings
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from veriweb.engine import Session
from veriweb.engine.actions import parse_action
from veriweb.engine.templates import Route
from veriweb.scaffold import Site, load

_PLACEHOLDER = re.compile(r"\{[^}]*\}")


def _walk(elements: Iterable[Any]) -> Iterable[Any]:
    for element in elements:
        yield element
        for attr in ("elements", "item", "items"):
            yield from _walk(getattr(element, attr, None) or [])
        for tab in getattr(element, "tabs", None) or []:
            yield from _walk(tab.elements)
        for column in getattr(element, "columns", None) or []:
            yield from _walk(column.cell)


def page_graph(site: Site) -> nx.DiGraph:
    """Pages as nodes (labelled by page id), links, GET forms and redirects as edges."""
    routes = [Route.compile(p.id, p.route) for p in site.pages]

    def target(href: str) -> str | None:
        path = _PLACEHOLDER.sub("1", href.split("?")[0]) or "/"
        for route in routes:
            if route.match(path) is not None:
                return route.page_id
        return None

    graph = nx.DiGraph()
    layout_targets = []
    for element in _walk(site.layout.header + site.layout.footer):
        if getattr(element, "type", "") == "link":
            layout_targets.append(target(element.href))
    for page in site.pages:
        graph.add_node(page.id, label=page.id)
    for page in site.pages:
        targets = list(layout_targets) if page.layout else []
        for element in _walk(page.elements):
            kind = getattr(element, "type", "")
            if kind == "link":
                targets.append(target(element.href))
            elif kind == "form":
                action = element.action
                route = getattr(action, "route", None) or getattr(action, "redirect", None)
                if route:
                    targets.append(target(route))
        for dest in targets:
            if dest is not None:
                graph.add_edge(page.id, dest)
    return graph


def graph_class(site: Site) -> str:
    """The Weisfeiler-Lehman hash of the site's page graph (equal for isomorphic graphs)."""
    with warnings.catch_warnings():  # networkx notes that directed-graph hashes changed in 3.5; ours are fresh
        warnings.simplefilter("ignore", UserWarning)
        return nx.weisfeiler_lehman_graph_hash(page_graph(site), node_attr="label", iterations=3)


def skeletons(site: Site) -> dict[str, list[tuple[tuple[str, str], ...]]]:
    """Each task's certificate skeleton, by family: the sequence of (element role, action type).

    The certificate is replayed in a session (one per site, reset per task) to learn the role of
    the element each action names; the replay stops where an episode would, at a message to the
    user or a report of infeasibility (the judge is not needed for the shape of a sound
    certificate, so it is not run).
    """
    session = Session(site)
    out: dict[str, list[tuple[tuple[str, str], ...]]] = defaultdict(list)
    for task in site.tasks:
        session.reset(task.start_url, user=task.user if task.start_logged_in else None)
        shape = []
        for step, action in enumerate(task.certificate, 1):
            parsed = parse_action(action)
            # the page is built only for an action that names an element (a goto or a message needs none)
            node = session.page().by_bid.get(parsed.bid) if parsed.bid is not None else None
            shape.append((node.role if node is not None else "-", parsed.name))
            result = session.step(parsed)
            if result.message is not None or result.infeasible is not None or step >= task.max_steps:
                break
        out[task.family].append(tuple(shape))
    session.close()
    return out


def vocabulary(site: Site) -> set[str]:
    """The site's label vocabulary: the fixed words of its link, button, heading and field labels."""
    words: set[str] = set()
    elements = list(_walk(site.layout.header + site.layout.footer))
    for page in site.pages:
        elements += list(_walk(page.elements))
    for element in elements:
        texts = [getattr(element, a, "") for a in ("text", "label", "submit", "title")]
        texts += [f.label for f in getattr(element, "fields", [])]
        for value in texts:
            if isinstance(value, str):
                words.update(w.lower() for w in re.findall(r"[A-Za-z]+", _PLACEHOLDER.sub(" ", value)))
    return words


@dataclass(frozen=True)
class SiteStats:
    """What one site adds to its domain's statistics (small and picklable, so workers can compute it)."""

    domain: str
    families: list[str]
    kinds: list[str]
    difficulty: list[str]
    lengths: list[int]
    graph_class: str
    skeletons: dict[str, list[tuple[tuple[str, str], ...]]]
    vocabulary: set[str]


def site_stats(site: Site) -> SiteStats:
    """One site's share of the corpus statistics (its tasks in order, page-graph class,
    certificate skeletons and label vocabulary)."""
    return SiteStats(domain=site.domain, families=[t.family for t in site.tasks], kinds=[t.kind for t in site.tasks],
                     difficulty=[t.difficulty for t in site.tasks], lengths=[len(t.certificate) for t in site.tasks],
                     graph_class=graph_class(site), skeletons=dict(skeletons(site)), vocabulary=vocabulary(site))


def _site_file_stats(path: str) -> SiteStats:
    return site_stats(load(path))


@dataclass
class DomainStats:
    """Statistics of one domain's sites in a corpus."""

    sites: int = 0
    tasks: int = 0
    families: Counter[str] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)
    difficulty: Counter[str] = field(default_factory=Counter)
    lengths: list[int] = field(default_factory=list)
    graph_classes: set[str] = field(default_factory=set)
    skeletons: dict[str, set[tuple[tuple[str, str], ...]]] = field(default_factory=lambda: defaultdict(set))
    vocabularies: list[set[str]] = field(default_factory=list)

    def add(self, site: Site) -> None:
        """Count one site."""
        self.merge(site_stats(site))

    def merge(self, one: SiteStats) -> None:
        """Count one site from its :func:`site_stats` (sites must come in corpus order: the
        vocabulary overlap samples pairs by position)."""
        self.sites += 1
        self.tasks += len(one.families)
        self.families.update(one.families)
        self.kinds.update(one.kinds)
        self.difficulty.update(one.difficulty)
        self.lengths.extend(one.lengths)
        self.graph_classes.add(one.graph_class)
        for family, shapes in one.skeletons.items():
            self.skeletons[family].update(shapes)
        self.vocabularies.append(one.vocabulary)

    def vocabulary_overlap(self, pairs: int = 400, seed: int = 0) -> float:
        """Mean share of label vocabulary two sites have in common (Jaccard), over sampled pairs."""
        all_pairs = list(itertools.combinations(range(len(self.vocabularies)), 2))
        if not all_pairs:
            return 0.0
        rng = random.Random(seed)
        chosen = all_pairs if len(all_pairs) <= pairs else rng.sample(all_pairs, pairs)
        total = 0.0
        for a, b in chosen:
            va, vb = self.vocabularies[a], self.vocabularies[b]
            total += len(va & vb) / max(1, len(va | vb))
        return total / len(chosen)

    def as_dict(self) -> dict[str, Any]:
        lengths = sorted(self.lengths) or [0]
        return {
            "sites": self.sites, "tasks": self.tasks, "families": dict(sorted(self.families.items())),
            "kinds": dict(sorted(self.kinds.items())), "difficulty": dict(sorted(self.difficulty.items())),
            "certificate_length": {"min": lengths[0], "median": lengths[len(lengths) // 2], "max": lengths[-1],
                                   "mean": round(sum(lengths) / len(lengths), 2)},
            "page_graph_classes": len(self.graph_classes),
            "skeletons_per_family": {f: len(s) for f, s in sorted(self.skeletons.items())},
            "vocabulary_overlap": round(self.vocabulary_overlap(), 3),
        }


def corpus_stats(sites: Iterable[Site]) -> dict[str, DomainStats]:
    """Statistics per domain."""
    stats: dict[str, DomainStats] = defaultdict(DomainStats)
    for site in sites:
        stats[site.domain].add(site)
    return dict(sorted(stats.items()))


def corpus_dir_stats(directory: str | os.PathLike[str], *, workers: int | None = None,
                     progress: bool = False) -> dict[str, DomainStats]:
    """:func:`corpus_stats` of a corpus directory, its sites read and measured in processes
    (all cores by default), with a progress bar; the same result as one process gives.

    Raises:
        VeriwebError: not a corpus directory, or a site file does not load.
    """
    from veriweb.generate.corpus import read_corpus, run_jobs

    _, files = read_corpus(directory)
    parts = run_jobs([(str(path),) for path in files], _site_file_stats, workers=workers, progress=progress,
                     label="measuring")
    stats: dict[str, DomainStats] = defaultdict(DomainStats)
    for one in parts:
        stats[one.domain].merge(one)
    return dict(sorted(stats.items()))


def format_stats(stats: dict[str, DomainStats]) -> str:
    """A readable table of :func:`corpus_stats`."""
    lines = []
    for domain, ds in stats.items():
        d = ds.as_dict()
        cl = d["certificate_length"]
        skel = d["skeletons_per_family"]
        lines.append(f"{domain}: {d['sites']} sites, {d['tasks']} tasks; page-graph classes {d['page_graph_classes']}; "
                     f"label vocabulary overlap {d['vocabulary_overlap']:.0%}")
        lines.append(f"  kinds       {d['kinds']}")
        lines.append(f"  difficulty  {d['difficulty']}")
        lines.append(f"  certificate length min {cl['min']}, median {cl['median']}, mean {cl['mean']}, max {cl['max']}")
        lines.append("  families    " + ", ".join(f"{f} {n} ({skel.get(f, 0)} skeletons)"
                                                  for f, n in d["families"].items()))
    return "\n".join(lines)
