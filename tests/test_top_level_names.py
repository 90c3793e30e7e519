"""No installed distribution but ours claims a top-level package of ours (issue 79: verifiers 0.3 pulled in
openai-agents, whose ``agents`` overwrote ours), and where one hides ours anyway, ``import mine_env`` and the CLI
say which in one line."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from mine_env.name_clash import DISTRIBUTION, OUR_PACKAGES, top_level_names
from support import REPO


def test_no_installed_distribution_claims_a_top_level_package_of_ours() -> None:
    claims = {}
    for distribution in metadata.distributions():
        name = distribution.metadata["Name"] or "?"
        if name.lower().replace("_", "-") != DISTRIBUTION:
            claimed = top_level_names(distribution) & set(OUR_PACKAGES)
            if claimed:
                claims[name] = sorted(claimed)
    assert not claims, f"installed distributions claim top-level packages of ours: {claims}"


def fake_distribution(site: Path, name: str, package: str, top_level: bool) -> None:
    """A distribution ``name`` installing the top-level package ``package`` into ``site``."""
    (site / package).mkdir(parents=True)
    (site / package / "__init__.py").write_text("SOMETHING_ELSE = 1\n")
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "RECORD").write_text(f"{package}/__init__.py,,\n{info.name}/METADATA,,\n")
    if top_level:
        (info / "top_level.txt").write_text(f"{package}\n")


def test_top_level_names_come_from_top_level_txt_or_the_record(tmp_path: Path) -> None:
    fake_distribution(tmp_path, "with-list", "agents", top_level=True)
    fake_distribution(tmp_path / "other", "without-list", "eval", top_level=False)
    installed = metadata.distributions(path=[str(tmp_path), str(tmp_path / "other")])
    found = {distribution.metadata["Name"]: top_level_names(distribution) for distribution in installed}
    assert found == {"with-list": {"agents"}, "without-list": {"eval"}}


@pytest.mark.slow
@pytest.mark.parametrize("command", [["-c", "import mine_env"], ["-m", "minesweeper_cli.main", "--version"]])
def test_a_hidden_package_is_named_in_one_line_with_what_to_do(tmp_path: Path, command: list[str]) -> None:
    site = tmp_path / "site"
    fake_distribution(site, "openai-agents-lookalike", "agents", top_level=True)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{site}:{REPO}"}  # the other distribution first on the path
    result = subprocess.run([sys.executable, *command], capture_output=True, text=True, cwd=tmp_path, env=env,
                            timeout=600)  # fmt: skip
    assert result.stderr.splitlines() == [
        "minesweeper-rl: the package 'openai-agents-lookalike' also installs a top-level 'agents' that hides ours: "
        "pip uninstall openai-agents-lookalike, or use a separate virtual environment"
    ]
    assert result.returncode == (0 if command[0] == "-c" else 2)


@pytest.mark.slow
def test_nothing_is_said_when_nothing_hides_ours(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-c", "import mine_env"], capture_output=True, text=True, cwd=tmp_path,
                            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}, timeout=600)  # fmt: skip
    assert result.returncode == 0 and result.stderr == ""


def test_a_package_another_wheel_wrote_over_is_found_by_its_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Installed as wheels, both distributions put their files in one folder: the path check cannot tell, the
    hash our wheel recorded can."""
    from mine_env import name_clash

    ours = b"OURS = 1\n"
    digest = base64.urlsafe_b64encode(hashlib.sha256(ours).digest()).rstrip(b"=").decode()
    info = tmp_path / "minesweeper_rl-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: minesweeper-rl\nVersion: 0.1.0\n")
    (info / "RECORD").write_text(f"agents/__init__.py,sha256={digest},9\neval/__init__.py,sha256={digest},9\n")
    for package, text in (("agents", b"THEIRS = 1\n"), ("eval", ours)):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_bytes(text)
    monkeypatch.setattr(name_clash, "_ROOT", tmp_path)
    assert name_clash._overwritten(["agents", "eval"]) == ["agents"]


def test_a_package_of_ours_no_finder_knows_is_said_to_need_a_new_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """An editable install made before a package was added knows nothing of it: the line says to install again."""
    import importlib.util

    from mine_env import name_clash

    known = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: None if name == "battle" else known(name))
    assert name_clash.shadowed_packages() == ["battle"]
    message = name_clash.clash_message("battle")
    assert "is not installed" in message and "pip install -e" in message


def test_a_package_this_process_blocked_itself_is_not_called_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    from mine_env import name_clash

    monkeypatch.setitem(sys.modules, "train", None)  # as a check that plays without train blocks it
    assert "train" not in name_clash.shadowed_packages()
