"""The engine: SQLite state, deterministic UI transitions, markers, predicates, pages and renderers."""

from __future__ import annotations

from veriweb.engine.episode import Episode, Outcome
from veriweb.engine.judge import Judge, Progress
from veriweb.engine.page import Node, PageModel
from veriweb.engine.render import axtree_text, element_list, html_page
from veriweb.engine.session import Session, StepResult

__all__ = [
    "Episode", "Judge", "Node", "Outcome", "PageModel", "Progress", "Session", "StepResult", "axtree_text",
    "element_list", "html_page",
]
