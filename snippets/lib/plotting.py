"""The site's look for figures: one style, and one heatmap for attention weights.

Weights live in [0, 1], so every weights heatmap uses the same fixed colour scale
(vmin=0, vmax=1) and the colour-blind-safe sequential colormap viridis.
Chinese labels need a CJK font: ``use_chinese_font()`` takes Noto Sans SC from the
PyPI package pylopdf-fonts-zh-cn (SIL Open Font License), never a system font.
"""

import importlib.resources
import warnings

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import font_manager

# Okabe-Ito: a palette that stays distinct under the common colour-vision deficiencies.
COLORS = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]

plt.rcParams.update(
    {
        "figure.figsize": (6.4, 4.0),
        "figure.facecolor": "white",
        "axes.facecolor": "white",
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": False,
        "axes.prop_cycle": plt.cycler(color=COLORS),
        "font.size": 10,
        "image.cmap": "viridis",
        "savefig.bbox": "tight",
    }
)


CJK_FONT = ("pylopdf_fonts_zh_cn", "NotoSansSC-Regular.otf", "Noto Sans SC")


def use_chinese_font():
    """Draw Chinese characters with Noto Sans SC wherever the default font (DejaVu Sans) has no glyph. Returns
    the font families now used, or None when the font is not installed."""
    package, filename, family = CJK_FONT
    try:
        font = importlib.resources.files(package) / filename
    except ModuleNotFoundError:
        warnings.warn("Chinese characters need `pip install pylopdf-fonts-zh-cn`; without it they are drawn as boxes")
        return None
    font_manager.fontManager.addfont(str(font))
    plt.rcParams["font.family"] = ["DejaVu Sans", family]
    return plt.rcParams["font.family"]


def weights_heatmap(ax, weights, queries, keys, annotate=True, title=None):
    """Draw attention weights (rows = queries, columns = keys) on a fixed 0-1 scale."""
    weights = np.asarray(weights)
    if weights.shape != (len(queries), len(keys)):
        raise ValueError(f"weights {weights.shape} do not match {len(queries)} queries x {len(keys)} keys")
    image = ax.imshow(weights, cmap="viridis", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(keys)), keys, rotation=45, ha="right")
    ax.set_yticks(range(len(queries)), queries)
    ax.set_xlabel("key (attended to)")
    ax.set_ylabel("query (attending)")
    ax.spines[:].set_visible(False)
    if title:
        ax.set_title(title)
    if annotate:
        for i, j in np.ndindex(weights.shape):
            colour = "black" if weights[i, j] > 0.6 else "white"  # readable on viridis' light and dark ends
            ax.text(j, i, f"{weights[i, j]:.2f}", ha="center", va="center", fontsize=7, color=colour)
    return image
