"""Hostile input files, generated: each is small on disk and costly if read naively."""

from __future__ import annotations

import io
import random
import zipfile

import docx
from pypdf import PdfWriter


def deep_html(depth: int = 5_000) -> bytes:
    """HTML nested ``depth`` levels deep (past Python's recursion limit by default)."""
    return ("<html><body>" + "<div>" * depth + "deep text" + "</div>" * depth
            + "</body></html>").encode()


def alias_bomb_markdown() -> bytes:
    """Front matter of ten levels of ten aliases: 10^10 strings once expanded."""
    lines = ['a0: &a0 ["lol"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 11)]
    return ("---\ntitle: Bomb\n" + "\n".join(lines) + "\n---\n# Body\n\nText.\n").encode()


def docx_bytes(text: str) -> bytes:
    """A real .docx with one paragraph."""
    document = docx.Document()
    document.add_paragraph(text)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def with_zero_member(archive: bytes, name: str, size: int) -> bytes:
    """``archive`` plus a member of ``size`` zero bytes, written in 1 MB pieces."""
    out = io.BytesIO(archive)
    with zipfile.ZipFile(out, "a", compression=zipfile.ZIP_DEFLATED) as zf, \
            zf.open(name, "w", force_zip64=True) as member:
        block = bytes(1024 * 1024)
        for _ in range(size // len(block)):
            member.write(block)
    return out.getvalue()


def blank_pdf(pages: int) -> bytes:
    """A PDF of ``pages`` blank pages (10,000 take about a second and 1.2 MB)."""
    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(72, 72)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def garbage(seed: str, size: int = 64 * 1024) -> bytes:
    """Random bytes, the same for the same seed."""
    return random.Random(seed).randbytes(size)  # noqa: S311 - test data, not secrets
