"""The user guide (docs/guide/*.md) cannot rot: every command in its ```console / ```bash blocks
is run (in-process, from a copy of the repository's guide data, in a temporary folder) and must
succeed; every output file the page names under a command's ``--out`` folder must exist; every
```yaml block headed ``# file: PATH`` must equal that file."""
from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ranger_eval.cli import app

# End-to-end tier, runs every command of the guide pages end to end: CI runs it (`pytest -m "slow or hypothesis"`);
# the default `pytest` leaves it out to stay under two minutes on two cores.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide"
PAGES = sorted(GUIDE.glob("*.md"))
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.S | re.M)
SKIP = ("pip ",)  # installing is not tested here (tests/test_install.py does)


def commands(page: Path) -> list[str]:
    """Commands of a page, in order: ``$ ``-lines of console blocks, every line of bash blocks."""
    found = []
    for lang, body in FENCE.findall(page.read_text(encoding="utf-8")):
        if lang == "console":
            found += [ln[2:].strip() for ln in body.splitlines() if ln.startswith("$ ")]
        elif lang in ("bash", "sh", "shell"):
            found += [ln.strip() for ln in body.splitlines()
                      if ln.strip() and not ln.lstrip().startswith("#")]
    return [c for c in found if not c.startswith(SKIP)]


def shown_outputs(page: Path, outs: set[str]) -> list[str]:
    """Paths in inline code (`folder/file.ext`) whose folder is an ``--out`` of the page."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    spans = re.findall(r"`([^`\s]+/[^`\s]+\.\w+)`", text)
    return [s for s in spans if s.split("/")[0] in outs]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("guide")
    shutil.copytree(GUIDE / "data", work / "docs" / "guide" / "data",
                    ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return work


_done: dict[str, str] = {}  # a command shown on several pages (the demo) runs once


def run(command: str, cwd: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    if command in _done:
        return _done[command]
    redirect = None
    if " > " in command:
        command, redirect = (part.strip() for part in command.split(" > ", 1))
    argv = shlex.split(command)
    assert argv[0] == "ranger-eval", f"the guide runs only ranger-eval commands: {command}"
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("RANGER_EVAL_PROGRESS", "0")
    result = CliRunner().invoke(app, argv[1:], catch_exceptions=False)
    assert result.exit_code == 0, f"{command}\n{result.output}"
    if redirect is not None:
        (cwd / redirect).write_text(result.stdout, encoding="utf-8")
    _done[command if redirect is None else f"{command} > {redirect}"] = result.stdout
    return result.stdout


def test_the_guide_has_one_page_per_task_and_an_index():
    names = {p.name for p in PAGES}
    assert {"index.md", "compare-two-systems.md", "rank-many-systems.md", "meta-analysis.md",
            "trec-runs.md", "lm-eval-logs.md"} <= names
    index = (GUIDE / "index.md").read_text(encoding="utf-8")
    for page in names - {"index.md"}:
        assert f"]({page})" in index, page


@pytest.mark.parametrize("page", [p for p in PAGES], ids=lambda p: p.stem)
def test_every_command_of_the_page_runs_and_writes_what_it_shows(page, workdir, monkeypatch):
    cmds = commands(page)
    if page.name != "index.md":
        assert cmds, f"{page.name} shows no command"
    outs: set[str] = set()
    for command in cmds:
        stdout = run(command, workdir, monkeypatch)
        argv = shlex.split(command.split(" > ")[0])
        if "--out" in argv:
            outs.add(argv[argv.index("--out") + 1])
        if argv[1:2] == ["demo"]:
            outs.add("demo")
        assert stdout is not None
    for shown in shown_outputs(page, outs):
        assert (workdir / shown).is_file(), f"{page.name} shows {shown}, which was not written"


def test_the_llm_evaluation_pages_python_blocks_run(workdir, monkeypatch, capsys):
    """The LLM-evaluation page's ```python blocks run in order (one namespace), from the copy of
    the guide data, and the numbers the page quotes from them are what they compute."""
    page = GUIDE / "llm-evaluation.md"
    blocks = [body for lang, body in FENCE.findall(page.read_text(encoding="utf-8"))
              if lang == "python"]
    assert len(blocks) == 3
    monkeypatch.chdir(workdir)
    namespace: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, str(page), "exec"), namespace)  # noqa: S102 - the page's own code
    import ranger_eval as rg

    described = rg.describe(namespace["diff"]).iloc[0]
    assert round(float(described["icc"]), 4) == 0.2985
    assert round(float(described["var_within"]), 4) == 0.0013
    sd = namespace["diff"].groupby("item")["value"].mean().std()  # type: ignore[attr-defined]
    assert round(float(sd), 4) == 0.3443
    ppi = rg.ppi_mean(namespace["scores"], system="small")
    assert (round(ppi.estimate, 3), round(ppi.ci_low, 3), round(ppi.ci_high, 3)) == (
        3.319, 3.136, 3.501)


def test_yaml_blocks_are_the_files_they_name():
    for page in PAGES:
        for lang, body in FENCE.findall(page.read_text(encoding="utf-8")):
            first = body.splitlines()[0] if body else ""
            if lang == "yaml" and first.startswith("# file: "):
                path = ROOT / first.removeprefix("# file: ").strip()
                assert body.split("\n", 1)[1] == path.read_text(encoding="utf-8"), (page, path)


def test_the_guide_data_is_what_its_script_writes(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_data", GUIDE / "data" / "make_data.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.write_trec(tmp_path / "trec")
    module.write_wide(tmp_path / "wide.csv")
    module.write_lm_eval(tmp_path / "lm-eval")
    module.write_llm_eval(tmp_path / "llm-eval")
    for p in tmp_path.rglob("*"):
        if p.is_file():
            rel = p.relative_to(tmp_path)
            assert p.read_bytes() == (GUIDE / "data" / rel).read_bytes(), rel
