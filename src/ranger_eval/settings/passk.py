"""The settings of :func:`~ranger_eval.pass_at_k` and :func:`~ranger_eval.pass_hat_k`:
:class:`PassKSettings`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ._base import _choice, _setting, _Settings

#: What to do with an item that has fewer than k samples: ``error`` names them, ``drop`` leaves
#: them out with a warning naming them and counting them.
PASSK_MISSING: tuple[str, ...] = ("error", "drop")


@dataclass(frozen=True)
class PassKSettings(_Settings):
    """The settings of :func:`~ranger_eval.pass_at_k` and :func:`~ranger_eval.pass_hat_k` (the
    per-item pass@k / pass^k estimators over repeated samples). ``k`` is data-like (the
    question asked of the samples) and stays an argument of the functions.

    Parameters
    ----------
    missing : {'error', 'drop'}, default 'error'
        An item with fewer than k samples: ``error`` names it (dataset, system, item, n);
        ``drop`` leaves it out with a warning naming it and counting the items dropped.

    Raises
    ------
    SettingsError
        A refused value, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import PassKSettings
    >>> PassKSettings(missing="drop")
    PassKSettings(missing='drop')
    """

    command: ClassVar[str] = "passk"
    section: ClassVar[str] = "passk"

    missing: str = _setting(
        "error", "An item with fewer than k samples: error (name it) or drop (warn, count).",
        _choice(PASSK_MISSING, "missing"), cli=False, yaml=None)
