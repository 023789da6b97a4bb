"""Threads of the readers: one file alone uses every core (pyarrow's threads and helper
threads); many files at once (:func:`ranger_eval.ir.evaluate_many`) use one thread each
(:func:`one_thread`)."""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from contextlib import contextmanager

_THREAD = threading.local()


@contextmanager
def one_thread() -> Iterator[None]:
    """Inside the block, this thread reads and evaluates without helper threads: pyarrow's CSV
    reader single-threaded, sorts not split, checks and digests inline. For callers that already
    keep every core busy with one run per thread (:func:`ranger_eval.ir.evaluate_many`), where
    nested thread pools only add switching and coordination (a quarter more CPU per run)."""
    before = getattr(_THREAD, "alone", False)
    _THREAD.alone = True
    try:
        yield
    finally:
        _THREAD.alone = before


def single_threaded() -> bool:
    """True inside :func:`one_thread` (in this thread)."""
    return bool(getattr(_THREAD, "alone", False))


class _Inline(Executor):
    """An executor that runs each task at once in the calling thread (for :func:`one_thread`)."""

    def submit(self, fn: Callable[..., object], /, *args: object, **kwargs: object) -> Future:
        done: Future = Future()
        try:
            done.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 (delivered by result(), as a pool would)
            done.set_exception(exc)
        return done


def helper_pool(workers: int) -> Executor:
    """A thread pool of ``workers``, or an inline executor inside :func:`one_thread`."""
    return _Inline() if single_threaded() else ThreadPoolExecutor(max_workers=workers)
