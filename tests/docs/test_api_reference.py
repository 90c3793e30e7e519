"""The API reference covers every package of the repository: a page of docs/api/ and a line of the site's nav."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def packages() -> list[str]:
    """The top-level packages: folders of the repository root with an ``__init__.py`` (tests left out)."""
    return sorted(path.parent.name for path in ROOT.glob("*/__init__.py") if path.parent.name != "tests")


def test_every_package_has_an_api_page_in_the_nav() -> None:
    nav = (ROOT / "mkdocs.yml").read_text()
    assert "mine_llm" in packages()
    for name in packages():
        page = ROOT / "docs" / "api" / f"{name}.md"
        assert page.is_file(), f"{name} has no API page: write docs/api/{name}.md with '::: {name}'"
        assert f"::: {name}" in page.read_text()
        assert f"- {name}: api/{name}.md" in nav, f"mkdocs.yml's nav has no line for api/{name}.md"
