"""What differs between the programs the bot plays: one profile each.

A profile says how to start the program for a board (and a seed, where it takes one), the title of its
window, the colours it draws cells with, how a new game starts, and the rules it keeps: whether it opens
the start itself, whether a win needs every mine flagged, whether one process plays many games.

* ``xdemineur`` (Debian package xdemineur): 21-pixel cells drawn from pixmaps in X11 named colours. It lays
  the mines uniformly, then opens one of the board's zero cells at random itself (so the first move is the
  player's second look); it counts a win only once every mine carries a flag; a new game is a click on the
  face above the board. Boards of at least 12 columns (its minimum). It seeds its generator from the clock
  once, at start: the bot fixes ``time()`` (:mod:`screen_bot.fixed_time`) so a run's games repeat.
* ``sgt-mines`` (Simon Tatham's Mines, package sgt-puzzles): 20-pixel cells; a game id ``30x16n99#SEED``
  fixes the layout for a given first click, which always opens a zero; its boards need no guess (the
  generator repairs them), unless the preset ends in ``-guess`` (``30x16n99a#SEED``: "ensure solubility"
  off, plain random layouts around the opened first click, the env's ``opening`` rule). The bot starts one
  process per game, so every game is named by its seed. After a loss it shows only the mine hit; the Game
  menu's Solve shows all of them (the cross-check uses it).
"""

from __future__ import annotations

from dataclasses import dataclass

from screen_bot.cells import CellLook

Board = tuple[int, int, int]
"""(rows, cols, mines)"""
GUESS_SUFFIX = "-guess"
"""sgt-mines presets ending so play the program's plain random layouts, not its no-guess ones."""


@dataclass(frozen=True)
class Program:
    """One minesweeper program as the bot sees it.

    Attributes:
        name: The name ``--program`` takes.
        executable: The program's file.
        package: The Debian package that installs it.
        title: The title of its game window.
        look: The colours it draws cells with.
        presets: The boards it can play, by name.
        opens_start: It opens a region itself when a game starts (else the first click is the player's).
        win_needs_flags: A win needs every mine flagged, not only every safe cell open.
        process_per_game: Each game runs in a fresh process (named by its seed); else one process plays all
            games and a new game starts with :attr:`new_game_face`.
        reveal_all_keys: Keys that, after a loss, make the program show every mine (empty: it does so itself).
    """

    name: str
    executable: str
    package: str
    title: str
    look: CellLook
    presets: dict[str, Board]
    opens_start: bool
    win_needs_flags: bool
    process_per_game: bool
    reveal_all_keys: tuple[str, ...] = ()

    def arguments(self, preset: str, seed: str | int) -> list[str]:
        """The command-line arguments that start a game of ``preset`` (and ``seed`` where it takes one)."""
        rows, cols, mines = board_of(self, preset)
        if self.name == "xdemineur":
            return ["-geometry", f"{cols}x{rows}+0+0", "-m", str(mines)]
        allow_guesses = "a" if preset.endswith(GUESS_SUFFIX) else ""  # Mines' "ensure solubility" off
        return [f"{cols}x{rows}n{mines}{allow_guesses}#{seed}"]

    def first_click_rule(self) -> str:
        """The env's first-click rule that describes this program's start (for the solver's first move)."""
        return "none" if self.opens_start else "opening"


XDEMINEUR = Program(
    name="xdemineur",
    executable="/usr/games/xdemineur",
    package="xdemineur",
    title="xdémineur",
    look=CellLook(
        # X11's blue, forestgreen, red, navy, orchid, seagreen, sienna, deeppink (its pixmaps' colours)
        numbers=(
            (0, 0, 255), (34, 139, 34), (255, 0, 0), (0, 0, 128),
            (218, 112, 214), (46, 139, 87), (160, 82, 45), (255, 20, 147),
        ),
        highlight=(255, 255, 255),
        backgrounds=((179, 179, 179), (127, 127, 127)),  # gray70 ground and face, gray50 shadow
        flag=(255, 0, 0),
    ),
    presets={"intermediate": (16, 16, 40), "expert": (16, 30, 99)},
    opens_start=True,
    win_needs_flags=True,
    process_per_game=False,
)

SGT_MINES = Program(
    name="sgt-mines",
    executable="/usr/games/sgt-mines",
    package="sgt-puzzles",
    title="Mines",
    look=CellLook(
        numbers=(  # its colour table: blue, green, red, navy, maroon, teal, black, grey
            (0, 0, 255), (0, 128, 0), (255, 0, 0), (0, 0, 128),
            (128, 0, 0), (0, 128, 128), (0, 0, 0), (128, 128, 128),
        ),
        highlight=(255, 255, 255),
        backgrounds=((218, 218, 218), (230, 230, 230), (153, 153, 153)),  # open ground, tile face, shadow
        flag=(255, 0, 0),
    ),
    presets={
        "beginner": (9, 9, 10), "intermediate": (16, 16, 40), "expert": (16, 30, 99),
        "beginner-guess": (9, 9, 10), "intermediate-guess": (16, 16, 40), "expert-guess": (16, 30, 99),
    },
    opens_start=False,
    win_needs_flags=False,
    process_per_game=True,
    reveal_all_keys=("F10", "Up", "Up", "Return"),  # Game menu, up past Exit to Solve
)

PROGRAMS: dict[str, Program] = {program.name: program for program in (XDEMINEUR, SGT_MINES)}


def program_named(name: str) -> Program:
    """The profile of ``name``; a ValueError that lists the known programs."""
    if name not in PROGRAMS:
        raise ValueError(f"unknown program {name!r}; expected one of: {', '.join(PROGRAMS)}")
    return PROGRAMS[name]


def board_of(program: Program, preset: str) -> Board:
    """The board of ``preset`` on ``program``; a ValueError that lists the presets it offers."""
    if preset not in program.presets:
        offered = ", ".join(program.presets)
        raise ValueError(f"{program.name} has no preset {preset!r}; expected one of: {offered}")
    return program.presets[preset]
