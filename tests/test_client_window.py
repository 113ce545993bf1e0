"""The real window's configuration follows the Smooth edges setting, and a player drawing
without a graphics card is told how to make the board faster."""

from wec.client.app import software_renderer_advice, window_prc
from wec.client.settings import Settings, load_settings, save_settings


def test_smooth_edges_ask_for_a_4x_multisampled_window() -> None:
    prc = window_prc(Settings(smooth_edges=True))
    assert "framebuffer-multisample 1" in prc.splitlines()
    assert "multisamples 4" in prc.splitlines()
    assert "win-size 1280 800" in prc.splitlines()


def test_without_smooth_edges_the_window_is_not_multisampled() -> None:
    prc = window_prc(Settings(smooth_edges=False))
    assert "multisample" not in prc
    assert "win-size 1280 800" in prc.splitlines()


def test_a_software_renderer_with_smooth_edges_gets_advice() -> None:
    renderer = "llvmpipe (LLVM 15.0.6, 256 bits)"
    assert software_renderer_advice(renderer, Settings()) == (
        "Drawing without a graphics card (llvmpipe (LLVM 15.0.6, 256 bits)): turn off "
        "Smooth edges in Settings for a faster board")


def test_no_advice_on_a_graphics_card_or_with_smooth_edges_off() -> None:
    assert software_renderer_advice("NVIDIA GeForce RTX 3060/PCIe/SSE2", Settings()) == ""
    assert software_renderer_advice("llvmpipe (LLVM 15.0.6, 256 bits)",
                                    Settings(smooth_edges=False)) == ""


def test_the_setting_is_kept_between_starts(tmp_path) -> None:
    path = tmp_path / "settings.json"
    save_settings(Settings(smooth_edges=False), path)
    settings, problem = load_settings(path)
    assert problem is None
    assert settings.smooth_edges is False
