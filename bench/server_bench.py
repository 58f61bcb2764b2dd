"""Serving speed: page requests per second over loopback, and browser step and reset latency in Chromium.

Run: ``python bench/server_bench.py`` (``--seconds``, ``--sessions``, ``--steps`` change the
workload). Three figures, each against the issue's aim and, where one exists, a peer measured
on this kind of machine (BrowserGym with its defaults: about 1 s a step and 3 s a reset;
MiniWoB++: about 50 ms a reset):

1. Page requests per second: ``veriweb serve`` in its own process on 127.0.0.1, and 8
   concurrent browser sessions (cookies) each requesting site pages over keep-alive
   connections (home, category, product, search, about in turn). Aim: at least 500.
2. Browser step latency: Playwright clicks an element in headless Chromium, then the
   accessibility tree is read (CDP ``Accessibility.getFullAXTree``), as an agent's step does.
   Clicks that stay on the page (tabs, menus) and clicks that load a page are both counted.
   Aim: median under 50 ms.
3. Browser reset latency: the control API resets the session to a task, and Chromium loads
   the task's start page. Aim: under 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time

BROWSERGYM_STEP_S = 1.0
BROWSERGYM_RESET_S = 3.0
MINIWOB_RESET_S = 0.050
PAGES = ("/", "/category/1", "/product/3", "/search?q=shirt", "/about", "/category/2?list_sort=price_asc")


# ----------------------------------------------------------------------------- the server process


def start_server(token: str) -> tuple[subprocess.Popen[str], str]:
    """``veriweb serve`` on a free port in its own process; its base URL once it listens."""
    process = subprocess.Popen([sys.executable, "-m", "veriweb.server.cli", "serve", "--port", "0", "--token", token,
                                "--no-task-picker"], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    deadline = time.monotonic() + 60
    for line in process.stdout:
        if "serving" in line:
            return process, line.split(" at ")[1].strip().rstrip("/")
        if time.monotonic() > deadline:
            break
    process.kill()
    raise SystemExit("the server did not start")


# ----------------------------------------------------------------------------- 1. requests per second


async def _session_loop(host: str, port: int, cookie: str, site: str, stop: float, counts: list[int]) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    number = 0
    try:
        while time.perf_counter() < stop:
            path = f"/s/{site}{PAGES[number % len(PAGES)]}"
            writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nCookie: vw_session={cookie}\r\n\r\n".encode())
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:"))
            await reader.readexactly(length)
            if status != 200:
                raise SystemExit(f"{path} answered {status}")
            counts.append(1)
            number += 1
    finally:
        writer.close()


async def requests_per_second(base: str, token: str, sessions: int, seconds: float) -> float:
    """Page requests per second with ``sessions`` concurrent browser sessions for ``seconds``."""
    from veriweb.client import Client

    host, port = base.split("//")[1].split(":")
    with Client(base, token) as api:
        site = api.sites()[0]["site"]
        cookies = [api.create_session(site, seed=n)["session"] for n in range(sessions)]
    warm = time.perf_counter() + 1.0
    await asyncio.gather(*(_session_loop(host, int(port), c, site, warm, []) for c in cookies))
    counts: list[int] = []
    start = time.perf_counter()
    stop = start + seconds
    await asyncio.gather(*(_session_loop(host, int(port), c, site, stop, counts) for c in cookies))
    return len(counts) / (time.perf_counter() - start)


# ----------------------------------------------------------------------------- 2 and 3. Chromium


def browser_latencies(base: str, token: str, steps: int, *,
                      fast: bool = False) -> tuple[list[float], list[float], list[float]]:
    """(in-page click steps, page-loading click steps, resets), in seconds.

    With ``fast``, clicks are CDP mouse events at the element's centre (see ``BrowserDriver``);
    else Playwright's ``page.click`` with its actionability checks, as BrowserGym clicks.
    """
    from playwright.sync_api import sync_playwright

    from veriweb.browser.chromium import launch
    from veriweb.browser.driver import BrowserDriver
    from veriweb.client import Client

    in_page: list[float] = []
    loading: list[float] = []
    resets: list[float] = []
    with sync_playwright() as playwright, Client(base, token) as api:
        browser = launch(playwright)
        driver = BrowserDriver(browser.new_context(), base, api, fast=fast)
        site = api.sites()[0]["site"]
        driver.reset(site, "add_to_cart")
        driver.act("goto('/product/3')", clock=False)
        for number in range(steps):
            tab = "19" if number % 2 else "20"  # Options, Reviews: widgets, no request
            start = time.perf_counter()
            driver.act(f"click('{tab}')", clock=False)
            driver.tree(hidden=False)
            in_page.append(time.perf_counter() - start)
        for number in range(steps):
            start = time.perf_counter()
            driver.act("click('5')" if number % 2 else "click('4')", clock=False)  # Cart, Home: a page load
            driver.tree(hidden=False)
            loading.append(time.perf_counter() - start)
        for number in range(steps):
            start = time.perf_counter()
            driver.reset(site, "add_to_cart" if number % 2 else "review_product")
            resets.append(time.perf_counter() - start)
        browser.close()
    return in_page, loading, resets


def _ms(values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return f"median {1000 * statistics.median(values):6.1f} ms, p90 {1000 * p90:6.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="how long to send requests (default 5)")
    parser.add_argument("--sessions", type=int, default=8, help="concurrent browser sessions (default 8)")
    parser.add_argument("--steps", type=int, default=40, help="browser steps and resets measured (default 40)")
    parser.add_argument("--no-browser", action="store_true", help="only the requests-per-second figure")
    args = parser.parse_args()
    token = os.urandom(12).hex()
    process, base = start_server(token)
    try:
        print(f"veriweb server bench on {os.cpu_count()} cores; server: {base} (own process, uvicorn)")
        rate = asyncio.run(requests_per_second(base, token, args.sessions, args.seconds))
        print(f"page requests/s, {args.sessions} sessions over loopback: {rate:8.0f}   "
              f"({rate / 500:.1f}x the aim of 500)")
        if args.no_browser:
            return
        for label, fast in (("Playwright page.click", False), ("CDP mouse events", True)):
            in_page, loading, resets = browser_latencies(base, token, args.steps, fast=fast)
            steps = in_page + loading
            median = statistics.median(steps)
            print(f"browser step (click + AX tree), {label}:")
            print(f"  all clicks:                              {_ms(steps)}   ({0.050 / median:.2f}x the aim of "
                  f"50 ms; {BROWSERGYM_STEP_S / median:.0f}x faster than BrowserGym's ~1 s)")
            print(f"  clicks that stay on the page:            {_ms(in_page)}")
            print(f"  clicks that load a page:                 {_ms(loading)}")
        reset = statistics.median(resets)
        print(f"browser reset (API reset + start page):   {_ms(resets)}   ({0.100 / reset:.1f}x the aim of 100 ms; "
              f"{BROWSERGYM_RESET_S / reset:.0f}x faster than BrowserGym's ~3 s, "
              f"{MINIWOB_RESET_S / reset:.2f}x MiniWoB++'s ~50 ms)")
    finally:
        process.terminate()
        process.wait(timeout=10)


if __name__ == "__main__":
    main()
