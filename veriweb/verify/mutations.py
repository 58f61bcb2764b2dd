"""Out-of-model mutations: hand-written defect variants, independent of the raw-mode injector.

Each :class:`Variant` edits a clean site's JSON data in place the way a person or a one-pass
author might break it, differently from :mod:`veriweb.verify.injectors` (a typo in a route's
fixed segment rather than a made-up page, a foreign key left dangling by deleting the parent
row rather than by rewriting the child, a guard on the wrong parameter rather than no guard).
An edit returns the JSON path of what it broke, or ``None`` when the site offers nothing to
break that way. ``bench/outmodel_bench.py`` applies every variant to clean sites and reports
which check code finds it, and where; the checks never see this module.

The edits live in :mod:`veriweb.verify.mutations_data` (pages, forms, values, headings, tasks) and
:mod:`veriweb.verify.mutations_logic` (labels, keys, totals, guards, constraints); the readers
they share in :mod:`veriweb.verify.mutation_walk`.
"""

from __future__ import annotations

from dataclasses import dataclass

from veriweb.verify.mutation_walk import Edit
from veriweb.verify.mutations_data import (
    answer_unshown_column, date_other_format, empty_list_filter, field_renamed, form_arg_other_table,
    goal_sql_unknown_column, goal_unknown_column, heading_bare_template, heading_lorem, heading_mustache,
    heading_stub, heading_todo, hidden_stale_id, link_param_other_table, money_with_unit, nav_label_other_page,
    real_as_text, route_typo_fixed, route_typo_row, select_missing_rows, self_linked_orphan, task_slot_near_miss,
)
from veriweb.verify.mutations_logic import (
    constraint_forbids_page, constraint_weaker_goal, counter_guard_other_column, date_guard_wrong_param,
    delete_label_on_update, delete_parent_row, duplicate_natural_key, line_changed_not_total, line_price_differs,
    missing_primary_key, no_date_guard, opposite_label, param_set_unbounded, total_ignores_quantity,
    undeclared_dangling,
)


@dataclass(frozen=True)
class Variant:
    """One way of breaking a site.

    Attributes:
        name: short id of the variant.
        cls: the defect class it belongs to (structural, semantic, consistency, feasibility).
        what: what the edit does, for the report.
        edit: edits the data in place; returns the JSON path of the defect, or ``None``.
        dynamic: whether only the engine (a search) can be expected to find it.
    """

    name: str
    cls: str
    what: str
    edit: Edit
    dynamic: bool = False


VARIANTS: list[Variant] = [
    Variant("route_typo_fixed", "structural", "fixed link, typo in a static route segment", route_typo_fixed),
    Variant("route_typo_row", "structural", "row link, typo in a static route segment", route_typo_row),
    Variant("link_param_other_table", "structural", "row link passes another table's foreign key",
            link_param_other_table),
    Variant("nav_label_other_page", "semantic", "layout link named like another page", nav_label_other_page),
    Variant("self_linked_orphan", "structural", "page linked only from itself", self_linked_orphan),
    Variant("field_renamed", "structural", "field and argument renamed: no parameter, required one unfilled",
            field_renamed),
    Variant("select_missing_rows", "structural", "select offering ids missing from the marker's table",
            select_missing_rows),
    Variant("hidden_stale_id", "structural", "form posts a fixed id of a row that does not exist", hidden_stale_id),
    Variant("form_arg_other_table", "structural", "form posts another table's key where its marker wants "
            "the record's", form_arg_other_table),
    Variant("money_with_unit", "semantic", "money value '12.50 USD'", money_with_unit),
    Variant("number_as_text", "semantic", "number with a unit as text ('4.5 stars')", real_as_text),
    Variant("date_other_format", "semantic", "date as DD/MM/YYYY", date_other_format),
    Variant("heading_lorem", "semantic", "heading 'Lorem ipsum dolor'", heading_lorem),
    Variant("heading_todo", "semantic", "heading 'TODO: write heading'", heading_todo),
    Variant("heading_mustache", "semantic", "heading '{{title}}'", heading_mustache),
    Variant("heading_bare_template", "semantic", "heading '{page_title}'", heading_bare_template),
    Variant("heading_stub", "semantic", "heading 'Page title here'", heading_stub),
    Variant("empty_list_filter", "semantic", "list filtered on a misspelt fixed value no row has",
            empty_list_filter),
    Variant("slot_near_miss", "semantic", "task slot one typo from the record it names", task_slot_near_miss),
    Variant("answer_unshown_column", "semantic", "retrieve answer from a column no page shows",
            answer_unshown_column),
    Variant("goal_unknown_column", "structural", "goal condition on a column that does not exist",
            goal_unknown_column),
    Variant("goal_sql_unknown_column", "structural", "SQL goal naming a column that does not exist",
            goal_sql_unknown_column),
    Variant("delete_label_on_update", "semantic", "'Delete' on an update-only, non-destructive marker",
            delete_label_on_update),
    Variant("opposite_label", "semantic", "an adding form labelled like the removing one", opposite_label),
    Variant("delete_parent_row", "consistency", "parent row deleted, children dangle", delete_parent_row),
    Variant("undeclared_dangling", "consistency", "undeclared NAME_id points at no row", undeclared_dangling),
    Variant("duplicate_natural_key", "consistency", "two rows share a username/sku/email/... not declared unique",
            duplicate_natural_key),
    Variant("missing_primary_key", "consistency", "seed row without a primary key", missing_primary_key),
    Variant("line_changed_not_total", "consistency", "a line's quantity changed, its order total not",
            line_changed_not_total),
    Variant("line_price_differs", "consistency", "a line's price differs from its product's, total agrees",
            line_price_differs),
    Variant("total_ignores_quantity", "consistency", "booking total = one unit's price for several",
            total_ignores_quantity),
    Variant("counter_guard_other_column", "consistency", "decrement guarded by a check on another column",
            counter_guard_other_column),
    Variant("param_set_unbounded", "consistency", "count set from a parameter with no lower bound or check",
            param_set_unbounded),
    Variant("date_guard_wrong_param", "consistency", "date guard orders the dates, never compares with today",
            date_guard_wrong_param),
    Variant("no_date_guard", "consistency", "booking marker with no date guard", no_date_guard),
    Variant("constraint_weaker_goal", "feasibility", "constraint forbids any row like the goal's",
            constraint_weaker_goal),
    Variant("constraint_forbids_page", "feasibility", "constraint forbids the only page with the goal's form",
            constraint_forbids_page, dynamic=True),
]
"""Every variant, in report order."""

EXPECTED: dict[str, str] = {
    "route_typo_fixed": "S001", "route_typo_row": "S001", "link_param_other_table": "S011",
    "nav_label_other_page": "M014", "self_linked_orphan": "S002", "field_renamed": "S004",
    "select_missing_rows": "S015", "hidden_stale_id": "S015", "form_arg_other_table": "S011",
    "money_with_unit": "M004", "number_as_text": "M004", "date_other_format": "M004", "heading_lorem": "M001",
    "heading_todo": "M001", "heading_mustache": "M001", "heading_bare_template": "M001", "heading_stub": "M001",
    "empty_list_filter": "M015", "slot_near_miss": "M005", "answer_unshown_column": "M013",
    "goal_unknown_column": "S006", "goal_sql_unknown_column": "S006", "delete_label_on_update": "M003",
    "opposite_label": "M003", "delete_parent_row": "C001", "undeclared_dangling": "C001",
    "duplicate_natural_key": "C002", "missing_primary_key": "C003", "line_changed_not_total": "C004",
    "line_price_differs": "C006", "total_ignores_quantity": "C004", "counter_guard_other_column": "C005",
    "param_set_unbounded": "C005", "date_guard_wrong_param": "C005", "no_date_guard": "C005",
    "constraint_weaker_goal": "C007", "constraint_forbids_page": "C007",
}
"""The check code each variant belongs to (the one that should report it)."""

__all__ = ["EXPECTED", "VARIANTS", "Variant"]
