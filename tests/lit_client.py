"""The client of the lit fork server (tests/lit_server.py): what ``xmux-opt`` and
``filecheck`` are on the RUN lines' PATH. It runs once per tool of a RUN line (thousands of
times in ``make test``), with ``python -IS``, so it imports only modules that are built into
the interpreter (``_socket``, ``marshal``): ``socket`` and ``json`` would double its start-up
(about 10 ms each here)."""

from __future__ import annotations

import _socket
import marshal
import os
import sys

ENV = "XMUX_LIT_SERVER"  # the server's socket (lit_server.ENV)
LEN = 8  # bytes of the request's length, before its marshal data


def client(tool: str, installed: str) -> None:
    """Run ``tool`` through the server, or exec the ``installed`` script when there is none."""
    path = os.environ.get(ENV)
    sock = None
    if path:
        try:
            sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
            sock.connect(path)
        except OSError:
            sock = None
    if sock is None:
        os.execv(installed, [installed, *sys.argv[1:]])
    payload = marshal.dumps({"tool": tool, "argv": [tool, *sys.argv[1:]], "cwd": os.getcwd(),
                             "env": dict(os.environ)})
    data = len(payload).to_bytes(LEN, "little") + payload
    fds = b"".join(fd.to_bytes(4, sys.byteorder) for fd in (0, 1, 2))  # SCM_RIGHTS: C ints
    sent = sock.sendmsg([data], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
    if sent < len(data):
        sock.sendall(data[sent:])
    status = b""
    while len(status) < 4:
        chunk = sock.recv(4 - len(status))
        if not chunk:
            os.write(2, f"{tool}: the lit fork server's child ended without an exit status "
                        "(killed or crashed)\n".encode())
            os._exit(70)
        status += chunk
    os._exit(int.from_bytes(status, "little", signed=True))
