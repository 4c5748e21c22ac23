"""The wheel: every sub-package listed, and the built-in engines work from an install."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_every_sub_package_is_listed_for_the_wheel() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for path in (ROOT / "bughouse_arbiter").rglob("__init__.py")
    }
    shipped = {"bughouse_arbiter.engines", "bughouse_arbiter.engines.searcher"}
    assert set(config["packages"]) == found | shipped
    assert config["package-dir"] == {"bughouse_arbiter.engines": "engines"}
    assert (ROOT / "engines" / "searcher" / "__init__.py").is_file()


def _run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=300, **kwargs)  # type: ignore[call-overload, no-any-return]


@pytest.mark.slow
def test_a_match_runs_from_an_installed_wheel(tmp_path: Path) -> None:
    # Build the wheel (setuptools in an isolated build environment, as pip does),
    # install it alone into a folder, and play from there: nothing may come from
    # the source tree.
    built = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)]
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("bughouse_arbiter-*.whl")
    site = tmp_path / "site"
    installed = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-index",
            "-q",
            "--target",
            str(site),
            str(wheel),
        ]
    )
    assert installed.returncode == 0, installed.stderr
    assert (site / "bughouse_arbiter" / "engines" / "searcher" / "search.py").is_file()
    assert (site / "bughouse_arbiter" / "py.typed").is_file()
    assert any((site / "bughouse_arbiter" / "web" / "assets").iterdir())
    env = {**os.environ, "PYTHONPATH": str(site)}
    where = _run(
        [
            sys.executable,
            "-c",
            "from bughouse_arbiter.config import specs; print(specs.ENGINES_DIR)",
        ],
        env=env,
        cwd=tmp_path,
    )
    assert where.stdout.strip() == str(site / "bughouse_arbiter" / "engines"), where.stderr
    out = tmp_path / "wheel.bpgn"
    match = _run(
        [
            sys.executable,
            "-m",
            "bughouse_arbiter",
            "match",
            "--tc",
            "10+0",
            "--rule",
            "max_plies=12",
            "--engine",
            "WB=random",
            "--out",
            str(out),
        ],
        env=env,
        cwd=tmp_path,
    )
    assert match.returncode == 0, match.stdout + match.stderr
    text = out.read_text()
    assert '[Result "' in text and "Searcher" in text and "RandomMover" in text
