"""A fork server for lit's RUN lines: ``xmux-opt`` and ``filecheck`` without Python start-up.

Every RUN line of the FileCheck suite starts fresh ``xmux-opt`` and ``filecheck`` processes, and
about 0.3 s of each ``xmux-opt`` is importing xDSL and xmux (``bench/startup.py``): with ~500
such lines that was most of the lit suite's time on a 2-core machine. The lit configuration
starts one server per lit run (``start``); the server imports both tools, every xmux pass and
dialect, and then forks a child per request. The lit RUN lines find ``xmux-opt`` and
``filecheck`` in a directory put first on PATH, where each is a small client (lit_client.py,
standard library only, run with ``python -IS``) that hands the server its argv, working
directory, environment and its stdin/stdout/stderr file descriptors, and exits with the exit
status the child reports. The child runs the tool's ``main`` exactly as the installed script
would, in a process with the client's descriptors, directory and environment (xmux reads its
environment variables at use, never at import).

What stays real: the installed scripts are the same ``main`` functions; tests of the command
line that need a fresh process (``bench/startup.py``, pytest's CLI tests) run the installed
ones. A client that cannot reach the server runs the installed tool itself, so lit without the
server (``XMUX_LIT_FORK_SERVER=0``) runs the same tests, only slower. The server exits when the
lit process that started it is gone.
"""

from __future__ import annotations

import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # run as a script, too
import lit_client  # noqa: E402

#: tool name → "module:function" of its console script (the function returns an exit status)
TOOLS = {"xmux-opt": "xmux.cli:opt_main", "xmux-run": "xmux.cli:run_main",
         "filecheck": "filecheck.main:main"}
#: what a request may need besides the tools' modules, imported before the first fork (no
#: LLVM target and no thread is set up here: those read the client's environment)
WARM = ("xmux.runner", "xmux.runtime.interpreter.program")
ENV = lit_client.ENV  # the server's socket, set for the RUN lines by the lit configuration
_LEN = lit_client.LEN
_SERVER_STDIO: list = []


def _recv_exactly(sock: socket.socket, n: int) -> bytes | None:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


# ---------------------------------------------------------------------------------------
# server


def _warm() -> None:
    """Import what a request could need, so no child pays for it."""
    import importlib

    for module in (*(t.split(":")[0] for t in TOOLS.values()), *WARM):
        importlib.import_module(module)
    from xmux.cli import pass_options_help
    from xmux.registry import get_all_dialects

    pass_options_help()  # imports every pass
    for load in get_all_dialects().values():
        load()


def _fresh_stdio() -> None:
    """New ``sys.std*`` over the client's descriptors, buffered as a fresh interpreter's are
    (the server's were opened over /dev/null, which is seekable and not a terminal)."""
    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        old = getattr(sys, name)
        _SERVER_STDIO.append(old)  # an object that kept it writes through it: flushed at exit
        line = fd == 2 or (fd == 1 and os.isatty(fd))
        new = open(fd, mode, buffering=1 if line else -1, encoding=old.encoding,
                   errors=old.errors, closefd=False)
        setattr(sys, name, new)
        setattr(sys, f"__{name}__", new)


def _run_child(conn: socket.socket) -> None:
    """In the forked child: become the client's process and run its tool; never returns."""
    import importlib
    import marshal
    import traceback

    code = 70
    try:
        head, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
        size = int.from_bytes(head[:_LEN], "little")
        body = head[_LEN:]
        if len(body) < size:
            body += _recv_exactly(conn, size - len(body)) or b""
        req = marshal.loads(body)  # what lit_client.client sends
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        sys.argv = req["argv"]
        _fresh_stdio()
        module, func = TOOLS[req["tool"]].split(":")
        try:
            code = getattr(importlib.import_module(module), func)()  # reads sys.argv
        except SystemExit as e:
            code = e.code
        except BaseException:
            traceback.print_exc()
            code = 1
        if code is None:
            code = 0
        elif not isinstance(code, int):
            print(code, file=sys.stderr)
            code = 1
    except BaseException:  # the server's own part failed: say so on the client's stderr
        os.write(2, f"lit fork server: {traceback.format_exc()}".encode())
        code = 70
    finally:
        for stream in (sys.stdout, sys.stderr, *_SERVER_STDIO):
            try:
                stream.flush()
            except Exception:  # a closed pipe: the fresh process would lose it too
                code = code or 120
        try:
            conn.sendall(int(code).to_bytes(4, "little", signed=True))
        finally:
            os._exit(0)


def serve(path: str, owner: int) -> None:
    """Serve requests on ``path`` until process ``owner`` (the lit run) is gone."""
    import gc
    import signal

    _warm()
    gc.freeze()  # children would otherwise copy every page the collector touches
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path + ".tmp")
    srv.listen(64)
    os.rename(path + ".tmp", path)  # appears only once it accepts
    srv.settimeout(1.0)
    try:
        while True:
            try:
                conn, _ = srv.accept()
            except TimeoutError:
                try:
                    os.kill(owner, 0)
                except ProcessLookupError:
                    return
                continue
            conn.settimeout(None)
            if os.fork() == 0:
                srv.close()
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                _run_child(conn)
            conn.close()
    finally:
        os.unlink(path)


_started: dict[int, tuple[str, str] | None] = {}


def start(tools: tuple[str, ...] = tuple(TOOLS)) -> tuple[str, str] | None:
    """From a lit configuration: start a server for this lit process and write a client for
    each tool; returns (the clients' directory for PATH, the socket path for ``ENV``), or None
    where the server is turned off or did not come up (the installed tools then run). The
    test suites of one lit run share one server."""
    if os.getpid() not in _started:
        try:
            _started[os.getpid()] = _start(tools)
        except OSError:  # no temporary directory, no Unix sockets: the installed tools run
            _started[os.getpid()] = None
    return _started[os.getpid()]


def _start(tools: tuple[str, ...]) -> tuple[str, str] | None:
    import shutil
    import subprocess
    import tempfile
    import time

    if os.environ.get("XMUX_LIT_FORK_SERVER", "1") == "0" or not hasattr(socket, "send_fds"):
        return None
    installed = {t: shutil.which(t) for t in tools}
    if not all(installed.values()) or len(sys.executable) > 100:  # a shebang line's limit
        return None
    root = tempfile.mkdtemp(prefix="xmux-lit-")
    path = os.path.join(root, "server.sock")
    bindir = os.path.join(root, "bin")
    os.mkdir(bindir)
    here = os.path.dirname(os.path.abspath(__file__))
    for tool, script in installed.items():
        client_path = os.path.join(bindir, tool)
        with open(client_path, "w") as f:
            f.write(f"#!{sys.executable} -IS\nimport sys\nsys.path.insert(0, {here!r})\n"
                    f"from lit_client import client\nclient({tool!r}, {script!r})\n")
        os.chmod(client_path, 0o755)
    server = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), "serve", path, str(os.getpid()), root],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    deadline = time.monotonic() + 30
    while not os.path.exists(path):
        if server.poll() is not None or time.monotonic() > deadline:
            if server.poll() is None:
                server.kill()
            shutil.rmtree(root, ignore_errors=True)
            return None  # it died warming up, or never came up: the installed tools run
        time.sleep(0.02)
    return bindir, path


if __name__ == "__main__" and sys.argv[1:2] == ["serve"]:
    _, _, sock_path, owner_pid, tmp_root = sys.argv
    try:
        serve(sock_path, int(owner_pid))
    finally:
        import shutil

        shutil.rmtree(tmp_root, ignore_errors=True)
