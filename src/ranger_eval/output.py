"""Output folders: where a command writes its files.

:class:`OutputFolder` writes every file atomically (a temporary name renamed into place), never
over an input of the run, one run at a time per folder, and ends with ``manifest.json``; figures
are queued as drawing functions and drawn by :meth:`OutputFolder.flush` in up to two forked
worker processes (:func:`figure_workers`, ``RANGER_EVAL_FIGURE_WORKERS``).
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from . import atomic
from ._version import __version__
from .errors import ConfigError
from .progress import progress_bar

__all__ = ["FIGURE_FORMATS", "OutputFolder", "figure_workers", "warm_figure_modules"]

FIGURE_FORMATS: tuple[str, ...] = ("pdf", "svg", "png")


def _figure_formats(figures: Sequence[str] | str | None) -> tuple[str, ...] | None:
    """``None`` (each figure's own formats), ``()`` for "none", or the chosen formats."""
    if figures is None:
        return None
    items = [f.strip().lower() for f in ([figures] if isinstance(figures, str) else figures)]
    items = [x for part in items for x in part.split(",") if x]
    if items == ["none"]:
        return ()
    bad = [f for f in items if f not in FIGURE_FORMATS]
    if bad or not items:
        raise ConfigError(
            f"--figures: {', '.join(bad) or 'empty'}: choose from {', '.join(FIGURE_FORMATS)}, "
            "comma-separated, or none"
        )
    return tuple(dict.fromkeys(items))


#: Figures queued by :meth:`OutputFolder.flush` for its forked workers (read by index there:
#: the drawing functions are closures over result objects and need not be picklable).
_FIGURE_JOBS: list[tuple[Callable[[], Any], Path, tuple[str, ...], float]] = []


def warm_figure_modules(formats: Iterable[str] = FIGURE_FORMATS) -> None:
    """Import what drawing and saving figures in ``formats`` needs (matplotlib and its Agg
    backend, :mod:`ranger_eval.plots`, and per format the PDF backend with fontTools' subsetter,
    the SVG backend, PIL's PNG writer) and open the fonts, with their PDF subsets when PDFs are
    written (:func:`ranger_eval.plots.warm_fonts`), so that the processes forked to draw figures
    start with all of it instead of each loading it again.

    Parameters
    ----------
    formats : iterable of str, default FIGURE_FORMATS
        The formats that will be written.

    Returns
    -------
    None

    Examples
    --------
    >>> import sys
    >>> from ranger_eval.output import warm_figure_modules
    >>> warm_figure_modules(["svg"])
    >>> "matplotlib.backends.backend_svg" in sys.modules
    True
    """
    import matplotlib.backends.backend_agg  # noqa: F401

    from .plots import _style

    wanted = {f.lower().lstrip(".") for f in formats}
    if wanted & {"pdf", "ps", "eps"}:
        import matplotlib.backends.backend_pdf  # noqa: F401
    if "svg" in wanted:
        import matplotlib.backends.backend_svg  # noqa: F401
    if "png" in wanted:
        from PIL import PngImagePlugin  # noqa: F401
    _style.warm_fonts(pdf=bool(wanted & {"pdf", "ps", "eps"}))


def figure_workers() -> int:
    """Processes that draw figures: ``RANGER_EVAL_FIGURE_WORKERS`` if set, else up to 2 of the
    CPUs this process may use (1 means draw in this process).

    Returns
    -------
    int
        The number of processes (at least 1).

    Raises
    ------
    ConfigError
        ``RANGER_EVAL_FIGURE_WORKERS`` that is not a whole number.

    Examples
    --------
    >>> import os
    >>> from ranger_eval.output import figure_workers
    >>> 1 <= figure_workers() <= max(2, int(os.environ.get("RANGER_EVAL_FIGURE_WORKERS") or 2))
    True
    """
    import os

    env = os.environ.get("RANGER_EVAL_FIGURE_WORKERS", "").strip()
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise ConfigError(
                f"RANGER_EVAL_FIGURE_WORKERS={env!r}: not a whole number (1 = no worker processes)"
            ) from None
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover (not Linux)
        cpus = os.cpu_count() or 1
    return max(1, min(2, cpus))


def _fork_context() -> Any:
    """A ``fork`` multiprocessing context where fork is the safe default (Linux), else None."""
    import multiprocessing as mp
    import sys

    if not sys.platform.startswith("linux") or "fork" not in mp.get_all_start_methods():
        return None
    return mp.get_context("fork")


#: ``gid`` of the footer text that :func:`ranger_eval.plots._style.add_signature` draws.
SIGNATURE_GID = "ranger-signature"  # as in plots._style (importing plots loads matplotlib)


def footer_signature(fig: Any) -> str | None:
    """The signature printed in the footer of ``fig`` (that of the result it draws), or None;
    a footer wrapped over several lines (after its ``|``) is joined back."""
    return next((t.get_text().replace("\n", "") for t in getattr(fig, "texts", ())
                 if t.get_gid() == SIGNATURE_GID), None)


def _save(fig: Any, stem: Path, formats: tuple[str, ...], dpi: float
          ) -> tuple[list[str], str | None]:
    """Save ``fig`` in its formats (atomically): (the paths, the signature in its footer)."""
    from .plots import save_figure

    signature = footer_signature(fig)
    return [str(p) for p in save_figure(fig, stem, formats=formats, dpi=dpi)], signature


def _draw_and_save(job: tuple[Callable[[], Any], Path, tuple[str, ...], float]
                   ) -> tuple[list[str], str | None]:
    """Draw one queued figure and save it in its formats (atomically): (the paths, the
    signature in its footer)."""
    draw, stem, formats, dpi = job
    return _save(draw(), stem, formats, dpi)


def _draw_indexed(index: int) -> tuple[int, tuple[list[str], str | None]]:
    return index, _draw_and_save(_FIGURE_JOBS[index])


class OutputFolder:
    """Where a command writes: atomic files, never over an input, one writer at a time, and a
    manifest of what was written.

    ``inputs`` are the files the run read; writing to one of them is refused with a
    :class:`ConfigError` (choose another ``--out``). Every file is written to a temporary name in
    the folder and renamed into place, so a reader never sees half a file. An exclusive
    ``flock`` on the folder itself, taken at the first write and released by :meth:`finish` or
    :meth:`close` (or when the process ends), makes a second run into the same folder fail at
    once instead of interleaving its files; no lock file is created, so none is left behind.
    :meth:`finish` writes ``manifest.json``: for each file its name, size, SHA-256 and the
    signature of the result it holds (the ``signature`` given to :meth:`text` or
    :meth:`figure`, else the run's), plus the run's signature and command; it removes the files
    that the previous run's manifest listed and this run did not write again — never any other
    file.
    """

    #: The lock file that versions before 0.1.0's plain outputs left in every output folder;
    #: removed (when empty) by the next run into the folder.
    OLD_LOCK = ".ranger-eval.lock"

    def __init__(self, path: str | Path, inputs: Iterable[str | Path] = (),
                 figures: Sequence[str] | None = None, workers: int | None = None) -> None:
        self.path = Path(path)
        self.figure_formats = _figure_formats(figures)
        self.workers = figure_workers() if workers is None else max(1, int(workers))
        self._pending: list[tuple[Callable[[], Any], Path, tuple[str, ...], float]] = []
        self._costs: list[float] = []
        self.inputs = {Path(p).resolve() for p in inputs}
        if self.path.exists() and not self.path.is_dir():
            raise ConfigError(f"--out {self.path}: exists and is not a folder")
        blocker = next((p for p in self.path.parents if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            raise ConfigError(f"--out {self.path}: cannot create the folder, because {blocker} "
                              "is a file, not a folder; choose another output folder")
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"--out {self.path}: cannot create the folder "
                              f"({exc.strerror or exc})") from exc
        self.written: list[Path] = []
        self.signatures: dict[str, str] = {}  # file name → signature of the result it holds
        self._lock: int | None = None  # folder descriptor: flock taken at the first write
        self._previous = self._previous_outputs()

    def _acquire(self) -> int:
        """An exclusive, non-blocking ``flock`` on the folder (its open descriptor, returned);
        a run that holds it already is a :class:`ConfigError`."""
        import fcntl
        import os

        fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise ConfigError(
                f"--out {self.path}: another ranger-eval run is writing into this folder; "
                "wait for it or choose another output folder"
            ) from None
        old = self.path / self.OLD_LOCK
        try:
            if old.is_file() and old.stat().st_size == 0:
                old.unlink()
        except OSError:
            pass
        return fd

    def _previous_outputs(self) -> list[str]:
        manifest = self.path / "manifest.json"
        try:
            files = json.loads(manifest.read_text(encoding="utf-8"))["files"]
            return [str(f["file"]) for f in files if "/" not in str(f["file"])]
        except (OSError, ValueError, KeyError, TypeError):
            return []

    def close(self) -> None:
        """Release the lock (also done by :meth:`finish`)."""
        lock = getattr(self, "_lock", None)  # None also when __init__ failed early
        if lock is not None:
            import os

            self._lock = None
            os.close(lock)

    def __del__(self) -> None:
        self.close()

    def __enter__(self) -> OutputFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def target(self, name: str) -> Path:
        """The path of output ``name``, checked against the inputs."""
        p = self.path / name
        if p.resolve() in self.inputs:
            raise ConfigError(
                f"--out {self.path}: writing {name} would overwrite the input file {p}; "
                "choose another output folder"
            )
        return p

    def claim(self, names: Iterable[str]) -> None:
        """Check planned output names against the inputs before any work is done."""
        for name in names:
            self.target(name)

    def _writing(self) -> None:
        if self._lock is None:
            self._lock = self._acquire()

    def _signed(self, names: Iterable[str], signature: object | None) -> None:
        for name in names:
            if signature is None:
                self.signatures.pop(name, None)
            else:
                self.signatures[name] = str(signature)

    def text(self, name: str, content: str, signature: object | None = None) -> Path:
        """Write ``content`` to ``name`` atomically; ``signature``: that of the result the
        file holds, listed for it in ``manifest.json`` (default: the run's)."""
        self._writing()
        p = atomic.write_text(self.target(name), content)
        self.written.append(p)
        self._signed([p.name], signature)
        return p

    def parts(self, name: str, parts: Iterable[bytes], signature: object | None = None) -> Path:
        """Write the UTF-8 ``parts`` of a large text file (comparison.json at a million
        datasets) to ``name`` atomically, part by part, as :meth:`text` writes a string."""
        self._writing()
        p = atomic.write_parts(self.target(name), parts)
        self.written.append(p)
        self._signed([p.name], signature)
        return p

    def figure(self, fig: Any, stem: str, formats: Sequence[str], dpi: float = 300,
               cost: float = 1.0, signature: object | None = None) -> list[Path]:
        """Save a figure (or a function that draws it, called only when something is saved) in
        ``formats``, or in the run's ``figures`` formats when those were chosen (none: skip).
        The manifest lists each file with the signature of the result the figure draws: the one
        in its footer (:func:`footer_signature`), else ``signature``, else the run's.

        A drawn figure is saved at once. A function is queued and drawn and saved by
        :meth:`flush` (called by :meth:`finish`), in a pool of worker processes when there are
        several, the most costly first (``cost``: the expected drawing time relative to a
        typical figure; longest-first keeps the workers busy until the end); the paths it will
        write are returned now."""
        if self.figure_formats is not None:
            formats = self.figure_formats
        if not formats:
            return []
        self._writing()
        formats = tuple(formats)
        paths = [self.target(f"{stem}.{fmt}") for fmt in formats]
        self._signed([p.name for p in paths], signature)
        if callable(fig) and not hasattr(fig, "savefig"):
            self._pending.append((fig, self.path / stem, formats, dpi))
            self._costs.append(float(cost))
            return paths
        saved, footer = _save(fig, self.path / stem, formats, dpi)
        written = [Path(p) for p in saved]
        if footer is not None:
            self._signed([p.name for p in written], footer)
        self.written += written
        return written

    def flush(self) -> list[Path]:
        """Draw and save the queued figures: in up to :attr:`workers` forked processes when there
        are several (each process draws its figures and writes them atomically; the most costly
        are handed out first), else here; the files join :attr:`written` in the order they were
        queued. Returns their paths."""
        jobs, self._pending = self._pending, []
        costs, self._costs = self._costs, []
        if not jobs:
            return []
        import gc


        results: list[tuple[list[str], str | None]] = [([], None) for _ in jobs]
        order = sorted(range(len(jobs)), key=lambda i: -costs[i])  # stable: queue order
        with progress_bar("writing figures", total=len(jobs)) as advance:
            context = _fork_context() if self.workers > 1 and len(jobs) > 1 else None
            if context is None:
                for i, job in enumerate(jobs):
                    results[i] = _draw_and_save(job)
                    advance()
            else:
                global _FIGURE_JOBS
                try:  # once, here, before fork: not again in every worker
                    warm_figure_modules({f for job in jobs for f in job[2]})
                except Exception:  # noqa: BLE001 (only a head start: drawing imports what it needs)
                    pass

                _FIGURE_JOBS = jobs
                # gc.freeze before fork (Python's gc docs): the workers' collections then never
                # walk, and so never copy, the parent's objects; undone once they are finished
                # (unless something froze objects before: the command line does)
                frozen_before = gc.get_freeze_count() > 0
                gc.freeze()
                try:
                    with context.Pool(min(self.workers, len(jobs))) as pool:
                        for i, saved in pool.imap_unordered(_draw_indexed, order, chunksize=1):
                            results[i] = saved
                            advance()
                finally:
                    if not frozen_before:
                        gc.unfreeze()
                    _FIGURE_JOBS = []
        written = [Path(p) for paths, _ in results for p in paths]
        for paths, footer in results:
            if footer is not None:
                self._signed([Path(p).name for p in paths], footer)
        self.written += written
        return written

    def finish(self, signature: str, command: str | None = None,
               warnings: Sequence[str] = (), inputs: Sequence[dict[str, Any]] = ()) -> Path:
        """Write the queued figures, then ``manifest.json`` listing every file of this run, its
        ``warnings`` (one line each; from the command line in its words: options, not
        keywords) and, under ``inputs``, each folder tree of logs the run read (every file taken
        and every entry skipped with its reason,
        :meth:`ranger_eval.io.logtree.LogTree.to_dict`); returns its path."""
        self.flush()
        self._writing()
        files = []
        for p in dict.fromkeys(self.written):
            digest = hashlib.sha256()
            size = 0
            with open(p, "rb") as handle:  # in blocks: a 400 MB comparison.json stays on disk
                while block := handle.read(1 << 22):
                    digest.update(block)
                    size += len(block)
            files.append({"file": p.name, "bytes": size, "sha256": digest.hexdigest(),
                          "signature": self.signatures.get(p.name, signature)})
        manifest = {"tool": f"ranger-eval {__version__}", "signature": signature,
                    "command": command, "files": files,
                    "warnings": [" ".join(str(w).split()) for w in warnings]}
        if inputs:
            manifest["inputs"] = list(inputs)
        current = {p.name for p in self.written} | {"manifest.json"}
        for name in self._previous:  # outputs of the previous run that this run did not write
            stale = self.path / name
            if name not in current and stale.is_file() and stale.resolve() not in self.inputs:
                stale.unlink()
        p = atomic.write_text(self.target("manifest.json"),
                              json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
        self.written.append(p)
        self.close()
        return p
