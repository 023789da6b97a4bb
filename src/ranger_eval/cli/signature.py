"""``ranger-eval signature [SIGNATURE]``: what each field of a reproducibility signature means."""
from __future__ import annotations

import typer

from ..errors import InputError
from ..signature import FIELDS, RETIRED, describe_fields, parse_signature, signature_level
from ._common import friendly_errors


def register(app: typer.Typer) -> None:
    @app.command("signature")
    @friendly_errors
    def signature(
        text: str | None = typer.Argument(  # noqa: UP007
            None, help="A signature to explain (default: list every field)."
        ),
    ) -> None:
        """Explain the reproducibility signature printed under every table and figure."""
        if text is None:
            typer.echo(describe_fields())
            return
        try:
            fields = parse_signature(text)
        except ValueError as exc:  # signature.py sits below errors.py: re-raised as InputError
            raise InputError(f"argument SIGNATURE: {exc}") from exc
        width = max(map(len, fields))
        for key, value in fields.items():
            meaning = FIELDS.get(key, "(unknown field)")
            level = signature_level({key: value}) if key in RETIRED else None
            if level is not None:  # an older signature's alpha: said in today's vocabulary
                meaning += f"; here {RETIRED[key]} {level:g}"
            typer.echo(f"{key:<{width}}  {value:<24}  {meaning}")
