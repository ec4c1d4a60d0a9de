"""Every file the package reads at run time is in the built package, not only in a checkout."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "paperfind"


def _package_data_patterns() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["setuptools"]["package-data"]["paperfind"]


def test_every_data_file_of_the_package_is_package_data() -> None:
    """A wheel holds only the modules and the files package-data names: a data file beside a
    module that no pattern names works in an editable install and is missing from an installed
    one (the query encoder's activation peaks were such a file)."""
    patterns = _package_data_patterns()
    data_files = [path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*")
                  if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".py", ".pyc")]
    assert data_files  # the package has data files: the check below is not vacuous
    # fnmatch's * crosses "/", setuptools' glob does not: compare part by part
    def named(rel: str) -> bool:
        return any(len(p.split("/")) == len(rel.split("/"))
                   and all(fnmatch.fnmatchcase(a, b) for a, b in zip(rel.split("/"), p.split("/")))
                   for p in patterns)
    missing = [rel for rel in data_files if not named(rel)]
    assert not missing, f"not in pyproject's package-data: {missing}"
