"""``python -m dudo`` runs the ``dudo`` command."""

from dudo.cli import app

app(prog_name="dudo")
