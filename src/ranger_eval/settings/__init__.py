"""One frozen, validated settings object per analysis: the single home of every default.

:class:`CompareSettings` (``compare``, ``ranger-eval compare``, the YAML ``compare:`` section),
:class:`RankSettings` (``ranger-eval rank``, the ``aggregate:`` section) and
:class:`MetaSettings` (``ranger-eval meta``, the ``meta:`` section or the top-level keys of the
original Ranger layout) check every field once, in ``__post_init__``, and raise one error class,
:class:`~ranger_eval.errors.SettingsError`, whose message names the key and the value
(``n_resamples: must be a whole number from 1 to 100,000,000 (10^8); got 0``). Values come
back canonical (``correction="BH"`` → ``"fdr_bh"``, ``method="reml"`` → ``"REML"``, sequences
→ tuples), so two equal settings mean the same analysis.

Each field carries a :class:`Setting` in its metadata: its help text, its command-line flag,
where the YAML takes it, the key it has in the result's signature, and the check of its value.
The command-line options and their help (``cli``), the YAML schema (``io.config``), the
pipeline's defaults and the lazy backend all read these fields, so a default is written once
(``tests/test_settings.py`` walks every field and every consumer).

The package: ``_base`` (:class:`Setting`, the value checks, the shared base class and the views
:func:`settings_fields`, :func:`signature_fields`, :func:`check_value`, :func:`check_whole`,
:func:`resolve_settings`, :func:`cli_options`, the lists of choices) and one module per family:
``compare``, ``describe``, ``rank`` (Rank, WinRate, RankInterval, ErrorReduction,
CrossDataset, PredictiveCheck), ``meta``, ``verdicts`` (ASO,
Bayes, PPI), ``arena``, ``plan``. Import every name from ``ranger_eval.settings``.
"""
from __future__ import annotations

from ..errors import ALTERNATIVES
from ._base import (
    APPROACHES,
    CLUSTER_SES,
    COMPARE_TESTS,
    DEGENERATE,
    FAMILIES,
    HYPOTHESES,
    MARGIN_TESTS,
    MAX_RESAMPLES,
    MEASURES,
    META_METHODS,
    META_ORDERS,
    META_TESTS,
    MISSING,
    PAIR_ORDERS,
    POSTHOCS,
    RANK_ORDERS,
    ROPE_MODES,
    SEED_POLICIES,
    Setting,
    check_value,
    check_whole,
    cli_options,
    resolve_settings,
    settings_fields,
    signature_fields,
)
from .agreement import (
    AGREEMENT_METHODS,
    AGREEMENT_SCALES,
    ALT_TEST_METRICS,
    KAPPA_WEIGHTS,
    AgreementSettings,
    AltTestSettings,
)
from .arena import (
    TIE_MODELS,
    ArenaSettings,
)
from .compare import (
    CompareSettings,
)
from .describe import (
    DESCRIBE_INTERVALS,
    DescribeSettings,
)
from .irt import (
    IRT_MODELS,
    IRTSettings,
)
from .meta import (
    MetaSettings,
)
from .monitor import (
    CS_METHODS,
    MONITOR_ORDERS,
    ConfidenceSequenceSettings,
    MonitorSettings,
)
from .passk import (
    PASSK_MISSING,
    PassKSettings,
)
from .plan import (
    PILOT_TESTS,
    PLAN_TESTS,
    PlanSettings,
)
from .rank import (
    CROSS_DATASET_EFFECTS,
    GUMBEL_WEIGHTS,
    MAX_WIN_RATE_RESAMPLES,
    CrossDatasetSettings,
    ErrorReductionSettings,
    PredictiveCheckSettings,
    RankIntervalSettings,
    RankSettings,
    WinRateSettings,
)
from .subset import (
    SUBSET_METHODS,
    SUBSET_PREDICTORS,
    ChooseSubsetSettings,
    SubsetSettings,
)
from .variance import (
    INTERACTIONS,
    VARIANCE_FACTORS,
    VarianceSettings,
)
from .verdicts import (
    ASO_CORRECTIONS,
    BAYES_TESTS,
    PPI_METHODS,
    PRIOR_PLACES,
    ASOSettings,
    BayesSettings,
    PPISettings,
)

__all__ = [
    "SUBSET_METHODS",
    "SUBSET_PREDICTORS",
    "ChooseSubsetSettings",
    "SubsetSettings",
    "AGREEMENT_METHODS",
    "AGREEMENT_SCALES",
    "ALT_TEST_METRICS",
    "KAPPA_WEIGHTS",
    "AgreementSettings",
    "AltTestSettings",
    "INTERACTIONS",
    "VARIANCE_FACTORS",
    "VarianceSettings",
    "ALTERNATIVES",
    "APPROACHES",
    "ASO_CORRECTIONS",
    "ArenaSettings",
    "BAYES_TESTS",
    "CLUSTER_SES",
    "CROSS_DATASET_EFFECTS",
    "COMPARE_TESTS",
    "DEGENERATE",
    "FAMILIES",
    "GUMBEL_WEIGHTS",
    "HYPOTHESES",
    "IRT_MODELS",
    "IRTSettings",
    "MARGIN_TESTS",
    "MAX_RESAMPLES",
    "MAX_WIN_RATE_RESAMPLES",
    "MEASURES",
    "META_METHODS",
    "META_ORDERS",
    "META_TESTS",
    "MISSING",
    "PAIR_ORDERS",
    "PASSK_MISSING",
    "PassKSettings",
    "PILOT_TESTS",
    "PLAN_TESTS",
    "PlanSettings",
    "POSTHOCS",
    "PRIOR_PLACES",
    "RANK_ORDERS",
    "ROPE_MODES",
    "SEED_POLICIES",
    "TIE_MODELS",
    "CompareSettings",
    "ConfidenceSequenceSettings",
    "CS_METHODS",
    "MONITOR_ORDERS",
    "MonitorSettings",
    "DESCRIBE_INTERVALS",
    "DescribeSettings",
    "PPI_METHODS",
    "PPISettings",
    "CrossDatasetSettings",
    "ErrorReductionSettings",
    "PredictiveCheckSettings",
    "MetaSettings",
    "RankIntervalSettings",
    "RankSettings",
    "WinRateSettings",
    "ASOSettings",
    "BayesSettings",
    "Setting",
    "check_value",
    "check_whole",
    "cli_options",
    "resolve_settings",
    "settings_fields",
    "signature_fields",
]
