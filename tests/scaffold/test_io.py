"""Tests of scaffold I/O: canonical JSON, content-hash ids, errors that name the JSON path, and the CLI on bad files."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veriweb.cli import example_path, main
from veriweb.errors import ScaffoldError
from veriweb.scaffold import Site, dumps, from_data, io, load, loads, save, site_id
from veriweb.scaffold.io import identify

EXAMPLE = example_path()
TEXT = EXAMPLE.read_text(encoding="utf-8")
DATA: dict[str, Any] = json.loads(TEXT)
ID = DATA["id"]

Keys = tuple[str | int, ...]


def edited(edit: Callable[[dict[str, Any]], Any]) -> Any:
    """A deep copy of the example's data after ``edit`` (whose non-``None`` result replaces it)."""
    data = copy.deepcopy(DATA)
    result = edit(data)
    return data if result is None else result


def setting(path: Keys, value: Any) -> Callable[[dict[str, Any]], None]:
    """An edit that sets the node at ``path`` to ``value``."""
    def edit(data: dict[str, Any]) -> None:
        node: Any = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return edit


def deleting(path: Keys) -> Callable[[dict[str, Any]], None]:
    """An edit that deletes the node at ``path``."""
    def edit(data: dict[str, Any]) -> None:
        node: Any = data
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return edit


# ----------------------------------------------------------------------------- canonical form and ids


def test_the_example_loads_and_is_canonical() -> None:
    site = load(EXAMPLE)
    assert isinstance(site, Site) and site.name == "Threadline"
    assert dumps(site) == TEXT
    assert site.id == site_id(site) == ID
    assert loads(TEXT).id == ID


def test_layout_and_key_order_do_not_change_the_id() -> None:
    reordered = json.dumps(dict(reversed(list(DATA.items()))), indent=4)
    site = loads(reordered)
    assert site.id == ID and dumps(site) == TEXT
    # a field written out at its default value is the same content
    assert from_data(edited(setting(("pages", 0, "requires_login"), False))).id == ID
    # and a site without an id is given its content hash
    assert from_data(edited(deleting(("id",)))).id == ID


@pytest.mark.parametrize(
    "edit",
    [
        setting(("name",), "Threadline Outlet"),
        setting(("database", "tables", 1, "rows", 0, "price"), 3500),
        setting(("pages", 2, "title"), "Browse {row.name}"),
        setting(("markers", 1, "effects", 0, "sql"), "DELETE FROM cart_items WHERE id = :item_id"),
        setting(("tasks", 0, "max_steps"), 41),
        setting(("clock",), {"today": "2026-06-16"}),
        deleting(("tasks", 10)),
    ],
    ids=["name", "seed-row", "page-title", "effect-sql", "task-budget", "clock", "task-removed"],
)
def test_the_id_changes_with_any_content(edit: Callable[[dict[str, Any]], None]) -> None:
    site = from_data(edited(edit), check_id=False)
    assert site.id != ID
    assert site.id == site_id(site)
    assert loads(dumps(site)).id == site.id  # the new file is self-consistent


def test_a_tampered_id_is_refused() -> None:
    with pytest.raises(ScaffoldError) as caught:
        from_data(edited(setting(("id",), "site-0000000000000000")))
    assert caught.value.path == "$.id"
    assert "does not match the content hash" in caught.value.detail and "veriweb fmt" in caught.value.detail


def test_edited_content_under_an_old_id_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "shop.json"
    file.write_text(json.dumps(edited(setting(("name",), "Threadline Outlet"))), encoding="utf-8")
    with pytest.raises(ScaffoldError) as caught:
        load(file)
    assert caught.value.path == "$.id" and caught.value.source == str(file)
    assert str(caught.value).startswith(f"{file}: $.id: id {ID!r} does not match the content hash")


def test_save_writes_the_canonical_file(tmp_path: Path) -> None:
    site = load(EXAMPLE)
    target = save(site, tmp_path / "copy.json")
    assert target.read_text(encoding="utf-8") == TEXT
    assert [p.name for p in tmp_path.iterdir()] == ["copy.json"]  # no temporary file left behind


def reference_file(site: Site) -> tuple[str, str]:
    """The id and file text of ``site`` as the standard library writes them (the definition of the format)."""
    data = io.to_data(site)
    data.pop("id", None)
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    data["id"] = "site-" + hashlib.sha256(canonical.encode()).hexdigest()[:16]
    return data["id"], json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


ODD_VALUES = [1e-5, -7.885664913738635e-05, 0.0001, 1e16, -1.7976931348623157e308, 5e-324, 123456789012345.0, -0.0,
              2**63, 2**64, 2**80, -(2**70), "\u2028\u2029\x7f\x00\x1f\ufeff\U0001f600 é \\ \" / \n\t"]


@pytest.mark.parametrize("value", ODD_VALUES, ids=[repr(v)[:24] for v in ODD_VALUES])
@pytest.mark.parametrize("fast", [True, False], ids=["orjson", "stdlib"])
def test_the_file_is_the_standard_librarys_bytes_whatever_the_values(value: Any, fast: bool,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    if not fast:
        monkeypatch.setattr(io, "orjson", None)
    site = from_data(edited(setting(("database", "tables", 1, "rows", 0, "description"), value)), check_id=False)
    ident, text = reference_file(site)
    assert site.id == site_id(site) == ident != ID
    assert dumps(site) == text
    assert identify(site) == (site, text)
    assert loads(text) == site


@pytest.mark.parametrize("data", [1e-5, -1e16, 0.5, 7, "e5", [1e-7, "1e-7"], {"a": [{"b": 1.5e300}]}, {"0.00001": 0.0001},
                                  [2**64, -(2**63) - 1], {"k": "\\\"1e5\\"}, None, True])
def test_canonical_json_is_the_standard_librarys_for_any_json_value(data: Any) -> None:
    assert io.canonical_json(data) == json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                                 st.text()), min_size=1, max_size=6))
def test_random_values_give_the_standard_librarys_bytes(values: list[Any]) -> None:
    def edit(data: dict[str, Any]) -> None:
        for number, value in enumerate(values):
            data["database"]["tables"][1]["rows"][number]["description"] = value

    try:
        site = from_data(edited(edit), check_id=False)
    except ScaffoldError:
        return  # a value the scaffold refuses (a lone surrogate is still a str: it is kept)
    ident, text = reference_file(site)
    assert site.id == ident and dumps(site) == text


def test_an_unpaired_surrogate_is_a_scaffold_error_naming_where() -> None:
    with pytest.raises(ScaffoldError) as caught:
        loads(json.dumps(edited(setting(("database", "tables", 1, "rows", 2, "description"), "ok \ud800"))))
    assert caught.value.path == "$.database.tables[1].rows[2].description"
    assert "unpaired surrogate" in caught.value.detail


def test_identify_gives_the_id_and_the_file_from_one_dump() -> None:
    site = load(EXAMPLE)
    unnamed = site.model_copy(update={"id": ""})
    named, text = identify(unnamed)
    assert named.id == ID and text == TEXT and named == site


@pytest.mark.parametrize(
    ("content", "says"),
    [(None, "no such file"), (b"\xff\xfe{", "cannot read")],
    ids=["missing", "not-utf8"],
)
def test_unreadable_files_are_scaffold_errors(tmp_path: Path, content: bytes | None, says: str) -> None:
    file = tmp_path / "site.json"
    if content is not None:
        file.write_bytes(content)
    with pytest.raises(ScaffoldError, match=says):
        load(file)


# ----------------------------------------------------------------------------- malformed scaffolds


def bad(name: str, text: str | Callable[[dict[str, Any]], Any], path: str, says: str, **marks: Any) -> Any:
    """One row: the example with one edit (or raw ``text``) fails at ``path`` with ``says`` in the message."""
    return pytest.param(text, path, says, id=name, **marks)


SELECT_OPTION = ("pages", 3, "elements", 0, "elements", 4, "tabs", 1, "elements", 0, "fields", 0, "options", 0)

MALFORMED = [
    # --- wrong types, deep and shallow
    bad("heading-level-not-int", setting(("pages", 0, "elements", 0, "level"), "one"),
        "$.pages[0].elements[0].level", "valid integer"),
    bad("option-value-not-str-deep", setting((*SELECT_OPTION, "value"), 5),
        "$.pages[3].elements[0].elements[4].tabs[1].elements[0].fields[0].options[0].value", "valid string"),
    bad("element-is-a-string", setting(("pages", 9, "elements", 1), "hello"),
        "$.pages[9].elements[1]", "valid dictionary"),
    bad("pages-not-a-list", setting(("pages",), {"home": {}}), "$.pages", "valid list"),
    bad("clock-bad-date", setting(("clock",), {"today": "2026-13-01"}), "$.clock.today", "valid date"),
    # --- unknown union tags name the tag key and list what is allowed
    bad("unknown-element-type", setting(("pages", 4, "elements", 1, "type"), "carousel"),
        "$.pages[4].elements[1].type", "expected one of 'heading', 'text'"),
    bad("element-without-type", deleting(("pages", 9, "elements", 2, "type")),
        "$.pages[9].elements[2].type", "needs a 'type' key"),
    bad("unknown-predicate-kind", setting(("tasks", 3, "goal", 0, "kind"), "exist"),
        "$.tasks[3].goal[0].kind", "expected one of 'compare', 'exists'"),
    bad("unknown-form-action", setting(("pages", 0, "elements", 2, "action", "kind"), "submit"),
        "$.pages[0].elements[2].action.kind", "expected one of 'marker', 'navigate'"),
    bad("unknown-field-type", setting(("pages", 0, "elements", 2, "fields", 0, "type"), "slider"),
        "$.pages[0].elements[2].fields[0].type", "expected one of 'textbox'"),
    # --- missing and unknown keys
    bad("missing-page-title", deleting(("pages", 2, "title")), "$.pages[2].title", "required field is missing"),
    bad("missing-site-name", deleting(("name",)), "$.name", "required field is missing"),
    bad("missing-effect-sql", deleting(("markers", 1, "effects", 0, "sql")),
        "$.markers[1].effects[0].sql", "required field is missing"),
    bad("unknown-key-in-page", setting(("pages", 2, "colour"), "red"), "$.pages[2].colour", "unknown field"),
    bad("unknown-key-at-top", setting(("bogus",), 1), "$.bogus", "unknown field"),
    bad("misspelt-auth-key", setting(("auth",), {"tabel": "users"}), "$.auth.tabel", "unknown field"),
    # --- identifiers, patterns, enums and bounds
    bad("column-starts-with-digit", setting(("database", "tables", 1, "columns", 2, "name"), "2category"),
        "$.database.tables[1].columns[2].name", "letters, digits and underscores"),
    bad("column-carries-sql", setting(("database", "tables", 1, "columns", 2, "name"), 'id" TEXT); DROP TABLE x; --'),
        "$.database.tables[1].columns[2].name", "letters, digits and underscores"),
    bad("unknown-column-type", setting(("database", "tables", 1, "columns", 2, "type"), "varchar"),
        "$.database.tables[1].columns[2].type", "'integer', 'real', 'text'"),
    bad("marker-name-with-dash", setting(("markers", 0, "name"), "add-to-cart"),
        "$.markers[0].name", "letters, digits and underscores"),
    bad("route-without-slash", setting(("pages", 2, "route"), "category/{id:int}"),
        "$.pages[2].route", "pattern '^/'"),
    bad("start-url-without-slash", setting(("tasks", 0, "start_url"), "login"),
        "$.tasks[0].start_url", "pattern '^/'"),
    bad("negative-page-size", setting(("pages", 1, "elements", 2, "page_size"), -1),
        "$.pages[1].elements[2].page_size", "greater than or equal to 1"),
    bad("huge-page-size", setting(("pages", 1, "elements", 2, "page_size"), 501),
        "$.pages[1].elements[2].page_size", "less than or equal to 500"),
    bad("query-limit-zero", setting(("pages", 0, "elements", 6, "query", "limit"), 0),
        "$.pages[0].elements[6].query.limit", "greater than or equal to 1"),
    bad("order-direction", setting(("pages", 0, "elements", 4, "query", "order_by", 0, "dir"), "up"),
        "$.pages[0].elements[4].query.order_by[0].dir", "'asc' or 'desc'"),
    bad("no-pages", setting(("pages",), []), "$.pages", "at least 1 item"),
    bad("marker-without-effects", setting(("markers", 0, "effects"), []), "$.markers[0].effects", "at least 1 item"),
    bad("ref-unknown-namespace", setting(("tasks", 3, "goal", 0, "query", "where", 0, "value"), {"ref": "session.id"}),
        "$.tasks[3].goal[0].query.where[0].value.ref", "NAMESPACE one of param, query"),
    # --- task consistency (a model check: the path is the task)
    bad("instruction-mismatch",
        setting(("tasks", 3, "instruction"), "Add 3 of the Red Flannel Shirt in size L to your cart."),
        "$.tasks[3]", "instruction must equal the template rendered with the slots: 'Add 2 of the Red"),
    bad("template-slot-missing", setting(("tasks", 0, "slots"), {"username": "alice"}),
        "$.tasks[0]", "slots has no 'password'"),
    bad("retrieve-without-answer", deleting(("tasks", 1, "answer")), "$.tasks[1]", "needs an 'answer' spec"),
    bad("mutate-without-goal", setting(("tasks", 3, "goal"), []), "$.tasks[3]", "at least one goal predicate"),
    # --- the document itself
    bad("schema-version-2", setting(("schema_version",), "2"), "$.schema_version", "is not supported"),
    bad("schema-version-number", setting(("schema_version",), 1), "$.schema_version", "is not supported"),
    bad("not-an-object", lambda data: [data], "$", "must be a JSON object holding a site, got list"),
    bad("null-document", "null", "$", "got NoneType"),
    bad("invalid-json", TEXT[:-3], "$", "not valid JSON"),
    bad("empty-text", "", "$", "not valid JSON: Expecting value at line 1, column 1"),
    bad("single-quotes", "{'name': 'x'}", "$", "not valid JSON: Expecting property name"),
    # --- known bugs: a union tag equal to a key (text, tabs, sql) or a union member's label ends up in the path
    bad("text-element-text-not-str", setting(("pages", 9, "elements", 1, "text"), 5),
        "$.pages[9].elements[1].text", "valid string"),
    bad("empty-tab-set", setting(("pages", 3, "elements", 0, "elements", 4, "tabs"), []),
        "$.pages[3].elements[0].elements[4].tabs", "at least 1 item"),
    bad("empty-sql-predicate", setting(("tasks", 3, "goal", 0), {"kind": "sql", "sql": ""}),
        "$.tasks[3].goal[0].sql", "at least 1 character"),
    bad("seed-value-is-an-object", setting(("database", "tables", 0, "rows", 0, "name"), {"a": 1}),
        "$.database.tables[0].rows[0].name", "valid string"),
]


def test_malformed_table_is_large() -> None:
    assert len(MALFORMED) >= 20
    assert len({row.id for row in MALFORMED}) == len(MALFORMED)


@pytest.mark.parametrize(("mutation", "path", "says"), MALFORMED)
def test_malformed_scaffolds_name_the_path_and_what_was_expected(
    mutation: str | Callable[[dict[str, Any]], Any], path: str, says: str
) -> None:
    text = mutation if isinstance(mutation, str) else json.dumps(edited(mutation))
    with pytest.raises(ScaffoldError) as caught:
        loads(text)
    assert caught.value.path == path
    assert says in caught.value.detail
    assert str(caught.value) == f"{path}: {caught.value.detail}"


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_numbers_are_scaffold_errors(constant: str) -> None:
    text = TEXT.replace('"name": "Shirts"', f'"name": {constant}', 1)
    with pytest.raises(ScaffoldError) as caught:
        loads(text)
    assert caught.value.path == "$.database.tables[0].rows[0].name"


def test_absurdly_nested_json_is_a_scaffold_error() -> None:
    with pytest.raises(ScaffoldError, match="nests too deeply"):
        loads("[" * 100_000 + "]" * 100_000)


# ----------------------------------------------------------------------------- random mutations


def _paths(node: Any, prefix: Keys = ()) -> list[Keys]:
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    found: list[Keys] = []
    for key, child in children:
        found.append((*prefix, key))
        found.extend(_paths(child, (*prefix, key)))
    return found


PATHS = _paths(DATA)
DEPTHS = sorted({len(p) for p in PATHS})
BY_DEPTH = {depth: [p for p in PATHS if len(p) == depth] for depth in DEPTHS}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


def json_type(value: Any) -> str:
    """The JSON type of a value (``bool`` apart from numbers)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {type(None): "null", str: "string", list: "array", dict: "object"}[type(value)]


@st.composite
def mutated(draw: st.DrawFn) -> Any:
    """The example's data with one to three random deletions or type changes, at random depths."""
    data = copy.deepcopy(DATA)
    if draw(st.booleans()):
        del data["id"]  # let valid mutations through to a Site instead of an id mismatch
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(BY_DEPTH[draw(st.sampled_from(DEPTHS))]))
        parent: Any = data
        try:
            for key in path[:-1]:
                parent = parent[key]
            current = parent[path[-1]]
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed this place
        if draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(json_values.filter(lambda v: json_type(v) != json_type(current)))
    return data


@settings(max_examples=150, deadline=None)
@given(data=mutated())
def test_random_mutations_give_a_site_or_a_scaffold_error(data: Any, fast: Callable[..., Any]) -> None:
    def validate() -> Site | ScaffoldError:
        try:
            return from_data(data)
        except ScaffoldError as error:
            return error

    result = fast(validate)
    if isinstance(result, ScaffoldError):
        assert result.path.startswith("$") and result.detail
    else:
        assert isinstance(result, Site) and result.id == site_id(result)


# ----------------------------------------------------------------------------- the command line


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (json.dumps(edited(setting(("pages", 4, "elements", 1, "type"), "carousel"))), "$.pages[4].elements[1].type: "),
        (json.dumps(edited(deleting(("pages", 2, "title")))), "$.pages[2].title: required field is missing"),
        (json.dumps(edited(setting(("name",), "Threadline Outlet"))), "$.id: "),
        (TEXT[:-3], "$: "),
    ],
    ids=["unknown-element-type", "missing-title", "stale-id", "invalid-json"],
)
def test_replay_of_a_bad_file_prints_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              text: str, where: str) -> None:
    file = tmp_path / "bad.json"
    file.write_text(text, encoding="utf-8")
    assert main(["replay", str(file)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"veriweb: error: {file}: {where}")
    assert "Traceback" not in captured.err


def test_schema_is_valid_draft_2020_12_and_accepts_the_example(capsys: pytest.CaptureFixture[str]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    validator.validate(DATA)
    wrong = edited(setting(("pages", 4, "elements", 1, "type"), "carousel"))
    assert not validator.is_valid(wrong)


def test_fmt_check_accepts_the_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fmt", "--check", str(EXAMPLE)]) == 0
    assert capsys.readouterr().out == f"{EXAMPLE}: canonical\n"
    assert EXAMPLE.read_text(encoding="utf-8") == TEXT


def test_fmt_check_rejects_a_reindented_copy_without_touching_it(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "shop.json"
    file.write_text(json.dumps(DATA, indent=2), encoding="utf-8")
    before = file.read_text(encoding="utf-8")
    assert main(["fmt", "--check", str(file)]) == 1
    assert "not canonical" in capsys.readouterr().out
    assert file.read_text(encoding="utf-8") == before
    assert main(["fmt", str(file)]) == 0
    assert file.read_text(encoding="utf-8") == TEXT
