"""``python -m ranger_eval.cli``: the same as the ``ranger-eval`` command."""
from . import main

main()
