"""The committed corpus of bad inputs (``tests/bad_inputs/``): every case ends in a clear error or a
correct result — never a traceback, a hang, silent acceptance or an overwritten input.

Each folder ``tests/bad_inputs/NNN-name/`` holds a ``case.yaml`` and the (small) input files; the
format is described in ``tests/bad_inputs/README.md``. A case runs either a ``ranger-eval`` command
in-process (typer's ``CliRunner``; 150 subprocesses would be too slow) or a short Python snippet
with ``rg`` (``ranger_eval``) imported. Hostile inputs that are large or special (FIFOs, device
files, compression bombs, 20 MB lines, thousands of datasets) are made at test time by ``setup:``.

Every case also checks that the input files are unchanged and that no ``.part`` temporary file is
left behind. A case marked ``xfail: "<bug>"`` documents a known bug: it runs with
``xfail(strict=True)``, so the suite fails as soon as the bug is fixed and the mark must go.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
import re
import shutil
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

import ranger_eval as rg
from ranger_eval import errors
from ranger_eval.cli import app

CORPUS = Path(__file__).resolve().parent / "bad_inputs"
TIMEOUT_S = 20
#: The fixed set of classes a case belongs to (README.md explains each).
CLASSES = frozenset({
    "encoding", "line-endings", "identifiers", "config", "output-safety", "resources",
    "meta-extremes", "labels", "pairing", "trec", "cli-values", "api", "tables", "degenerate",
})
TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^\s+File \".*\", line \d+", re.M)
MAX_ERROR_LINES = 10
MAX_HASHED_BYTES = 64 * 2**20


# ----------------------------------------------------------------------------- loading cases
def _load(folder: Path) -> dict[str, Any]:
    # libyaml's loader when PyYAML has it: the pure-Python one took 2.8 s of every test
    # process's collection for the ~460 case files
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    spec = yaml.load((folder / "case.yaml").read_text(encoding="utf-8"), Loader=loader)  # noqa: S506
    assert isinstance(spec, dict), f"{folder.name}/case.yaml: not a mapping"
    assert spec.get("class") in CLASSES, f"{folder.name}: class {spec.get('class')!r} not in {sorted(CLASSES)}"
    assert ("command" in spec) != ("python" in spec), f"{folder.name}: give exactly one of command/python"
    expect = spec.get("expect")
    assert isinstance(expect, dict) and (("error" in expect) != ("ok" in expect)), (
        f"{folder.name}: expect needs exactly one of error/ok")
    assert spec.get("description"), f"{folder.name}: no description"
    return spec


def _params() -> Iterator[Any]:
    for folder in sorted(p for p in CORPUS.iterdir() if (p / "case.yaml").is_file()):
        spec = _load(folder)
        marks = [pytest.mark.timeout(spec.get("timeout", TIMEOUT_S))]
        if spec.get("xfail"):
            marks.append(pytest.mark.xfail(strict=True, reason=str(spec["xfail"])))
        if spec.get("slow"):
            marks.append(pytest.mark.slow)
        yield pytest.param(folder, id=folder.name, marks=marks)


# ----------------------------------------------------------------------------- setup directives
def _gzip_bomb(path: Path, decompressed_mb: int = 1024) -> None:
    """A gzip file of ``decompressed_mb`` MiB of zeros, a few hundred kB on disk (one member,
    repeated: gzip readers concatenate members)."""
    member = gzip.compress(b"0" * 2**20, compresslevel=9)  # 1 MiB of "0" characters
    with path.open("wb") as fh:
        for _ in range(decompressed_mb):
            fh.write(member)


def _setup(case: Path, directives: Any) -> None:
    if directives is None:
        return
    if isinstance(directives, dict):
        directives = [{k: v} for k, v in directives.items()]
    for directive in directives:
        ((kind, arg),) = directive.items()
        if kind == "fifo":
            os.mkfifo(case / arg)
        elif kind == "symlink_devzero":
            (case / arg).symlink_to("/dev/zero")
        elif kind == "symlink_devnull":
            (case / arg).symlink_to("/dev/null")
        elif kind == "directory":
            (case / arg).mkdir(parents=True)
        elif kind == "gzip_bomb":
            if isinstance(arg, str):
                arg = {"file": arg}
            _gzip_bomb(case / arg["file"], int(arg.get("mb", 1024)))
        elif kind == "long_line":
            # one line of `bytes` characters, after an optional valid `head` and before `tail`
            target = case / arg["file"]
            with target.open("w", encoding="utf-8") as fh:
                fh.write(arg.get("head", ""))
                fh.write(arg.get("char", "x") * int(arg["bytes"]))
                fh.write(arg.get("tail", "\n"))
        elif kind == "sparse":
            with (case / arg["file"]).open("wb") as fh:
                fh.truncate(int(arg["bytes"]))
        elif kind == "write":
            # generated text: {file, text, repeat, head, tail, encoding}
            text = arg.get("head", "") + arg["text"] * int(arg.get("repeat", 1)) + arg.get("tail", "")
            (case / arg["file"]).write_bytes(text.encode(arg.get("encoding", "utf-8")))
        elif kind == "nested_yaml":
            depth = int(arg.get("depth", 10000))
            (case / arg["file"]).write_text(
                arg.get("head", "") + "[" * depth + "]" * depth + "\n", encoding="utf-8")
        elif kind == "many_datasets":
            _many_datasets(case / arg["file"], int(arg["datasets"]), int(arg.get("items", 5)),
                           arg.get("systems", ["A", "B"]))
        elif kind == "chmod":
            os.chmod(case / arg["file"], int(str(arg["mode"]), 8))
        else:  # pragma: no cover - a typo in a case.yaml
            raise AssertionError(f"unknown setup directive {kind!r}")


def _many_datasets(path: Path, datasets: int, items: int, systems: list[str]) -> None:
    lines = ["dataset,system,item,value"]
    for d in range(datasets):
        for s_i, s in enumerate(systems):
            for i in range(items):
                # deterministic, varied values: the treatment is a bit better on average
                v = ((d * 7 + i * 13 + s_i * 5) % 17) / 17 + 0.05 * s_i
                lines.append(f"d{d:05d},{s},q{i},{v:.6f}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# ----------------------------------------------------------------------------- helpers
def _fill(value: Any, subst: dict[str, str]) -> Any:
    if isinstance(value, str):
        for k, v in subst.items():
            value = value.replace("{" + k + "}", v)
        return value
    if isinstance(value, list):
        return [_fill(v, subst) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, subst) for k, v in value.items()}
    return value


def _hashes(root: Path) -> dict[str, str]:
    """SHA-256 of every regular file under ``root`` (FIFOs, devices and symlinks are skipped)."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_symlink() or not p.is_file():
            continue
        st = p.stat()
        if st.st_size > MAX_HASHED_BYTES:  # a sparse 100 GB file: size and time stand for content
            out[str(p.relative_to(root))] = f"{st.st_size}:{st.st_mtime_ns}"
            continue
        digest = hashlib.sha256()
        with p.open("rb") as fh:
            for block in iter(lambda: fh.read(2**20), b""):
                digest.update(block)
        out[str(p.relative_to(root))] = digest.hexdigest()
    return out


def _error_class(name: str) -> type[BaseException]:
    cls = getattr(errors, name, None)
    assert isinstance(cls, type) and issubclass(cls, errors.RangerError), (
        f"case.yaml: {name!r} is not a RangerError subclass in ranger_eval.errors")
    return cls


def _chain(exc: BaseException | None) -> list[BaseException]:
    seen: list[BaseException] = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__
    return seen


def _matches(text: str, pattern: str) -> bool:
    """A ``re:`` prefix makes ``pattern`` a regular expression; otherwise a plain substring."""
    if pattern.startswith("re:"):
        return re.search(pattern[3:], text, re.S) is not None
    return pattern in text


def _run_cli(argv: list[str]) -> tuple[int, str, list[BaseException]]:
    result = CliRunner().invoke(app, argv, catch_exceptions=True)
    output = result.output  # click ≥ 8.2: stdout and stderr interleaved
    chain = _chain(result.exception)
    unexpected = [e for e in chain if not isinstance(e, SystemExit)]
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        # an exception escaped the CLI: show it as the traceback a user would see
        output += "\n" + "".join(traceback.format_exception(result.exception))
    return result.exit_code, output, unexpected


def _lookup(data: Any, key: str) -> Any:
    for part in key.split("."):
        if isinstance(data, list):
            data = data[int(part)]
        else:
            assert isinstance(data, dict) and part in data, f"no key {part!r} in {str(data)[:200]}"
            data = data[part]
    return data


def _check(check: dict[str, Any], output: str, subst: dict[str, str]) -> None:
    """One ``checks:`` item of an ok case (paths are already substituted)."""
    ((kind, arg),) = check.items()
    if kind == "exists":
        for p in [arg] if isinstance(arg, str) else arg:
            assert Path(p).exists(), f"expected output file {p} is missing"
    elif kind == "absent":
        for p in [arg] if isinstance(arg, str) else arg:
            assert not Path(p).exists(), f"{p} should not exist"
    elif kind == "output":
        for m in [arg] if isinstance(arg, str) else arg:
            assert _matches(output, m), f"output lacks {m!r}:\n{output[-2000:]}"
    elif kind == "output_absent":
        for m in [arg] if isinstance(arg, str) else arg:
            assert not _matches(output, m), f"output contains {m!r}:\n{output[-2000:]}"
    elif kind == "file_contains":
        text = Path(arg["file"]).read_text(encoding="utf-8", errors="replace")
        for m in [arg["text"]] if isinstance(arg["text"], str) else arg["text"]:
            assert _matches(text, m), f"{arg['file']} lacks {m!r}"
    elif kind == "file_lacks":
        text = Path(arg["file"]).read_text(encoding="utf-8", errors="replace")
        for m in [arg["text"]] if isinstance(arg["text"], str) else arg["text"]:
            assert not _matches(text, m), f"{arg['file']} contains {m!r}"
    elif kind == "json":
        value = _lookup(json.loads(Path(arg["file"]).read_text(encoding="utf-8")), arg["key"])
        _compare_value(value, arg)
    elif kind == "same_output_as":
        # the same command on the plain (LF, UTF-8, no BOM) variant prints the same
        code, other, _ = _run_cli([str(a) for a in _fill(arg, subst)])
        assert code == 0, f"reference command failed:\n{other}"
        assert _strip_paths(output, subst) == _strip_paths(other, subst), (
            f"output differs from the reference command:\n{output}\n---\n{other}")
    elif kind == "same_json":
        # {files: [a, b], keys: [...]}: the same numbers (to 1e-9) in two JSON outputs
        a, b = (json.loads(Path(p).read_text(encoding="utf-8")) for p in arg["files"])
        for key in arg["keys"]:
            va, vb = _lookup(a, key), _lookup(b, key)
            assert va == vb or math.isclose(va, vb, rel_tol=1e-9), f"{key}: {va!r} != {vb!r}"
    elif kind == "same_table":
        # two tables equal apart from their `# ranger-eval:` signature lines
        a, b = ([ln for ln in Path(p).read_text(encoding="utf-8").splitlines() if not ln.startswith("#")]
                for p in arg)
        assert a == b, f"{arg[0]} differs from {arg[1]}"
    elif kind == "same_file_as":
        a, b = (Path(p).read_bytes() for p in arg)
        assert a == b, f"{arg[0]} differs from {arg[1]}"
    else:  # pragma: no cover - a typo in a case.yaml
        raise AssertionError(f"unknown check {kind!r}")


def _compare_value(value: Any, arg: dict[str, Any]) -> None:
    if "equals" in arg:
        assert value == arg["equals"], f"{arg['key']} = {value!r}, expected {arg['equals']!r}"
    if "approx" in arg:
        assert isinstance(value, (int, float)) and math.isclose(
            value, float(arg["approx"]), rel_tol=float(arg.get("rel", 1e-6)),
            abs_tol=float(arg.get("abs", 0.0))), f"{arg['key']} = {value!r}, expected ≈ {arg['approx']}"
    if "finite" in arg:
        assert isinstance(value, (int, float)) and math.isfinite(value), f"{arg['key']} = {value!r}"


def _strip_paths(text: str, subst: dict[str, str]) -> str:
    """Output with file names removed (the reference command reads other files), one line per
    non-path line: only the numbers and labels are compared."""
    lines = []
    for line in text.splitlines():
        if line.startswith("wrote:"):
            continue
        for v in subst.values():
            line = line.replace(v, "")
        lines.append(re.sub(r"\S*/\S*", "", line))
    return "\n".join(lines)


# ----------------------------------------------------------------------------- the test
@pytest.mark.parametrize("folder", list(_params()))
def test_bad_input(folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = _load(folder)
    case = tmp_path / "case"
    shutil.copytree(folder, case, symlinks=True)
    (case / "case.yaml").unlink()
    out = tmp_path / "out"
    subst = {"case": str(case), "out": str(out), "tmp": str(tmp_path)}
    _setup(case, _fill(spec.get("setup"), subst))
    before = _hashes(case)
    monkeypatch.chdir(tmp_path)  # default output folders (ranger-output/ …) land in tmp_path
    expect = _fill(spec["expect"], subst)

    for argv in _fill(spec.get("before", []), subst):  # earlier runs (stale outputs, report …)
        code, output, _ = _run_cli([str(a) for a in argv])
        assert code == 0, f"`before` command {argv} failed:\n{output}"

    if "command" in spec:
        code, output, chain = _run_cli([str(a) for a in _fill(spec["command"], subst)])
        assert not TRACEBACK.search(output), f"traceback in the output:\n{output}"
        if "error" in expect:
            assert code != 0, f"exit code 0 (silent acceptance) for a bad input:\n{output}"
            _check_cli_error(expect, code, output, chain)
        else:
            assert code == 0, f"exit code {code}:\n{output}"
            for check in expect.get("checks", []):
                _check(check, output, subst)
    else:
        _run_python(spec["python"], expect, case, out, tmp_path)

    # inputs unchanged, no temporary files left behind
    after = _hashes(case)
    changed = [f for f, h in before.items() if after.get(f) != h]
    assert not changed, f"input files changed or removed: {changed}"
    parts = [str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.part")]
    assert not parts, f"temporary files left behind: {parts}"


def _check_cli_error(expect: dict[str, Any], code: int, output: str,
                     chain: list[BaseException]) -> None:
    kind = expect["error"]
    if kind == "usage":  # rejected by the argument parser (click/typer)
        assert code == 2, f"exit code {code}, expected 2 (usage):\n{output}"
        assert re.search(r"Usage:|Error|Invalid value|No such option|Missing", output), output
    else:
        assert code == 2, f"exit code {code}, expected 2 (bad input):\n{output}"
        assert "ranger-eval: error:" in output, f"no `ranger-eval: error:` line:\n{output}"
        if kind != "any":
            cls = _error_class(kind)
            found = [type(e).__name__ for e in chain]
            assert any(isinstance(e, cls) for e in chain), (
                f"expected a {kind}, the error chain was {found}:\n{output}")
    lines = [ln for ln in output.splitlines() if ln.strip()]
    assert len(lines) < MAX_ERROR_LINES, f"{len(lines)} lines of output for an error:\n{output}"
    for m in expect.get("mentions", []):
        assert _matches(output, str(m)), f"the message does not mention {m!r}:\n{output}"
    for m in expect.get("not_mentions", []):
        assert not _matches(output, str(m)), f"the message mentions {m!r}:\n{output}"


def _run_python(code: str, expect: dict[str, Any], case: Path, out: Path, tmp_path: Path) -> None:
    namespace: dict[str, Any] = {"rg": rg, "case": case, "out": out, "tmp": tmp_path}
    exec("import numpy as np\nimport pandas as pd\n", namespace)
    if "error" in expect:
        cls = _error_class(expect["error"])
        with pytest.raises(Exception) as info:  # noqa: PT011 - the type is checked below
            exec(compile(code, "<case>", "exec"), namespace)
        exc = info.value
        assert isinstance(exc, cls), (
            f"raised {type(exc).__name__}: {exc} — expected {expect['error']}")
        message = str(exc)
        assert len(message.splitlines()) < MAX_ERROR_LINES, f"message too long:\n{message}"
        for m in expect.get("mentions", []):
            assert _matches(message, str(m)), f"the message does not mention {m!r}: {message}"
    else:
        exec(compile(code, "<case>", "exec"), namespace)  # the snippet asserts the result
