"""One running minesweeper program: started on a display, its window found, stopped on the way out."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from screen_bot.errors import BotSetupError
from screen_bot.fixed_time import build_library, seeded_environment
from screen_bot.programs import Program
from screen_bot.window import Box, find_window, window_box

WINDOW_TIMEOUT_S = 15.0
"""sgt-mines can take seconds to generate a big no-guess board before its window appears."""


def check_installed(program: Program) -> None:
    """A one-line error naming the apt-get command when the program is not installed."""
    if not Path(program.executable).exists():
        raise BotSetupError(
            f"{program.name} is not installed ({program.executable} is missing): apt-get install {program.package}"
        )


class RunningProgram:
    """A program started on ``display_name`` for a board ``preset`` and ``seed``, with its window located."""

    def __init__(self, program: Program, display, display_name: str, preset: str, seed: str | int) -> None:
        check_installed(program)
        self.program = program
        self.seeded = True
        env = {**os.environ, "DISPLAY": display_name}
        if program.name == "xdemineur":  # it seeds from the clock: fix time() where a compiler allows
            library = build_library()
            if library is None:
                self.seeded = False
            else:
                env.update(seeded_environment(seed, library))
        self._errors = tempfile.TemporaryFile()  # noqa: SIM115 (kept open as long as the program runs; closed in stop)
        self._process = subprocess.Popen(
            [program.executable, *program.arguments(preset, seed)],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._errors,
        )  # fmt: skip
        try:
            self.window = find_window(display, program.title, WINDOW_TIMEOUT_S, program.name)
        except BotSetupError as error:
            message = self._stop_and_read_errors()
            raise BotSetupError(f"{error}{'; it said: ' + message if message else ''}") from None
        self._display = display

    def box(self) -> Box:
        """Where the window lies on the screen now."""
        return window_box(self._display, self.window)

    def _stop_and_read_errors(self) -> str:
        """Stop the program and return the last line it wrote to stderr."""
        self._terminate()
        self._errors.seek(0)
        stderr = self._errors.read().decode(errors="replace")
        self.stop()
        lines = [line for line in stderr.splitlines() if line.strip()]
        return lines[-1].strip() if lines else ""

    def stop(self) -> None:
        """End the program (it has no state worth keeping)."""
        self._terminate()
        self._errors.close()

    def _terminate(self) -> None:
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
