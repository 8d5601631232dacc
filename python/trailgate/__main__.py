"""``python -m trailgate``: the same as the ``trailgate`` command."""

from trailgate._cli import main

main()
