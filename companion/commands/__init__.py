"""One module per ``python -m companion`` command: ``configure(parser)`` and ``run(args)``."""
