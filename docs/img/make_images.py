"""Regenerate the pictures of docs/plotting.md and the README: ``python docs/img/make_images.py``.

Needs matplotlib and a CJK font (for the watermelon trees' Chinese labels); Graphviz's
``dot`` for the DOT picture (skipped without it).
"""

import shutil
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.datasets import load_breast_cancer  # noqa: E402

from quercus import (CARTClassifier, CARTRegressor, ID3Classifier,  # noqa: E402
                     export_graphviz, plot_tree)
from quercus.datasets import load_watermelon  # noqa: E402

HERE = Path(__file__).parent
DPI = 110


def breast_cancer_cart():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    return CARTClassifier(max_depth=4).fit(X, np.array(["malignant", "benign"])[y])


def save(result, name):
    result.ax.figure.savefig(HERE / name, dpi=DPI, facecolor="white")
    plt.close(result.ax.figure)
    print("wrote", HERE / name)


def grid(est, settings, name, ncols=3, size=(5.2, 3.6)):
    """The same tree once per setting, side by side, each panel titled with its call."""
    nrows = -(-len(settings) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(size[0] * ncols, size[1] * nrows))
    for ax, kw in zip(axes.flat, settings):
        plot_tree(est, ax=ax, **kw)
        ax.set_title(", ".join(f"{k}={v!r}" for k, v in kw.items()) or "defaults",
                     fontsize=11, family="monospace")
    for ax in list(axes.flat)[len(settings):]:
        ax.set_axis_off()
    fig.tight_layout()
    fig.savefig(HERE / name, dpi=DPI, facecolor="white")
    plt.close(fig)
    print("wrote", HERE / name)


def main():
    id3 = ID3Classifier().fit(*load_watermelon("2.0"))
    cart = breast_cancer_cart()
    small = CARTClassifier(max_depth=2).fit(*load_watermelon("2.0"))
    X3 = load_watermelon("3.0")[0]
    reg = CARTRegressor(max_depth=3).fit(X3.drop(columns="含糖率"), X3["含糖率"])

    save(plot_tree(id3), "watermelon_id3.png")
    save(plot_tree(cart), "breast_cancer_cart.png")
    save(plot_tree(reg, extra=101), "watermelon_regression.png")
    save(plot_tree(CARTClassifier().fit(*load_watermelon("2.0alpha")), show_missing=True,
                   extra=101), "watermelon_missing.png")
    grid(small, [dict(type=t) for t in range(6)], "types.png")
    grid(small, [dict(extra=e) for e in (0, 1, 2, 4, 6, 8, 100, 104, 106)], "extras.png")
    grid(small, [dict(), dict(under=True), dict(fallen_leaves=False),
                 dict(branch=0.0), dict(fallen_leaves=False, branch=0.5),
                 dict(faclen=1, varlen=1)], "options.png")
    if shutil.which("dot"):
        export_graphviz(id3, out_file=HERE / "watermelon_id3_dot.png")
        print("wrote", HERE / "watermelon_id3_dot.png")


if __name__ == "__main__":
    main()
