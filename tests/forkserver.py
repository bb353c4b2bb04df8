"""Real processes to kill, started in milliseconds: a fork server that has imported the app once.

Starting `python -m ...` costs seconds of CPU before the first line of a test child runs, nearly all of it importing
torch and sentence-transformers. The server (`python -m tests.forkserver`, one per test session) imports the app's
modules once and then forks one child per request. A child is a separate process like any other: its own memory,
file descriptors and locks, its own model load, and SIGKILL ends it with no cleanup. It differs from a fresh
interpreter only in finding the modules already imported; nothing is opened or loaded before the fork (no store, no
database, no model weights), so no lock or connection is shared.

    server = ForkServer(cwd)
    child = server.spawn(["-m", "package.module", *args], env=env, stderr=log_path)   # like `python -m ...`
    child.stdout.readline(); child.kill(); child.wait()   # -> -9
    server.close()
"""

from __future__ import annotations

import importlib
import json
import os
import runpy
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any, TextIO

PRELOAD = ("core.service", "core.cli.dispatch", "sentence_transformers")
"""Imported by the server before it forks anything (imports only: they start no thread that a fork would break)."""


class Child:
    """A forked child: its stdout (a FIFO, read like a pipe), kill() and wait()."""

    def __init__(self, server: ForkServer, pid: int, stdout: TextIO):
        self.server = server
        self.pid = pid
        self.stdout = stdout
        self.returncode: int | None = None

    def kill(self) -> None:
        """SIGKILL the child (nothing happens when it has already been reaped)."""
        if self.returncode is None:
            os.kill(self.pid, signal.SIGKILL)

    def send_signal(self, sig: int) -> None:
        """Send `sig` to the child, as subprocess.Popen.send_signal does."""
        if self.returncode is None:
            os.kill(self.pid, sig)

    def exited(self) -> bool:
        """Whether the child has ended (a zombie the server has not reaped yet counts), without asking the server:
        a `wait` would hold it until the child ends."""
        try:
            stat = Path(f"/proc/{self.pid}/stat").read_text()
        except OSError:
            return True
        return stat[stat.rfind(")") + 2 :].startswith(("Z", "X"))

    def stop(self, grace_s: float = 15.0) -> int:
        """SIGTERM, then SIGKILL if the child has not ended within `grace_s`; its exit code (see `wait`)."""
        self.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while not self.exited() and time.monotonic() < deadline:
            time.sleep(0.1)
        if not self.exited():
            self.kill()
        return self.wait()

    def wait(self) -> int:
        """Wait for the child to end; its exit code, or -N when signal N ended it (as subprocess reports it)."""
        if self.returncode is None:
            self.returncode = int(self.server.request({"wait": self.pid}))
            self.stdout.close()
        return self.returncode


class ForkServer:
    """The client side: starts `python -m tests.forkserver` and asks it for children."""

    def __init__(self, cwd: Path, env: dict[str, str] | None = None):
        self._fifos = Path(tempfile.mkdtemp(prefix="forkserver-"))
        self._count = 0
        self._ready = False
        self._lock = threading.Lock()  # an early job's thread asks beside the tests' thread
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "tests.forkserver"],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def request(self, message: dict[str, Any]) -> Any:
        """Send one request line; the server's one-line JSON answer (one request at a time, whatever the thread)."""
        with self._lock:
            if not self._ready:
                line = self._proc.stdout.readline()
                assert line.strip() == "ready", f"the fork server did not start: {line!r}"
                self._ready = True
            self._proc.stdin.write(json.dumps(message) + "\n")
            self._proc.stdin.flush()
            line = self._proc.stdout.readline()
            assert line, "the fork server has exited"
            return json.loads(line)

    def spawn(self, argv: list[str], *, env: dict[str, str], cwd: Path, stderr: Path) -> Child:
        """Fork a child running `python ARGV` (`-m MODULE ...` or `-c CODE ...`) with exactly `env` in `cwd`, its
        stderr written to the file `stderr`."""
        with self._lock:
            self._count += 1
            fifo = self._fifos / f"stdout-{self._count}"
        os.mkfifo(fifo)
        pid = self.request({"argv": argv, "env": env, "cwd": str(cwd), "stdout": str(fifo), "stderr": str(stderr)})
        return Child(self, pid, open(fifo, encoding="utf-8"))  # the child opens its end first thing

    def close(self) -> None:
        """Stop the server (children still running are not waited for)."""
        self._proc.stdin.close()
        self._proc.wait(30)
        shutil.rmtree(self._fifos, ignore_errors=True)


_session_lock = threading.Lock()
_session: list[ForkServer] = []


def session_server(cwd: Path, env: dict[str, str]) -> ForkServer:
    """The test session's one fork server, started by the first call (from the tests' or an early job's thread,
    with `env`: an early job passes a copy it took safely, `tests.early.environment`); `close_session_server` stops
    it."""
    with _session_lock:
        if not _session:
            _session.append(ForkServer(cwd, env=env))
        return _session[0]


def close_session_server() -> None:
    """Stop the session's fork server, if one was started."""
    with _session_lock:
        while _session:
            _session.pop().close()


def _child(request: dict[str, Any]) -> None:
    """In the forked child: take the requested stdout, stderr, environment and cwd, run the code, exit."""
    code = 1
    try:
        os.dup2(os.open(request["stdout"], os.O_WRONLY), 1)
        os.dup2(os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 2)
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - open for the whole life of the child
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        flag, target, *args = request["argv"]
        if flag == "-m":
            sys.argv = [target, *args]
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            sys.argv = ["-c", *args]
            exec(compile(target, "<string>", "exec"), {"__name__": "__main__"})
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def serve() -> None:
    """The server loop: one JSON request per stdin line, one JSON answer per stdout line."""
    for name in PRELOAD:
        importlib.import_module(name)
    try:
        print("ready", flush=True)
        for line in sys.stdin:
            request = json.loads(line)
            if "wait" in request:
                _, status = os.waitpid(request["wait"], 0)
                answer: int = os.waitstatus_to_exitcode(status)
            else:
                answer = os.fork()
                if answer == 0:
                    _child(request)
            print(json.dumps(answer), flush=True)
    except BrokenPipeError:  # the test session ended without needing the server
        os._exit(0)


if __name__ == "__main__":
    serve()
