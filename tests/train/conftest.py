"""What the training tests share: a private Ray instance for the RLlib tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[Any]:
    """A one-CPU local Ray instance for one test module, shut down after it."""
    import ray

    ray.init(address="local", num_cpus=1, include_dashboard=False, object_store_memory=100 * 1024**2,
             configure_logging=False, log_to_driver=False)  # fmt: skip
    yield ray
    ray.shutdown()
