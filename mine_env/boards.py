"""The kinds of board an env deals (``boards=``): uniform random layouts, or no-guess layouts.

``random`` is the engine's own placement. ``no_guess`` layouts are made by the generator of
:mod:`mine_env.analysis.no_guess`, which needs the exact deduction of the analysis, the layer of
:mod:`mine_env` under this one (docs/ARCHITECTURE.md, "No-guess boards"). The engine below takes the generator
as a plain layout source (:mod:`mine_env.engine.layout_source`) and knows nothing of it.
"""

from __future__ import annotations

from functools import partial

from mine_env.engine.layout_source import LayoutSource
from mine_env.engine.spec import BoardSpec, check_boards


def layout_source(boards: str, spec: BoardSpec) -> LayoutSource | None:
    """The layout source of a kind of board on ``spec`` (None: the engine's own uniform placement).

    Raises:
        ValueError: an unknown kind, or no-guess boards on a board or rule they do not support.
    """
    if check_boards(boards) == "random":
        return None
    # Imported here, on first use, so that `import mine_env` stays light and the analysis loads only when asked.
    from mine_env.analysis.no_guess import check_no_guess_board, no_guess_layouts

    check_no_guess_board(spec.rows, spec.cols, spec.mines, spec.first_click)
    return partial(no_guess_layouts, spec.rows, spec.cols, spec.mines)
