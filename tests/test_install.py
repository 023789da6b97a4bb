"""The README's two commands: install-and-run, then install-the-tests-and-run-them.

The first (``## Install and run``) installs the runtime dependencies only and runs the demo: the
slow test copies the tracked files into a temporary folder, creates a new venv (no system
site-packages), runs exactly that command there and checks that the whole public API imports
with none of the test extras present. The second (``## Test``) installs the test extras and runs
``pytest``: the slow test resolves its install in the same venv (``--dry-run``) and checks that
pip does not backtrack; a fast test checks that ``.ci/run`` installs and runs exactly that. Both
slow tests need the package index (or a pip cache) and skip when it cannot be reached.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# top-level modules that only the test extras bring (pyproject.toml, [project.optional-dependencies]
# test): the runtime must never import them
TEST_ONLY_MODULES = (
    "pytest", "xdist", "hypothesis", "pytest_timeout", "ruff", "mypy", "importlinter", "grimp",
    "playwright", "sklearn", "sacrebleu", "pytrec_eval", "ir_measures", "inspect_ai", "s3fs",
    "aiobotocore", "boto3", "botocore", "duckdb", "dask", "distributed", "polars",
)
BACKTRACKING = "pip is looking at multiple versions"


def _readme_command(heading: str) -> str:
    """The first ```bash block under the README's ``## heading``."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"\n## {heading}\n" in text, f"README has no '## {heading}' section"
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"```bash\n(.+?)\n```", section, re.S)
    assert match, f"README's '{heading}' section has no command block"
    return match.group(1).strip()


def _install_and_run() -> str:
    return _readme_command("Install and run")


def _install_and_test() -> tuple[str, str]:
    """The README's test command split into its install part and its test part."""
    install, test = (part.strip() for part in _readme_command("Test").split("&&"))
    return install, test


def test_readme_commands_install_runtime_then_tests():
    """First command: the runtime dependencies only (no extra) and the demo; second: the test
    extras and plain pytest (its options are in pyproject.toml)."""
    first = _install_and_run()
    assert re.fullmatch(r"pip install -e \. && ranger-eval demo --out demo-output", first), first
    install, test = _install_and_test()
    assert install == 'pip install -e ".[test]"' and test == "pytest", (install, test)


def test_ci_installs_and_runs_the_readmes_test_command():
    """.ci/run installs exactly what the README's second command installs and runs exactly its
    test command (then the slow tier)."""
    install, test = _install_and_test()
    lines = [line.strip() for line in (REPO / ".ci" / "run").read_text().splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    pip_lines = [line for line in lines if " pip install " in f" {line} "]
    assert len(pip_lines) == 1, pip_lines
    ci_install = re.sub(r"^python3 -m pip", "pip", pip_lines[0])
    ci_install = re.sub(r" --(quiet|disable-pip-version-check)\b", "", ci_install)
    assert ci_install == install, (ci_install, install)
    assert f"python3 -m {test}" in lines, lines
    assert lines.index(pip_lines[0]) < lines.index(f"python3 -m {test}")


def _fresh_project(tmp_path: Path) -> Path:
    """The tracked files (as a clone would have them) copied into tmp_path/project."""
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode().split("\0")
    project = tmp_path / "project"
    for rel in filter(None, files):
        src = REPO / rel
        if src.is_file():
            dst = project / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    return project


NO_INDEX = ("Failed to establish a new connection", "Temporary failure in name resolution",
            "No matching distribution found", "Network is unreachable")


@pytest.mark.timeout(1500)
@pytest.mark.slow
def test_readme_commands_in_fresh_venv(tmp_path):
    project = _fresh_project(tmp_path)
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = str(bindir / "python")
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
           "VIRTUAL_ENV": str(env_dir), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PYTHONPATH", None)

    # 1. the README's first command: runtime dependencies, then the demo
    done = subprocess.run(["bash", "-c", _install_and_run()], cwd=project, env=env,
                          capture_output=True, text=True, timeout=850)
    if done.returncode != 0 and any(m in done.stderr for m in NO_INDEX):
        pytest.skip("the package index is not reachable: cannot install into a fresh venv")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert BACKTRACKING not in done.stdout + done.stderr
    out = project / "demo-output"
    for name in ("forest.pdf", "forest.png", "forest.svg", "summary.json", "summary.md", "effects.csv",
                 "ranking/ranking.csv", "ranking/cd.png"):
        assert (out / name).stat().st_size > 0, name
    # the installed package is the venv's, not the developer's
    where = subprocess.run(
        [python, "-c", "import ranger_eval, sys; print(ranger_eval.__file__, sys.prefix)"],
        capture_output=True, text=True, env=env, check=True,
    ).stdout
    assert str(env_dir) in where and str(project) in where
    assert sys.prefix not in where.split()[0]
    # the whole public API (and the CLI) imports without any test extra: none is installed, and
    # none is imported
    probe = ("import importlib.util, sys\n"
             "import ranger_eval as rg, ranger_eval.cli\n"
             "[getattr(rg, name) for name in rg.__all__]\n"
             f"extras = {TEST_ONLY_MODULES!r}\n"
             "print(sorted(m for m in extras if importlib.util.find_spec(m) is not None))\n"
             "print(sorted({m.split('.')[0] for m in sys.modules} & set(extras)))\n")
    installed, imported = subprocess.run([python, "-c", probe], capture_output=True, text=True,
                                         env=env, check=True).stdout.splitlines()
    assert installed == imported == "[]", (installed, imported)

    # 2. the README's second command: its install resolves the test extras without backtracking
    install, _ = _install_and_test()
    dry = subprocess.run(["bash", "-c", install.replace("pip install", "pip install --dry-run")],
                         cwd=project, env=env, capture_output=True, text=True, timeout=600)
    assert dry.returncode == 0, dry.stdout[-2000:] + dry.stderr[-2000:]
    assert BACKTRACKING not in dry.stdout + dry.stderr, dry.stdout[-3000:]
    assert "Would install" in dry.stdout and "pytest-" in dry.stdout
