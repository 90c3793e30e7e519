"""The X display the bot plays on: its own Xvfb (headless) or one the user names.

A virtual display runs ``Xvfb`` on the first free display number (no lock file, no socket), waits until
it accepts connections and is stopped with the bot, so runs and tests leave nothing behind.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from screen_bot.errors import BotSetupError, missing_module_error

XVFB_INSTALL = "apt-get install xvfb"
FIRST_DISPLAY = 50
"""Virtual displays are looked for from :50 up, away from the :0 of a desktop."""
LAST_DISPLAY = 400
SCREEN_SIZE = (1280, 1024)
START_TIMEOUT_S = 10.0


def connect(name: str):  # -> Xlib.display.Display
    """A connection to the X display ``name`` (":N"); a one-line error when it cannot be opened."""
    try:
        from Xlib import display as xdisplay
        from Xlib.error import ConnectionClosedError, DisplayError
    except ImportError:
        raise missing_module_error("Xlib") from None
    try:
        return xdisplay.Display(name)
    except (ConnectionClosedError, DisplayError, OSError, ValueError) as error:
        raise BotSetupError(
            f"cannot open the X display {name!r} ({_first_line(error)}): name a running X server with"
            " --display, or leave --display out to let the bot start its own Xvfb"
        ) from None


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def has_extension(display, name: str) -> bool:
    """Whether the X server offers the extension ``name`` (the bot needs XTEST)."""
    reply = display.query_extension(name)
    return reply is not None and bool(reply.present)


def free_display_number(first: int = FIRST_DISPLAY, last: int = LAST_DISPLAY) -> int:
    """The lowest display number from ``first`` with neither a lock file nor a socket."""
    for number in range(first, last + 1):
        if not Path(f"/tmp/.X{number}-lock").exists() and not Path(f"/tmp/.X11-unix/X{number}").exists():
            return number
    raise BotSetupError(f"no free X display number between :{first} and :{last}: stop old Xvfb servers")


def _wait_until_ready(name: str, process: subprocess.Popen, timeout_s: float) -> None:
    """Return once display ``name`` accepts a connection; an error if Xvfb died or never came up."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BotSetupError(f"Xvfb {name} stopped at start (exit status {process.returncode}): is {name} taken?")
        try:
            connect(name).close()
            return
        except BotSetupError:
            time.sleep(0.05)
    raise BotSetupError(f"Xvfb {name} did not accept connections within {timeout_s:.0f} s")


@contextmanager
def virtual_display(size: tuple[int, int] = SCREEN_SIZE) -> Iterator[str]:
    """Run a private Xvfb for the ``with`` block and yield its name (":N"); stopped on the way out."""
    if shutil.which("Xvfb") is None:
        raise BotSetupError(f"Xvfb is not installed: {XVFB_INSTALL} (or name a running X server with --display)")
    number = free_display_number()
    name = f":{number}"
    width, height = size
    process = subprocess.Popen(
        ["Xvfb", name, "-screen", "0", f"{width}x{height}x24", "-nolisten", "tcp", "-noreset"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        _wait_until_ready(name, process, START_TIMEOUT_S)
        yield name
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def display_for(name: str | None) -> Iterator[str]:
    """The display named by the user (checked now), or a private Xvfb when ``name`` is None."""
    if name is None:
        with virtual_display() as own:
            yield own
        return
    if not name.startswith(":") and ":" not in name:
        raise BotSetupError(f"--display {name!r} is not an X display name: expected something like :1")
    connect(name).close()
    yield name
