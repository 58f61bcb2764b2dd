"""C006's repair formats only the amounts of a text, never a count beside them."""

from __future__ import annotations

import copy
import re

from veriweb.generate.site import generate_site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import static_issues
from veriweb.verify.repair import repair_static
from veriweb.verify.repair_links import json_dicts


def test_a_count_beside_an_amount_keeps_its_format() -> None:
    shop = generate_site("shop", 1)
    data = copy.deepcopy(to_data(shop))
    data.pop("id", None)
    text = next(n for n in json_dicts(data["pages"]) if n.get("type") == "text"
                and "|money}" in str(n.get("text")) and re.search(r"\{row\.\w+\}", str(n.get("text"))))
    shown = text["text"]
    text["text"] = shown.replace("|money}", "}")
    site = from_data(data, check_id=False)
    assert "C006" in {i.code for i in static_issues(site)}
    fixed, log, _, left, _ = repair_static(site)
    assert [i for i in left if i.code == "C006"] == []
    texts = {n.get("text") for n in json_dicts(to_data(fixed)["pages"]) if n.get("type") == "text"}
    assert shown in texts, [r.change for r in log if r.code == "C006"]
