"""Each text of a matplotlib SVG drawn as one path, not one ``<use>`` per glyph.

matplotlib draws text as paths (``svg.fonttype: path``): each glyph outline once in a ``<defs>``, then a ``<use>``
element per character. A browser builds a hidden copy of the glyph for every ``<use>``, on the page's main thread,
as the image loads: the multi-head chapter's first figure (971 characters) took about 0.5 s of a phone's CPU
(Chromium, 4x slowdown) to load. Here the glyphs of each text are joined into one ``<path>``, in the same
coordinates, which draws the same outlines, and loads in less than half that time (``tests/site`` compares the
pixels in Chromium).

Each joined path keeps which glyphs it draws in ``data-glyphs`` (the ids matplotlib gave them: font name and glyph
index), for the tests that check which font drew each character. A text matplotlib draws another way (mathtext with
rules, say) is left as it was, with the glyph definitions it still uses.

Each glyph outline is written relative to its first point, so the copies of a character compress well: the
figures grow only a little after gzip.
"""

import re

GLYPH_SCALE = "0.015625"  # matplotlib writes glyph outlines in 64ths of a unit: transform="scale(1/64)"
UNITS = 64
GLYPH = re.compile(rf'<path id="([^"]+)"(?: d="([^"]*)")? transform="scale\({GLYPH_SCALE}\)"/>')
USE = re.compile(r'<use xlink:href="#([^"]+)"(?: transform="translate\(([^)]*)\)(?: scale\(([^)]*)\))?")?/>')
TEXT = re.compile(rf'<g(?P<style>(?: style="[^"]*")?) transform="(?P<transform>[^"]*)">\s*'
                  rf'(?:<defs>(?:\s*{GLYPH.pattern})*\s*</defs>\s*)?'  # the glyphs this text is the first to draw
                  rf'(?P<uses>(?:{USE.pattern}\s*)+)</g>')  # then a <use> per character
TOKEN = re.compile(r"[A-Za-z]|-?[0-9.]+(?:e-?[0-9]+)?")
POINTS = {"M": 1, "L": 1, "Q": 2, "C": 3, "z": 0}  # the commands matplotlib writes, and their points


def number(value):
    return f"{value:.6g}"


def outline(d):
    """A glyph's commands as [(command, [(x, y), ...]), ...]."""
    tokens, commands, i = TOKEN.findall(d), [], 0
    while i < len(tokens):
        command, i = tokens[i], i + 1
        points = [(float(tokens[i + 2 * k]), float(tokens[i + 2 * k + 1])) for k in range(POINTS[command])]
        commands.append((command, points))
        i += 2 * len(points)
    return commands


def placed(commands, dx, dy, scale):
    """The glyph scaled and moved by (dx, dy): its first point absolute, every other point relative."""
    out, current, start = [], None, None
    for command, points in commands:
        points = [(dx + scale * x, dy + scale * y) for x, y in points]
        if command == "z":
            out.append("z")
            current = start
            continue
        if current is None:
            out.append(f"M{number(points[0][0])} {number(points[0][1])}")
        else:
            moves = (f"{number(x - current[0])} {number(y - current[1])}" for x, y in points)
            out.append(command.lower() + " ".join(moves))
        current = points[-1]
        if command == "M":
            start = current
    return "".join(out)


def join_text_glyphs(svg):
    """The SVG with each text whose glyphs are all ``<use>`` elements drawn as one path."""
    definitions = dict(GLYPH.findall(svg))
    glyphs = {name: outline(d) for name, d in definitions.items()}

    def joined(text):
        style, transform, uses = text["style"], text["transform"], text["uses"]
        parts, names = [], []
        for name, translate, scale in USE.findall(uses):
            x, y = ([float(v) for v in translate.split()] + [0.0])[:2] if translate else (0.0, 0.0)
            names.append(name)
            parts.append(placed(glyphs[name], x * UNITS, y * UNITS, float(scale or 1)))
        drawn = " ".join(dict.fromkeys(names))
        return (f'<path{style} transform="{transform} scale({GLYPH_SCALE})" data-glyphs="{drawn}" '
                f'd="{"".join(parts)}"/>')

    out = TEXT.sub(joined, svg)
    still_used = set(re.findall(r'xlink:href="#([^"]+)"', out))
    needed = [f'<path id="{name}"' + (f' d="{d}"' if d else "") + f' transform="scale({GLYPH_SCALE})"/>'
              for name, d in definitions.items() if name in still_used and f'<path id="{name}"' not in out]
    if needed:  # glyphs defined inside a joined text and used by one left as it was
        out = out.replace("<defs>", "<defs>\n  " + "\n  ".join(needed), 1)
    return out
