"""The page files shipped in ``web/assets/``, read once per process."""

from __future__ import annotations

import functools
from importlib import resources


@functools.cache
def asset(name: str) -> bytes:
    """The bytes of ``assets/NAME`` (package data: it does not change while we run)."""
    return resources.files(__package__).joinpath("assets", name).read_bytes()


def asset_text(name: str) -> str:
    return asset(name).decode("utf-8")
