"""An orbiting camera: it circles a point above the board, zooms and pans.

Mouse: middle-drag (or Alt + left-drag) orbits, Shift + middle-drag pans, the wheel
zooms. Keys: arrows orbit and tilt, Shift + arrows pan, +/- zoom, Home returns behind
the viewing side (letters belong to the game: A is the Actions menu, D a Drop). The
state is four numbers, so a view can be restored exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from wec.client.layout import home_heading
from wec.engine.pieces import Side

MIN_DISTANCE, MAX_DISTANCE = 6.0, 40.0
MIN_PITCH, MAX_PITCH = 8.0, 89.0


@dataclass(frozen=True, slots=True)
class Orbit:
    """Heading (0 looks toward +Y, 90 toward +X), pitch above the horizon, distance,
    and the point looked at (X, Y, Z)."""

    heading: float
    pitch: float
    distance: float
    target: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def eye(self) -> tuple[float, float, float]:
        """Where the camera stands for this orbit."""
        h, p = math.radians(self.heading), math.radians(self.pitch)
        tx, ty, tz = self.target
        flat = self.distance * math.cos(p)
        return (tx - flat * math.sin(h), ty - flat * math.cos(h),
                tz + self.distance * math.sin(p))

    def turned(self, degrees: float) -> Orbit:
        return replace(self, heading=(self.heading + degrees) % 360)

    def tilted(self, degrees: float) -> Orbit:
        return replace(self, pitch=min(MAX_PITCH, max(MIN_PITCH, self.pitch + degrees)))

    def zoomed(self, factor: float) -> Orbit:
        return replace(self, distance=min(MAX_DISTANCE, max(MIN_DISTANCE,
                                                            self.distance * factor)))

    def panned(self, right: float, forward: float) -> Orbit:
        """Move the target along the ground, relative to where the camera looks."""
        h = math.radians(self.heading)
        tx, ty, tz = self.target
        x = tx + right * math.cos(h) + forward * math.sin(h)
        y = ty - right * math.sin(h) + forward * math.cos(h)
        return replace(self, target=(max(-6.0, min(6.0, x)), max(-6.0, min(6.0, y)), tz))


def home_orbit(side: Side) -> Orbit:
    """Behind the side's home rows, looking across the board."""
    toward_enemy = 0.6 if side is Side.WHITE else -0.6  # a little beyond the centre
    return Orbit(heading=home_heading(side), pitch=56.0, distance=21.5,
                 target=(0.0, toward_enemy, 0.0))


class OrbitCamera:
    """Drives ``base.camera`` from an Orbit and the player's mouse and keys."""

    def __init__(self, base: Any, side: Side) -> None:
        self.base = base
        self.orbit = home_orbit(side)
        self._drag: tuple[str, float, float] | None = None
        self._keys: dict[str, bool] = {}
        base.disableMouse()
        self.apply()

    def apply(self) -> None:
        self.base.camera.setPos(*self.orbit.eye())
        self.base.camera.lookAt(*self.orbit.target)

    def set_orbit(self, orbit: Orbit) -> None:
        self.orbit = orbit
        self.apply()

    def go_home(self, side: Side) -> None:
        self.set_orbit(home_orbit(side))

    def bind(self, accept: Any) -> None:
        """Bind the camera's mouse buttons and keys through ``accept(event, handler)``."""
        accept("mouse2", self._start_drag, ["orbit"])
        accept("shift-mouse2", self._start_drag, ["pan"])
        accept("alt-mouse1", self._start_drag, ["orbit"])
        for event in ("mouse2-up", "shift-mouse2-up", "alt-mouse1-up", "mouse1-up"):
            accept(event, self._end_drag)
        accept("wheel_up", self.zoom, [0.9])
        accept("wheel_down", self.zoom, [1.1])
        for key in ("arrow_left", "arrow_right", "arrow_up", "arrow_down", "+", "=", "-"):
            accept(key, self._key, [key, True])
            accept(f"{key}-up", self._key, [key, False])
        for key in ("arrow_left", "arrow_right", "arrow_up", "arrow_down"):
            # Shift + an arrow pans; either release ends both (shift may go up first)
            accept(f"shift-{key}", self._key, [f"pan-{key}", True])
            accept(f"shift-{key}-up", self._key, [key, False])

    def zoom(self, factor: float) -> None:
        self.set_orbit(self.orbit.zoomed(factor))

    def _key(self, key: str, down: bool) -> None:
        self._keys[key] = down
        if not down:
            self._keys[f"pan-{key}"] = False

    def _start_drag(self, mode: str) -> None:
        watcher = self.base.mouseWatcherNode
        if watcher is not None and watcher.hasMouse():
            mouse = watcher.getMouse()
            self._drag = (mode, mouse.x, mouse.y)

    def _end_drag(self) -> None:
        self._drag = None

    def update(self, dt: float) -> None:
        """Per frame: follow a drag, and held keys at a steady rate."""
        orbit = self.orbit
        keys = self._keys
        turn = 90.0 * dt
        if keys.get("arrow_left"):
            orbit = orbit.turned(-turn)
        if keys.get("arrow_right"):
            orbit = orbit.turned(turn)
        if keys.get("arrow_up"):
            orbit = orbit.tilted(turn * 0.6)
        if keys.get("arrow_down"):
            orbit = orbit.tilted(-turn * 0.6)
        step = 8.0 * dt
        right = (keys.get("pan-arrow_right", False) - keys.get("pan-arrow_left", False)) * step
        forward = (keys.get("pan-arrow_up", False) - keys.get("pan-arrow_down", False)) * step
        if right or forward:
            orbit = orbit.panned(right, forward)
        if keys.get("+") or keys.get("="):
            orbit = orbit.zoomed(1 - dt)
        if keys.get("-"):
            orbit = orbit.zoomed(1 + dt)
        orbit = self._follow_drag(orbit)
        if orbit != self.orbit:
            self.set_orbit(orbit)

    def _follow_drag(self, orbit: Orbit) -> Orbit:
        watcher = self.base.mouseWatcherNode
        if self._drag is None or watcher is None or not watcher.hasMouse():
            return orbit
        mode, x0, y0 = self._drag
        mouse = watcher.getMouse()
        dx, dy = mouse.x - x0, mouse.y - y0
        self._drag = (mode, mouse.x, mouse.y)
        if mode == "orbit":
            return orbit.turned(dx * 120).tilted(-dy * 60)
        return orbit.panned(-dx * orbit.distance * 0.5, -dy * orbit.distance * 0.5)
