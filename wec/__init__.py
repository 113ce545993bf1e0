"""The ``wec`` command: the engine from the command line (and, later, the game)."""
