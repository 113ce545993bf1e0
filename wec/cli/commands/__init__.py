"""Sub-commands of ``wec`` grouped by concept, one module each.

Every module here defines ``register(commands)``, which adds its parsers to the
``wec`` sub-command set (``wec.cli.build_parser`` calls them in name order).
"""
