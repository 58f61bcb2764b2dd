"""``veriweb serve``: many sites on one port of 127.0.0.1, with a control API under a printed token."""

from __future__ import annotations

import argparse
import secrets
import sys
from typing import Any

from veriweb.errors import VeriwebError


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add the ``serve`` subcommand to the ``veriweb`` command's subparsers."""
    serve = sub.add_parser("serve", help="serve sites over HTTP for browsers, with a control API")
    serve.add_argument("sites", nargs="*", metavar="SITE_OR_CORPUS",
                       help="site files, bundled example names or corpus directories (default: shop)")
    serve.add_argument("--port", type=int, default=8000, help="the port on 127.0.0.1 (default 8000; 0 picks one)")
    serve.add_argument("--token", help="the control API token (default: a random one, printed)")
    serve.add_argument("--no-task-picker", dest="task_picker", action="store_false",
                       help="list only the sites on the index page (for agents: tasks come from the API)")
    serve.add_argument("--max-sessions", type=int, default=2000, help="browser sessions kept (default 2000)")
    serve.set_defaults(func=cmd_serve)
    return serve


def cmd_serve(args: argparse.Namespace) -> int:
    """Load the sites, print the addresses and the token, and serve until interrupted."""
    try:
        import uvicorn

        from veriweb.server import Catalog, create_app
    except ImportError as exc:
        raise VeriwebError(f"serving needs the server extra ({exc.name} is missing): "
                           "pip install 'veriweb[server]'") from None
    if not 0 <= args.port <= 65535:
        raise VeriwebError(f"--port must be from 0 to 65535, got {args.port}")
    catalog = Catalog.load(args.sites or [None])
    token = args.token or secrets.token_urlsafe(24)
    app = create_app(catalog, token=token, task_picker=args.task_picker, max_sessions=args.max_sessions)
    config = uvicorn.Config(app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False)
    server = uvicorn.Server(config)

    def announce() -> None:
        port = args.port
        for listener in getattr(server, "servers", []):
            for sock in listener.sockets:
                port = sock.getsockname()[1]
        base = f"http://127.0.0.1:{port}"
        tasks = sum(len(site.tasks) for site in catalog.sites.values())
        print(f"veriweb: serving {len(catalog.sites)} site(s) with {tasks} tasks at {base}/", flush=True)
        for slug in list(catalog.sites)[:10]:
            print(f"  {base}{catalog.prefix(slug)}/", flush=True)
        if len(catalog.sites) > 10:
            print(f"  ... and {len(catalog.sites) - 10} more on the index page", flush=True)
        if args.task_picker:
            print(f"Open {base}/ , press Start next to a task, and do it in the browser.", flush=True)
        print(f"control API token: {token}", flush=True)
        print(f"API docs: {base}/api/docs   progress: curl -H 'Authorization: Bearer {token}' {base}/api/sessions",
              flush=True)

    original = server.startup

    async def startup(*a: Any, **k: Any) -> None:
        await original(*a, **k)
        if server.started:
            announce()

    server.startup = startup  # type: ignore[method-assign]
    server.run()
    return 0 if server.started else 2


def main(argv: list[str] | None = None) -> int:
    """``python -m veriweb.server.cli serve ...``: the subcommand on its own (exit 2 on bad input)."""
    parser = argparse.ArgumentParser(prog="veriweb")
    add_parser(parser.add_subparsers(dest="command", required=True))
    parsed = parser.parse_args(argv)
    try:
        return int(parsed.func(parsed))
    except VeriwebError as exc:
        print(f"veriweb: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
