"""``python -m toolgate``: the same as the ``toolgate`` command."""

from toolgate._cli import main

main()
