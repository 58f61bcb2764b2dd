"""Canonical JSON, content-hash ids, and loading scaffolds with errors that name the JSON path."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import pydantic_core
from pydantic import ValidationError

from veriweb.errors import ScaffoldError
from veriweb.scaffold.site import SCHEMA_VERSION, Site

try:  # optional: the same bytes, five times faster
    import orjson
except ImportError:  # pragma: no cover - the standard library gives the same bytes
    orjson = None  # type: ignore[assignment]

_ORJSON_OPTIONS = 0 if orjson is None else (
    orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_SUBCLASS)
# A number written in exponent form (or, by orjson, as 0.0000...): Python writes floats below 1e-4
# or from 1e16 on differently from orjson and pydantic-core, so such text takes the slow path.
_ODD_NUMBER = re.compile(rb"[:,\[]-?(?:0\.0000|[0-9.]+e)")  # a number follows one of :,[ (an "^|" costs 3x)


def _odd_numbers(out: bytes) -> bool:
    return _ODD_NUMBER.search(out) is not None or (out[:1] not in b'{["' and _ODD_NUMBER.search(b"[" + out) is not None)


def to_data(site: Site) -> dict[str, Any]:
    """The site as plain JSON data, defaults left out (so files stay small and readable)."""
    return site.model_dump(mode="json", exclude_defaults=True, by_alias=True) | {
        "schema_version": SCHEMA_VERSION,
        "name": site.name,
    }


def _stdlib_canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _canonical(data: Any) -> tuple[bytes, Any]:
    """Canonical JSON bytes of ``data``, and the parser that reads them back exactly if every number
    in them is written alike by the standard library, orjson and pydantic-core (then the file text
    may take the fast path), else ``None``."""
    if orjson is not None:
        try:
            out = orjson.dumps(data, option=_ORJSON_OPTIONS)
        except TypeError:  # a type orjson leaves to the standard library, an int past 64 bits, a surrogate
            pass
        else:
            if not _odd_numbers(out):
                return out, orjson.loads
    out = _stdlib_canonical(data).encode()
    return out, (None if _odd_numbers(out) else json.loads)  # json.loads: orjson reads ints past 64 bits as floats


def canonical_json(data: Any) -> str:
    """Canonical JSON text: sorted keys, no spaces, UTF-8 characters kept as they are."""
    return _canonical(data)[0].decode()


def _hash_id(canonical: bytes) -> str:
    return "site-" + hashlib.sha256(canonical).hexdigest()[:16]


def site_id(site: Site) -> str:
    """The content-hash id of a site: every field but ``id`` itself, canonically serialised."""
    data = to_data(site)
    data.pop("id", None)
    return _hash_id(_canonical(data)[0])


def with_id(site: Site) -> Site:
    """A copy of ``site`` whose ``id`` is its content hash."""
    return site.model_copy(update={"id": site_id(site)})


def identify(site: Site) -> tuple[Site, str]:
    """``site`` with its content-hash id, and its file text (as :func:`with_id` and :func:`dumps`,
    from one model dump)."""
    ident, text = _encode(site)
    return (site if site.id == ident else site.model_copy(update={"id": ident})), text


def dumps(site: Site) -> str:
    """The file form of a site: canonical data with its id, indented for diffs, newline-terminated."""
    return _encode(site)[1]


def _encode(site: Site) -> tuple[str, str]:
    """The content-hash id of ``site`` and its file text.

    The file text is ``json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False)``. The
    standard library's indented writer is pure Python (about 45 ms for a generated site), so the
    canonical bytes, whose keys are already sorted, are parsed back and re-encoded with
    pydantic-core's indented writer, which gives the same bytes whenever every number is written
    alike (checked on the canonical text; otherwise the standard library writes the file).
    """
    data = to_data(site)
    data.pop("id", None)
    canonical, parse = _canonical(data)
    ident = _hash_id(canonical)
    if parse is not None:
        ordered = parse(canonical)
        ordered["id"] = ident
        ordered = {key: ordered[key] for key in sorted(ordered)}
        text = pydantic_core.to_json(ordered, indent=1).decode()
    else:
        data["id"] = ident
        text = json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False)
    return ident, text + "\n"


def save(site: Site, path: str | os.PathLike[str]) -> Path:
    """Write ``site`` to ``path`` atomically (a temporary file renamed into place)."""
    return save_text(dumps(site), path)


def save_text(text: str, path: str | os.PathLike[str]) -> Path:
    """Write a site's file ``text`` (from :func:`dumps` or :func:`identify`) to ``path`` atomically."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def json_path(loc: tuple[Any, ...], data: Any, error_type: str | None = None) -> str:
    """Turn a pydantic error location into a JSON path of the document.

    Pydantic puts a discriminated union's tag (``'link'``) right after the step into the tagged
    object, and union branch labels (``'str'``, ``'Ref'``) where a value matched no branch; neither
    is part of the document. A last key that is not there is named only for a missing field.
    """
    path = "$"
    node = data
    tag_pending = False
    for index, part in enumerate(loc):
        last = index == len(loc) - 1
        if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            path += f"[{part}]"
            node = node[part]
            tag_pending = isinstance(node, dict)
            continue
        if isinstance(node, dict) and isinstance(part, str):
            if tag_pending and part in (node.get("type"), node.get("kind")):
                tag_pending = False  # the union's tag, not a key
                continue
            if part in node:
                path += f".{part}"
                node = node[part]
                tag_pending = isinstance(node, dict)
                continue
            if last and error_type == "missing":
                path += f".{part}"
        tag_pending = False
        # otherwise: a union branch label, not part of the document
    return path


def _describe(error: dict[str, Any]) -> str:
    kind = error.get("type", "")
    message = str(error.get("msg", "invalid value"))
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return "unknown field (check its spelling; unknown fields are not allowed)"
    if kind == "union_tag_invalid":
        ctx = error.get("ctx", {})
        return f"{ctx.get('discriminator', 'type')} is {ctx.get('tag')!r}; expected one of {ctx.get('expected_tags')}"
    if kind == "union_tag_not_found":
        ctx = error.get("ctx", {})
        return f"needs a {ctx.get('discriminator', 'type')} key that says what this is"
    if message.startswith("Value error, "):
        message = message[len("Value error, "):]
    got = error.get("input")
    if kind not in ("value_error", "assertion_error") and not isinstance(got, (dict, list)):
        message += f" (got {json.dumps(got, default=str)[:60]})"
    return message


def from_data(data: Any, *, source: str = "scaffold", check_id: bool = True) -> Site:
    """Validate JSON data as a site.

    Raises:
        ScaffoldError: naming the JSON path of the first problems and what was expected.
    """
    if not isinstance(data, dict):
        raise ScaffoldError(f"{source} must be a JSON object holding a site, got {type(data).__name__}")
    version = data.get("schema_version", SCHEMA_VERSION)
    if isinstance(version, (int, float)) and str(version) == SCHEMA_VERSION:
        raise ScaffoldError(f"schema_version {version!r} (a number) is not supported: write it as the string "
                            f"\"{SCHEMA_VERSION}\"", path="$.schema_version")
    if version != SCHEMA_VERSION:
        raise ScaffoldError(
            f"schema_version {version!r} is not supported by this veriweb (it reads {SCHEMA_VERSION!r})",
            path="$.schema_version",
        )
    try:
        site = Site.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        first = errors[0]
        tag = (first["ctx"]["discriminator"].strip("'"),) if first["type"].startswith("union_tag_") else ()
        # a bad or absent union tag is reported at its "type"/"kind" key
        path = json_path(tuple(first["loc"]) + tag, data, "missing" if tag else first["type"])
        more = "" if len(errors) == 1 else f" (and {len(errors) - 1} more problem(s); fix this one first)"
        raise ScaffoldError(f"{_describe(first)}{more}", path=path) from None
    try:
        expected = site_id(site)
    except UnicodeEncodeError:
        raise ScaffoldError("a string holds an unpaired surrogate (such as \\ud800), which is not text and "
                            "cannot be written as UTF-8; remove it or write the whole character",
                            path=_surrogate_path(data) or "$") from None
    if check_id and site.id and site.id != expected:
        raise ScaffoldError(
            f"id {site.id!r} does not match the content hash {expected!r}; the file was edited "
            "by hand: run `veriweb fmt FILE` to re-hash it, or remove the id",
            path="$.id",
        )
    return site if site.id == expected else site.model_copy(update={"id": expected})


def _surrogate_path(node: Any, path: str = "$") -> str | None:
    """The JSON path of the first string (or key) that holds an unpaired surrogate."""
    if isinstance(node, str):
        return path if any("\ud800" <= char <= "\udfff" for char in node) else None
    if isinstance(node, list):
        return next((found for i, item in enumerate(node) if (found := _surrogate_path(item, f"{path}[{i}]"))), None)
    if isinstance(node, dict):
        for key, value in node.items():
            found = _surrogate_path(key, f"{path}.{key}") or _surrogate_path(value, f"{path}.{key}")
            if found:
                return found
    return None


def loads(text: str, *, source: str = "scaffold") -> Site:
    """Parse and validate a site from JSON text."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScaffoldError(
            f"{source} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    except RecursionError:
        raise ScaffoldError(f"{source} nests too deeply to be a site scaffold") from None
    return from_data(data, source=source)


def load(path: str | os.PathLike[str]) -> Site:
    """Load a site from a JSON file.

    Raises:
        ScaffoldError: the file is missing, unreadable, not JSON, or not a valid site.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScaffoldError(f"no such file: {file}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScaffoldError(f"cannot read {file}: {exc}") from None
    try:
        return loads(text, source=str(file))
    except ScaffoldError as exc:
        raise ScaffoldError(exc.detail, path=exc.path, source=str(file)) from None


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a site scaffold."""
    schema = Site.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = f"veriweb site scaffold, schema version {SCHEMA_VERSION}"
    return schema
