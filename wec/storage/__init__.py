"""What the game keeps on disk, above the engine and below the network: saved games and
the saves folder (``saves``), the player's preferences (``preferences``), the bundled
scenarios (``scenarios``) and the one safe way to write a file (``files``)."""
