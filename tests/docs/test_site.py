"""The built documentation site (``make docs``) opened in headless Chromium: every page checked renders.

Chromium loads each page from ``site/`` and hands back the DOM after its scripts ran; the test looks for the
theme's content area and each page's own landmarks (the leaderboard's tables, the env page's sections, the API
reference's rendered objects). A screenshot of each page is kept under ``site/screenshots/`` (not in git).
Skipped, with the reason, when the site has not been built or Chromium is missing.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "site"
SHOTS = SITE / "screenshots"
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
PAGES = {
    "index.html": ["Leaderboard", "Lab notebook"],
    "RESULTS/index.html": ["Beginner (9x9, 10 mines)", "Intermediate (16x16, 40 mines)", "Expert (16x30, 99 mines)",
                           "solver-fast", "leaderboard.png"],
    "env/index.html": ["Description", "Action Space", "Observation Space", "Rewards", "Starting State",
                       "Episode End", "Arguments", "Version History"],
    "ARCHITECTURE/index.html": ["mine_env", "minesweeper_cli"],
    "lab/index.html": ["Lab notebook"],
    "api/mine_env/index.html": ["doc-object", "MinesweeperEnv"],
    "api/agents/index.html": ["doc-object", "SolverAgent"],
    "api/mine_llm/index.html": ["doc-object", "TextReport"],
}  # fmt: skip

pytestmark = pytest.mark.docs


def chromium() -> str:
    """The Chromium executable, or skip the test saying how to get one."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("Chromium is not installed (apt-get install chromium; `make install-dev` tries it)")


def run_chromium(*args: str) -> subprocess.CompletedProcess[str]:
    """One headless Chromium run with a fresh profile, so no state carries from one page to the next."""
    with tempfile.TemporaryDirectory() as profile:
        command = [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def site() -> Path:
    """The built site, or skip saying how to build it."""
    if not (SITE / "index.html").is_file():
        pytest.skip("the site is not built: run `make docs` (mkdocs build --strict) first")
    return SITE


@pytest.mark.parametrize("page", sorted(PAGES))
def test_page_renders(site: Path, page: str) -> None:
    path = site / page
    assert path.is_file(), f"{page} is missing from the built site"
    dom = run_chromium("--virtual-time-budget=3000", "--dump-dom", path.as_uri()).stdout
    assert 'class="md-content"' in dom, f"{page}: Chromium shows no page content"
    for landmark in PAGES[page]:
        assert landmark in dom, f"{page}: {landmark!r} is not on the rendered page"


@pytest.mark.parametrize("page", ["RESULTS/index.html", "env/index.html"])
def test_screenshot(site: Path, page: str) -> None:
    from PIL import Image

    SHOTS.mkdir(exist_ok=True)
    shot = SHOTS / (page.split("/")[0].lower() + ".png")
    shot.unlink(missing_ok=True)
    run_chromium("--window-size=1280,1600", "--hide-scrollbars", f"--screenshot={shot}", (site / page).as_uri())
    assert shot.is_file(), f"Chromium wrote no screenshot of {page}"
    with Image.open(shot) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
    assert colours is None or len(colours) > 20, f"the screenshot of {page} is blank"
