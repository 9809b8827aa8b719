"""SVG by string building, for the charts: escaped text, a theme readable in light and dark,
and a sheet that grows downwards as a chart adds its parts."""

from __future__ import annotations

from xml.sax.saxutils import escape

WIDTH = 400  # viewBox units: at a phone's 320 CSS px a 14-unit label is still 10.7 px
MARGIN = 10  # round the drawing, so no mark touches the image's edge
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"

# Light colours as presentation attributes (they hold where a page's CSP drops <style>),
# dark ones from the style sheet, which any CSS rule overrides them with. Each series is
# at least 4.5:1 against its background (tests/http/test_charts.py), the grid
# 1.4:1 (it only guides the eye).
LIGHT = {"bg": "#ffffff", "ink": "#1d232a", "muted": "#56606b", "grid": "#d9d6cc",
         "s0": "#1f5f8b", "s1": "#b04a0c", "s2": "#6b3fa0", "s3": "#2e7d32", "s4": "#7a6200"}
DARK = {"bg": "#1c2228", "ink": "#e8ecef", "muted": "#a5afb8", "grid": "#323b44",
        "s0": "#6cb2e6", "s1": "#f0a35e", "s2": "#c8a6f0", "s3": "#81c784", "s4": "#e6c65c"}
SERIES = ("s0", "s1", "s2", "s3", "s4")
STYLE = "@media (prefers-color-scheme: dark) {" + "".join(
    f".rc-{name}{{fill:{colour}}}.rc-{name}-line{{stroke:{colour}}}"
    for name, colour in DARK.items()) + "}"


def esc(text: object) -> str:
    """Text or an attribute value, escaped for XML."""
    return escape(str(text), {'"': "&quot;"})


def num(value: float) -> str:
    """A coordinate, to a tenth of a unit."""
    return f"{value:.1f}".removesuffix(".0")


def element(tag: str, attrs: dict[str, object], *children: str) -> str:
    """An element with escaped attributes (None leaves one out) and its children."""
    shown = "".join(f' {name.replace("_", "-")}="{_attr(value)}"'
                    for name, value in attrs.items() if value is not None)
    return f"<{tag}{shown}>{''.join(children)}</{tag}>" if children else f"<{tag}{shown}/>"


def _attr(value: object) -> str:
    return num(value) if isinstance(value, float) else esc(value)


def tip(text: str) -> str:
    """A `<title>` child: what a pointer over the mark says."""
    return f"<title>{esc(text)}</title>"


def colour(name: str) -> str:
    """A theme colour's light value (its dark one comes from STYLE)."""
    return LIGHT[name]


def text(x: float, y: float, words: str, *, tone: str = "ink", size: int = 14,
         anchor: str = "start", bold: bool = False, rotate: int | None = None) -> str:
    """A line of text in a theme colour."""
    turn = f"rotate({rotate} {num(x)} {num(y)})" if rotate else None
    return element("text", {"x": float(x), "y": float(y), "class": f"rc-{tone}",
                            "fill": colour(tone), "font_size": size, "text_anchor": anchor,
                            "font_weight": "bold" if bold else None, "transform": turn},
                   esc(words))


def bar(x: float, y: float, width: float, height: float, series: str, label: str,
        cls: str = "rc-bar") -> str:
    """A filled bar with its value said in its title."""
    return element("rect", {"x": float(x), "y": float(y), "width": float(max(width, 0)),
                            "height": float(max(height, 0)),
                            "class": f"{cls} rc-{series}", "fill": colour(series)}, tip(label))


def marker(x: float, y: float, series: str, label: str, square: bool = False,
           cls: str = "rc-pt") -> str:
    """A line chart's point: a circle, or a square (a second shape, not colour alone)."""
    if square:
        return bar(x - 4.5, y - 4.5, 9, 9, series, label, cls=cls)
    return element("circle", {"cx": float(x), "cy": float(y), "r": 5,
                              "class": f"{cls} rc-{series}", "fill": colour(series)},
                   tip(label))


def rule(x1: float, y1: float, x2: float, y2: float, tone: str = "grid",
         width: float = 1, dash: str | None = None) -> str:
    """A straight line in a theme colour."""
    return element("line", {"x1": float(x1), "y1": float(y1), "x2": float(x2),
                            "y2": float(y2), "class": f"rc-{tone}-line",
                            "stroke": colour(tone), "stroke_width": width,
                            "stroke_dasharray": dash})


def swatch(x: float, y: float, series: str, label: str) -> str:
    """A legend entry: a square of the series' colour and its name."""
    return element("rect", {"x": float(x), "y": float(y - 10), "width": 12, "height": 12,
                            "class": f"rc-{series}", "fill": colour(series)}) + \
        text(x + 17, y, label)


class Sheet:
    """A chart's parts, laid out downwards: `y` is where the next part goes."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.said: list[str] = []  # the data as sentences, for a screen reader's <desc>
        self.y = 0.0

    def add(self, *parts: str) -> None:
        """Draw parts (their coordinates are absolute)."""
        self.parts.extend(parts)

    def say(self, sentence: str) -> None:
        """Put a sentence in the chart's description."""
        self.said.append(sentence)

    def heading(self, words: str) -> None:
        """A panel's heading, below what is drawn so far."""
        self.y += 22
        self.add(text(0, self.y, words, size=16, bold=True))
        self.y += 8

    def note(self, words: str, tone: str = "muted", width: int = 50) -> None:
        """A paragraph below what is drawn so far, in lines that fit the chart's width."""
        line = ""
        for word in words.split():
            if line and len(line) + 1 + len(word) > width:
                self._line(line, tone)
                line = word
            else:
                line = f"{line} {word}".strip()
        self._line(line, tone)

    def _line(self, words: str, tone: str) -> None:
        self.y += 18
        self.add(text(0, self.y, words, tone=tone))

    def svg(self, title: str, summary: str, name: str) -> str:
        """The document: a titled image whose label says what it shows; its viewBox lets a
        page scale it to any width."""
        height = self.y + 12
        desc = " ".join(self.said) or summary
        head = element("svg", {
            "xmlns": "http://www.w3.org/2000/svg",
            "viewBox": f"-{MARGIN} 0 {WIDTH + 2 * MARGIN} {num(height)}",
            "width": WIDTH + 2 * MARGIN, "height": float(height), "role": "img",
            "aria-label": f"{title}. {summary}", "class": f"refit-chart refit-chart-{name}",
            "font-family": FONT, "preserveAspectRatio": "xMinYMin meet"})
        return (head.removesuffix("/>") + ">" + tip(title) + f"<desc>{esc(desc)}</desc>"
                + f"<style>{STYLE}</style>"
                + element("rect", {"x": -MARGIN, "y": 0, "width": WIDTH + 2 * MARGIN,
                                   "height": float(height), "class": "rc-bg",
                                   "fill": colour("bg")})
                + "".join(self.parts) + "</svg>")
