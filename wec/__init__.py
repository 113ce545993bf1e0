"""Weaponized Chess: the rules engine (``wec.engine``), what the game keeps on disk
(``wec.storage``), LAN play (``wec.net``), the 3D client (``wec.client``) and the
``wec`` command (``wec.cli``). Each layer imports only the ones before it."""

__version__ = "0.2.0"
