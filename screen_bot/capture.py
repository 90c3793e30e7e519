"""The bot's eyes: screenshots of a screen rectangle as RGB arrays, through mss."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from screen_bot.errors import missing_module_error
from screen_bot.window import Box


class Camera:
    """Screenshots of one X display (an mss grabber kept open between shots)."""

    def __init__(self, display_name: str) -> None:
        try:
            import mss
        except ImportError:
            raise missing_module_error("mss") from None
        factory = getattr(mss, "MSS", None) or mss.mss  # mss >= 10 names it MSS
        self._grabber = factory(display=display_name)

    def grab(self, box: Box) -> np.ndarray:
        """The pixels of ``box`` as a (height, width, 3) uint8 RGB array."""
        shot = self._grabber.grab({"left": box.left, "top": box.top, "width": box.width, "height": box.height})
        bgra = np.frombuffer(shot.bgra, dtype=np.uint8).reshape(shot.height, shot.width, 4)
        return bgra[:, :, 2::-1].copy()

    def close(self) -> None:
        self._grabber.close()


def save_png(image: np.ndarray, path: Path) -> Path:
    """Write an RGB array as a PNG file (for the games the bot could not read)."""
    import mss.tools

    path.parent.mkdir(parents=True, exist_ok=True)
    height, width = image.shape[:2]
    mss.tools.to_png(np.ascontiguousarray(image).tobytes(), (width, height), output=str(path))
    return path
