"""The command line's exit codes and its behaviour at the ends of a pipe."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]


def test_help_documents_exit_status_two_for_errors() -> None:
    assert "2 error" in build_parser().format_help()


def test_ingest_of_a_missing_path_exits_2_and_names_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("RAGBOT_HOME", str(tmp_path))
    real = tmp_path / "notes.md"
    real.write_text("# Notes\n\nThe kettle is in room 4.\n", encoding="utf-8")
    missing = tmp_path / "no-such-folder"
    assert main(["ingest", str(real), str(missing), "--kb", "notes"]) == 2
    err = capsys.readouterr().err
    assert f"{missing}: no such file or folder" in err
    assert not (tmp_path / "pg").exists()  # nothing started, nothing written


def _results(path: Path, kinds: list[str]) -> Path:
    lines = [{"id": f"q{i}", "answer": "", "refused": False, "latency_ms": 10,
              "retrieved_doc_ids": [], "cited_doc_ids": [], "scores": {"kind": kind}}
             for i, kind in enumerate(kinds)]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def test_output_into_a_closed_pipe_prints_no_traceback(tmp_path: Path) -> None:
    a = _results(tmp_path / "a.jsonl", [f"kind{i}" for i in range(40)])
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAGBOT_HOME": str(tmp_path)}
    proc = subprocess.Popen(  # noqa: S603 - our own CLI, like `ragbot eval compare | head`
        [sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main())",
         "eval", "compare", str(a), str(a)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    assert proc.stdout is not None
    assert proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first line is written
    err = proc.stderr.read().decode()
    assert proc.wait(60) == 141
    assert "Traceback" not in err
    assert "BrokenPipeError" not in err
    assert "command_failed" not in err
