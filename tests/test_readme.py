"""The README's promises hold: its two commands exist as written, and its Python example runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_opens_with_the_two_commands() -> None:
    block = re.search(r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert block is not None
    lines = [line.split("#")[0].strip() for line in block.group(1).strip().splitlines()]
    assert lines == ["pip install -e . && veriweb run", "pip install -e '.[test]' && python -m pytest"]
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert lines[1] in ci


def test_readme_python_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code = re.search(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert code is not None
    exec(compile(code.group(1), str(README), "exec"), {})  # the README's own example, as a reader runs it
    out = capsys.readouterr().out
    assert "Add 2 of the Red Flannel Shirt in size L to your cart." in out
    assert out.rstrip().endswith("0.0 0 2 None")


def test_readme_env_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 2
    exec(compile(blocks[1], str(README), "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert "|" in lines[0] and all(line.startswith("reward ") for line in lines[1:]) and len(lines) >= 2
