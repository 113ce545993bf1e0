"""Loading the generated 3D models (``models/<detail>/*.egg``) for the client.

``ModelLibrary`` hands out one fresh copy of a model per call, so the caller may tint,
turn, reparent or remove it freely; each file is read and flattened once and then kept.

What the client does with the copies (see ``client/modelgen.py`` for the geometry
conventions): place the piece on its square (base at z=0, one unit per square), turn it
toward its owner's forward (+Y is the model's forward, R1.3) and tint it with
``setColorScale`` by side and level; light vertex colours take the tint, dark ones stay
dark, so the details read under any tint.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from panda3d.core import Filename, NodePath

from client.modelgen import (
    DETAIL_LEVELS,
    MODELS_DIR,
    article_file_stem,
    piece_file_stem,
    projectile_file_stem,
)
from engine.pieces import ArticleKind, Hand, PieceKind


class ModelLibrary:
    """Pieces, article tokens and projectiles of one shape set ("simple" or "detailed",
    the view option), loaded through a Panda3D ``Loader``."""

    def __init__(self, loader: Any, detail: str = "simple", root: Path | None = None) -> None:
        if detail not in DETAIL_LEVELS:
            raise ValueError(f"unknown model detail {detail!r}; expected "
                             f"{' or '.join(DETAIL_LEVELS)}")
        self._loader = loader
        self._detail = detail
        self._directory = (root or MODELS_DIR) / detail
        self._prototypes: dict[str, NodePath] = {}

    @property
    def detail(self) -> str:
        return self._detail

    def piece(self, kind: PieceKind, hand: Hand | None = None) -> NodePath:
        """A piece model; Tanks, Clerics and Choppers need their hand (R2.3), the others
        must not be given one."""
        return self._copy(piece_file_stem(kind, hand))

    def article(self, kind: ArticleKind) -> NodePath:
        """An article token (R3.1), small enough for two per square or one on a carrier."""
        return self._copy(article_file_stem(kind))

    def projectile(self, kind: str) -> NodePath:
        """A projectile in flight: "rocket", "sam" or "torpedo", pointing +Y."""
        return self._copy(projectile_file_stem(kind))

    def _copy(self, stem: str) -> NodePath:
        prototype = self._prototypes.get(stem)
        if prototype is None:
            prototype = self._load(stem)
            self._prototypes[stem] = prototype
        return NodePath(prototype.node().copySubgraph())

    def _load(self, stem: str) -> NodePath:
        path = self._directory / f"{stem}.egg"
        if not path.is_file():
            raise FileNotFoundError(
                f"model {path} is missing; regenerate with .venv/bin/python -m client.modelgen"
            )
        # Panda's model cache (model-cache-dir) keeps a binary copy: only the first start
        # parses the text files.
        model = self._loader.loadModel(Filename.fromOsSpecific(str(path)))
        model.setName(stem)
        model.flattenStrong()
        return model
