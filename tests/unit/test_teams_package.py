"""``ragbot teams package``: the manifest with the app id, and the icons."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from PIL import Image

from bot.cli.teams import DEFAULT_SOURCE
from bot.teams.package import PackageError, build

APP_ID = "3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"


def test_package_fills_in_the_app_id_and_holds_the_icons(tmp_path: Path) -> None:
    out = build(DEFAULT_SOURCE, APP_ID, tmp_path / "app.zip")
    with zipfile.ZipFile(out) as zf:
        assert sorted(zf.namelist()) == ["color.png", "manifest.json", "outline.png"]
        manifest = json.loads(zf.read("manifest.json"))
        with zf.open("color.png") as f:
            assert Image.open(f).size == (192, 192)
        with zf.open("outline.png") as f:
            assert Image.open(f).size == (32, 32)
    assert manifest["manifestVersion"] == "1.25"
    assert manifest["id"] == APP_ID
    bot = manifest["bots"][0]
    assert bot["botId"] == APP_ID
    assert set(bot["scopes"]) == {"personal", "team", "groupChat"}
    titles = {c["title"] for c in bot["commandLists"][0]["commands"]}
    assert {"reindex", "status", "help"} <= titles
    rsc = manifest["authorization"]["permissions"]["resourceSpecific"]
    assert {"name": "ChannelMessage.Read.Group", "type": "Application"} in rsc
    assert "${{" not in json.dumps(manifest)


def test_an_app_id_that_is_not_a_guid_is_refused_and_nothing_written(tmp_path: Path) -> None:
    with pytest.raises(PackageError, match="RAGBOT_TEAMS_APP_ID"):
        build(DEFAULT_SOURCE, "my-bot", tmp_path / "app.zip")
    assert list(tmp_path.iterdir()) == []


def test_cli_writes_the_package(tmp_path: Path) -> None:
    env = {"RAGBOT_TEAMS_APP_ID": APP_ID, "RAGBOT_HOME": str(tmp_path / "home"),
           "PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    code = "import sys; from bot.cli import main; sys.exit(main())"
    done = subprocess.run([sys.executable, "-c", code, "teams", "package", "--out",  # noqa: S603
                           str(tmp_path / "ragbot-teams.zip")], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert zipfile.is_zipfile(tmp_path / "ragbot-teams.zip")
