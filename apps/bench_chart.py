"""The SVG bar chart of `scripts/bench apps`, written by hand (no packages).

One panel per app and size: a bar per runtime, its median time relative to joule's
(shorter is faster; the dashed line is joule), the seconds and, where the
power model gave it, the energy at the bar's end.
"""
from xml.sax.saxutils import escape

COLOURS = {"joule": "#1f77b4", "joule-energy": "#2ca02c", "sequential": "#7f7f7f",
           "libgomp": "#ff7f0e", "libomp": "#d62728", "tbb": "#9467bd", "starpu": "#8c564b"}
BAR_H, GAP, LABEL_W, PLOT_W, TITLE_H = 18, 4, 110, 420, 24


def panel(app, rows, top):
    """SVG elements of one app's panel starting at y = top, and its height."""
    base = next((r["median_s"] for r in rows if r["runtime"] == "joule"), rows[0]["median_s"])
    longest = max(r["median_s"] / base for r in rows)
    scale = PLOT_W / max(longest, 1.0)
    parts = [f'<text x="4" y="{top + 16}" font-weight="bold">{escape(app)} '
             f'(n {rows[0]["size"]}, block {rows[0]["block"]})</text>']
    y = top + TITLE_H
    for r in rows:
        ratio = r["median_s"] / base
        w = max(1.0, ratio * scale)
        colour = COLOURS.get(r["runtime"], "#17becf")
        note = f'{r["median_s"]:.3f} s  ({ratio:.2f}x)'
        if r["energy_j"] is not None:
            note += f'  {r["energy_j"]:.1f} J'
        parts.append(f'<text x="{LABEL_W - 6}" y="{y + 13}" text-anchor="end">'
                     f'{escape(r["runtime"])}</text>')
        parts.append(f'<rect x="{LABEL_W}" y="{y}" width="{w:.1f}" height="{BAR_H}" '
                     f'fill="{colour}"/>')
        parts.append(f'<text x="{LABEL_W + w + 4:.1f}" y="{y + 13}">{escape(note)}</text>')
        y += BAR_H + GAP
    x1 = LABEL_W + scale
    parts.append(f'<line x1="{x1:.1f}" y1="{top + TITLE_H - 2}" x2="{x1:.1f}" y2="{y}" '
                 'stroke="#000" stroke-dasharray="4,3"/>')
    return parts, y - top + 10


def write_chart(path, rows):
    groups = list(dict.fromkeys((r["app"], r["size"], r["block"]) for r in rows))
    parts, y = [], 30
    for g in groups:
        elems, height = panel(g[0], [r for r in rows if (r["app"], r["size"], r["block"]) == g], y)
        parts += elems
        y += height
    width = LABEL_W + PLOT_W + 260
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y}" '
            f'font-family="sans-serif" font-size="12">\n'
            f'<rect width="100%" height="100%" fill="#fff"/>\n'
            f'<text x="4" y="18" font-size="14" font-weight="bold">Median time relative to '
            f'joule (dashed line; shorter is faster)</text>\n')
    path.write_text(head + "\n".join(parts) + "\n</svg>\n")
