"""Deployment files: no default database password, no dependency floor with known CVEs."""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

import yaml
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]


def _requirement(name: str) -> Requirement:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    found = [Requirement(d) for d in deps["dependencies"] if Requirement(d).name == name]
    assert len(found) == 1, name
    return found[0]


def test_pypdf_floor_is_past_the_known_advisories() -> None:
    spec = _requirement("pypdf").specifier
    # 6.14.2 still had CVE-2026-71852 and CVE-2026-71870 (fixed in 6.15.0)
    for vulnerable in ("5.9.0", "6.0.0", "6.14.2"):
        assert not spec.contains(vulnerable), vulnerable
    assert spec.contains(version("pypdf"))


def test_compose_takes_the_database_password_from_the_environment_only() -> None:
    compose = yaml.safe_load((ROOT / "compose.yml").read_text("utf-8"))
    db_env = compose["services"]["db"]["environment"]
    bot_env = compose["services"]["bot"]["environment"]
    required = "${POSTGRES_PASSWORD:?"
    assert db_env["POSTGRES_PASSWORD"].startswith(required)
    assert required in bot_env["DATABASE_URL"]
    assert ":-" not in db_env["POSTGRES_PASSWORD"] + bot_env["DATABASE_URL"]
