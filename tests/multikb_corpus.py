"""Three small domain knowledge bases (and one the public cannot read) for the several-KB
tests: original documents, each KB with its own distinctive words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

KB_DOCS: dict[str, dict[str, str]] = {
    "hr": {
        "parental-leave.md": "---\ntitle: Parental Leave Policy\n---\n# Parental leave\n\n"
        "Employees who become parents receive 20 weeks of paid parental leave. Parental leave "
        "can be split into two blocks within the child's first year. Request parental leave "
        "in the HR portal at least four weeks before it starts.\n",
        "relocation.md": "---\ntitle: Relocation Allowance\n---\n# Relocation\n\n"
        "Staff who move to another office receive a relocation allowance of 3,000 euros. "
        "The allowance covers movers, temporary housing and the first month's commute.\n",
    },
    "it": {
        "vpn.md": "---\ntitle: Remote Access VPN\n---\n# VPN\n\n"
        "Connect to the corporate VPN with the Tunnelblick client and sign in with your "
        "badge number. If the VPN tunnel drops every few minutes, switch the tunnel "
        "protocol to TCP in the Tunnelblick settings. VPN accounts expire after 90 days "
        "without a login; the helpdesk renews them.\n",
        "printers.md": "---\ntitle: Badge Printers\n---\n# Printers\n\n"
        "Print jobs wait in the secure queue until you tap your badge on any printer. "
        "Jobs left in the queue are deleted after 24 hours.\n",
    },
    "eng": {
        "release-train.md": "---\ntitle: Release Train\n---\n# Release train\n\n"
        "Services ship on the Thursday release train. A hotfix outside the train needs the "
        "approval of the on-call staff engineer. Canary deploys take 5% of traffic for "
        "thirty minutes before the full rollout.\n",
    },
    "finance": {
        "budget-freeze.md": "---\ntitle: Hardware Budget Freeze\nacl: [user:U0CFO]\n---\n"
        "# Budget freeze\n\nThe hardware budget freeze lasts until the audit closes. Laptop "
        "purchases above 2,000 dollars need the controller's signature during the freeze.\n",
    },
}


def ingest_kbs(pool: Any, embedder: Any, root: Path,
               names: tuple[str, ...] = ("hr", "it", "eng")) -> None:
    """Write each KB's documents under ``root`` and ingest them into KBs of those names."""
    from store.ingest import ingest_paths

    for name in names:
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        for file, text in KB_DOCS[name].items():
            (folder / file).write_text(text, encoding="utf-8")
        report = ingest_paths(pool, name, [folder], embedder=embedder)
        assert report.failed == 0, report.errors
