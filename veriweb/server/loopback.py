"""A real uvicorn server on 127.0.0.1 in a background thread, for tests, benchmarks and browser drivers."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType

from starlette.applications import Starlette

from veriweb.errors import VeriwebError


class LoopbackServer:
    """Serve ``app`` on 127.0.0.1 (a free port unless given) until :meth:`stop`.

    Example::

        with LoopbackServer(create_app(catalog)) as server:
            print(server.url)  # http://127.0.0.1:PORT
    """

    def __init__(self, app: Starlette, *, port: int = 0) -> None:
        import uvicorn

        self.app = app
        # IPPROTO_TCP, so that asyncio sets TCP_NODELAY on accepted connections (else Nagle adds 40 ms)
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", port))
        self.port = self._socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]},
                                        name=f"veriweb-server-{self.port}", daemon=True)

    @property
    def token(self) -> str:
        """The control API token of the app."""
        return self.app.state.vw.token

    def start(self, timeout: float = 10.0) -> LoopbackServer:
        """Start serving; return once the server accepts connections.

        Raises:
            VeriwebError: the server did not start within ``timeout`` seconds.
        """
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise VeriwebError(f"the server on port {self.port} did not start; is the port free?")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        """Stop serving and wait for the thread."""
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        self._socket.close()

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()
