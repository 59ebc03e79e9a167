"""The Teams app package: ``teams/manifest.json`` with the bot's app id filled in, and the
two icons, zipped flat as Teams' "Upload a custom app" expects."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any

PLACEHOLDER = "${{TEAMS_APP_ID}}"
ICONS = ("color.png", "outline.png")
_GUID = re.compile(r"^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$")


class PackageError(Exception):
    """The package cannot be built (the message names the fix)."""


def manifest(template: Path, app_id: str) -> dict[str, Any]:
    """The manifest with ``app_id`` in place of the placeholder (bot id, app id, RSC)."""
    if not _GUID.match(app_id):
        raise PackageError(f"RAGBOT_TEAMS_APP_ID {app_id!r} is not an Entra application id "
                           "(a GUID such as 00000000-0000-0000-0000-000000000000)")
    text = template.read_text(encoding="utf-8")
    if PLACEHOLDER not in text:
        raise PackageError(f"{template} has no {PLACEHOLDER} placeholder to fill in")
    data: dict[str, Any] = json.loads(text.replace(PLACEHOLDER, app_id))
    return data


def build(source_dir: Path, app_id: str, out: Path) -> Path:
    """Write the zip to ``out`` (written beside it first, so a failure leaves nothing)."""
    data = manifest(source_dir / "manifest.json", app_id)
    for icon in ICONS:
        if not (source_dir / icon).is_file():
            raise PackageError(f"{source_dir / icon} is missing (the manifest names it)")
    partial = out.with_name(out.name + ".partial")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", json.dumps(data, indent=2, ensure_ascii=False))
        for icon in ICONS:
            zf.write(source_dir / icon, icon)
    partial.replace(out)
    return out
