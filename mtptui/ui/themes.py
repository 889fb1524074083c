"""Themes shipped in ``themes/*.toml`` (the repo's folder, or the copy packed into the wheel), as Textual themes.

Only these are offered (``--theme``, ``t``, the palette): each sets the colours mtptui's panes are drawn with
(``MTPTUI_VARIABLES`` beside the base colours), which Textual's built-in themes do not (with ``ansi-light`` the
healthy line was green on green), so an app unregisters the built-in ones (``install_themes``).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Iterable

from textual.app import App
from textual.theme import Theme

from mtptui.errors import ConfigError, UserError

DEFAULT_THEME = "mtptui-dark"
COLOR_FIELDS = ("primary", "secondary", "warning", "error", "success", "accent", "foreground", "background",
                "surface", "panel", "boost")
OTHER_FIELDS = {"name": str, "dark": bool, "luminosity_spread": float, "text_alpha": float, "variables": dict}
MTPTUI_VARIABLES = ("border", "footer-key-foreground")  # what mtptui's own CSS reads beyond the base colours


def theme_dirs() -> list[Path]:
    """``themes/`` of a source checkout, then ``mtptui/themes`` inside an installed wheel."""
    package = Path(__file__).resolve().parents[1]
    candidates = [package.parent / "themes", package / "themes"]
    return [path for path in candidates if path.is_dir()]


def load_theme_file(path: Path) -> Theme:
    """One theme file; a bad file is a ConfigError naming it."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read theme: {exc}") from None
    unknown = set(data) - set(COLOR_FIELDS) - set(OTHER_FIELDS)
    if unknown:
        raise ConfigError(f"{path}: unknown theme field(s): {', '.join(sorted(unknown))}")
    missing = [field for field in ("primary", "success", "warning", "error", "background") if
               not isinstance(data.get(field), str)]
    missing += [f"variables.{name}" for name in MTPTUI_VARIABLES if name not in (data.get("variables") or {})]
    if missing:
        raise ConfigError(f"{path}: a theme of mtptui sets {', '.join(missing)} (the colours its panes use)")
    for key, kind in OTHER_FIELDS.items():
        if key in data and not isinstance(data[key], kind):
            raise ConfigError(f"{path}: theme field {key!r} must be a {kind.__name__}")
    data.setdefault("name", path.stem)
    return Theme(**data)


def load_themes(dirs: Iterable[Path] | None = None) -> dict[str, Theme]:
    """Every theme found, by name; the first directory wins on a clash."""
    themes: dict[str, Theme] = {}
    for folder in theme_dirs() if dirs is None else dirs:
        for path in sorted(folder.glob("*.toml")):
            theme = load_theme_file(path)
            themes.setdefault(theme.name, theme)
    return themes


def resolve_theme(name: str | None, available: Iterable[str]) -> str:
    """The theme to start with: ``dark``/``light`` are short for ``mtptui-dark``/``mtptui-light``."""
    names = list(available)
    if name is None:
        return DEFAULT_THEME if DEFAULT_THEME in names else names[0]
    for candidate in (name, f"mtptui-{name}"):
        if candidate in names:
            return candidate
    raise UserError(f"unknown theme {name!r} (themes: {', '.join(sorted(names))})")


def check_theme(name: str | None) -> None:
    """A bad --theme is a one-sentence error before anything starts (only the shipped themes are mtptui's)."""
    resolve_theme(name, load_themes())


def install_themes(app: App[Any], name: str | None) -> dict[str, Theme]:
    """Register the shipped themes, start with ``name`` (``--theme``), and unregister every other theme, so that
    the palette's theme picker offers only themes that set mtptui's colours; the shipped themes by name."""
    shipped = load_themes()
    for theme in shipped.values():
        app.register_theme(theme)
    app.theme = resolve_theme(name, shipped)
    for other in [other for other in app.available_themes if other not in shipped]:
        app.unregister_theme(other)
    return shipped
