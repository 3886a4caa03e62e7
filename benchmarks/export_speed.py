"""Time the exports of a tree with more than 5,000 leaves: ``python benchmarks/export_speed.py``.

Prints seconds per export (best of three): DOT text, and the HTML view when
``quercus.export.html`` exists. The goal is well under a second for DOT.
"""

import importlib
import time

import numpy as np

from quercus import DecisionTreeClassifier, export_graphviz


def big_tree(n=20_000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    y = rng.integers(0, 3, size=n)  # noise: a fully grown tree has thousands of leaves
    return DecisionTreeClassifier().fit(X, y)


def best_of(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    est = big_tree()
    print(f"tree: {est.get_n_leaves()} leaves, depth {est.get_depth()}")
    print(f"export_graphviz: {best_of(lambda: export_graphviz(est)):.3f} s")
    try:
        html = importlib.import_module("quercus.export.html")
    except ImportError:
        print("export_html: quercus.export.html not present")
        return
    print(f"export_html: {best_of(lambda: html.export_html(est)):.3f} s")


if __name__ == "__main__":
    main()
