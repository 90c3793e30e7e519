"""tests/slow_tests.txt names tests that exist, so that a renamed test does not silently join `make test-fast`."""

from __future__ import annotations

import re

from conftest import ROOT, slow_tests


def test_every_listed_slow_test_is_a_test_function_of_its_file() -> None:
    missing = []
    for name in sorted(slow_tests()):
        path, function = name.split("::")
        source = ROOT / path
        if not source.is_file() or not re.search(rf"^def {function}\(", source.read_text(), re.M):
            missing.append(name)
    assert not missing, f"tests/slow_tests.txt names tests that do not exist: {missing}"
