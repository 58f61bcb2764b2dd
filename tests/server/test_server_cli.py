"""``veriweb serve``: starts on 127.0.0.1, prints the addresses and the token, serves every site."""

from __future__ import annotations

import subprocess
import sys
import time

import httpx

from veriweb.server.cli import main


def test_serve_prints_the_url_and_token_and_serves() -> None:
    with subprocess.Popen([sys.executable, "-m", "veriweb.server.cli", "serve", "--port", "0"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as process:
        _check_serving(process)


def _check_serving(process: subprocess.Popen[str]) -> None:
    try:
        assert process.stdout is not None
        lines = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            lines.append(line)
            if line.startswith("control API token:") or not line:
                break
        text = "".join(lines)
        base = text.split(" at ")[1].split()[0].rstrip("/")
        token = lines[-1].split(":", 1)[1].strip()
        assert base.startswith("http://127.0.0.1:") and token
        assert f"{base}/s/threadline/" in text and "press Start" in text
        index = httpx.get(base + "/")
        assert index.status_code == 200 and "Start" in index.text
        sessions = httpx.get(base + "/api/sessions", headers={"Authorization": f"Bearer {token}"})
        assert sessions.status_code == 200
        assert httpx.get(base + "/api/sessions").status_code == 401
    finally:
        process.terminate()
        process.wait(timeout=20)


def test_serve_refuses_bad_input_with_exit_code_2(capsys, tmp_path) -> None:
    assert main(["serve", "--port", "70000"]) == 2
    assert "--port must be" in capsys.readouterr().err
    assert main(["serve", str(tmp_path / "missing.json")]) == 2
    assert "veriweb: error:" in capsys.readouterr().err
