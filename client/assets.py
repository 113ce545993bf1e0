"""Loading the generated 3D models (``models/<detail>/*.egg``) for the client.

``ModelLibrary`` hands out one fresh copy of a model per call, so the caller may tint,
turn, reparent or remove it freely; each file is read and flattened once and then kept.

What the client does with the copies (see ``client/modelgen.py`` for the geometry
conventions): place the piece on its square (base at z=0, one unit per square), turn it
toward its owner's forward (+Y is the model's forward, R1.3) and tint it with
``setColorScale`` by side and level; light vertex colours take the tint, dark ones stay
dark, so the details read under any tint.

The board draws pieces and tokens through ``piece_lod`` and ``article_lod``: in the
detailed set, a level-of-detail switch shows the detailed model near the camera and its
far stand-in (``models/detailed_far``: the same parts, fewer segments around round
parts) from ``LOD_SWITCH_DISTANCE`` on, where the difference is under a pixel. Panda3D
picks the model per piece and per frame in C++ (no Python work per frame).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from panda3d.core import Filename, LODNode, NodePath

from wec.client.modelgen import (
    DETAIL_LEVELS,
    FAR_SUFFIX,
    LOD_SWITCH_DISTANCE,
    MODELS_DIR,
    SHAPE_SETS,
    article_file_stem,
    piece_file_stem,
    projectile_file_stem,
)
from wec.client.resources import model_file
from wec.engine.pieces import ArticleKind, Hand, PieceKind

FARTHEST = 1.0e6  # world units: "and beyond" for the far model's switch


class ModelLibrary:
    """Pieces, article tokens and projectiles of one shape set ("simple" or "detailed",
    the view option), loaded through a Panda3D ``Loader``."""

    def __init__(self, loader: Any, detail: str = "simple", root: Path | None = None) -> None:
        if detail not in DETAIL_LEVELS:
            raise ValueError(f"unknown model detail {detail!r}; expected "
                             f"{' or '.join(DETAIL_LEVELS)}")
        self._loader = loader
        self._detail = detail
        self._root = root or MODELS_DIR
        far = detail + FAR_SUFFIX
        self._far_detail = far if far in SHAPE_SETS else None
        self._prototypes: dict[tuple[str, str], NodePath] = {}

    @property
    def detail(self) -> str:
        return self._detail

    @property
    def has_far_models(self) -> bool:
        """True when the set has a far stand-in (the detailed set), so ``*_lod`` copies
        switch models with the distance."""
        return self._far_detail is not None

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

    def piece_lod(self, kind: PieceKind, hand: Hand | None = None) -> NodePath:
        """``piece`` as the board draws it: with the far stand-in beyond the switch
        distance when the set has one (the same model otherwise)."""
        return self._lod(piece_file_stem(kind, hand))

    def article_lod(self, kind: ArticleKind) -> NodePath:
        """``article`` as the board draws it (see ``piece_lod``)."""
        return self._lod(article_file_stem(kind))

    def _lod(self, stem: str) -> NodePath:
        """A level-of-detail switch over the near and far model of ``stem``. Distances
        are measured in the switch's own coordinates, so a token scaled down to ride on
        a carrier switches sooner, as its smaller round parts allow."""
        if self._far_detail is None:
            return self._copy(stem)
        key = (stem, "lod")
        prototype = self._prototypes.get(key)
        if prototype is None:
            switch = LODNode(stem)
            prototype = NodePath(switch)
            switch.addSwitch(LOD_SWITCH_DISTANCE, 0.0)
            self._prototype(stem, self._detail).copyTo(prototype)
            switch.addSwitch(FARTHEST, LOD_SWITCH_DISTANCE)
            self._prototype(stem, self._far_detail).copyTo(prototype)
            self._prototypes[key] = prototype
        return NodePath(prototype.node().copySubgraph())

    def _copy(self, stem: str) -> NodePath:
        return NodePath(self._prototype(stem, self._detail).node().copySubgraph())

    def _prototype(self, stem: str, detail: str) -> NodePath:
        key = (stem, detail)
        prototype = self._prototypes.get(key)
        if prototype is None:
            prototype = self._load(stem, detail)
            self._prototypes[key] = prototype
        return prototype

    def _load(self, stem: str, detail: str) -> NodePath:
        path = model_file(self._root / detail, stem)
        if not path.is_file():
            raise FileNotFoundError(
                f"model {path} is missing; regenerate with .venv/bin/python -m wec.client.modelgen"
            )
        # Panda's model cache (model-cache-dir) keeps a binary copy: only the first start
        # parses the text files.
        model: NodePath = self._loader.loadModel(Filename.fromOsSpecific(str(path)))
        model.setName(stem)
        model.flattenStrong()
        return model
