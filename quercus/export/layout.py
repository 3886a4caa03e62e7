"""Tidy drawing of n-ary trees: Buchheim, Jünger & Leipert's linear-time version of
Walker's extension of the Reingold-Tilford algorithm, for boxes of different widths.

Each parent is centred over its first and last child, subtrees are pushed apart just far
enough that no two boxes on the same level come closer than ``gap``, and the small
subtrees between two pushed-apart ones are spread evenly. Pure Python and iterative (no
recursion), so deep trees are fine.

Examples
--------
>>> from quercus.export.layout import tidy_x
>>> children = {0: [1, 2, 3], 1: [], 2: [], 3: []}
>>> sorted(tidy_x(children, 0).items())
[(0, 2.0), (1, 0.5), (2, 2.0), (3, 3.5)]
"""


def tidy_x(children, root=0, widths=None, gap=0.5):
    """Horizontal centres of a tree's nodes, level by level without overlap.

    Parameters
    ----------
    children : mapping
        ``node -> list of children`` in left-to-right order (leaves map to ``[]`` or are
        absent).
    root : hashable, default=0
    widths : mapping, optional
        ``node -> box width``; default 1 for every node.
    gap : float, default=0.5
        The least horizontal space between two boxes on the same level.

    Returns
    -------
    dict
        ``node -> x`` of the box's centre; the leftmost box edge is at 0.

    Examples
    --------
    >>> from quercus.export.layout import tidy_x
    >>> x = tidy_x({"a": ["b", "c"]}, "a", widths={"a": 1, "b": 4, "c": 2})
    >>> x["a"] == (x["b"] + x["c"]) / 2, x["c"] - x["b"]   # centred; (4 + 2) / 2 + gap
    (True, 3.5)
    """
    def kids(v):
        return children.get(v, ())

    def width(v):
        return 1.0 if widths is None else float(widths[v])

    def dist(a, b):
        return (width(a) + width(b)) / 2.0 + gap

    # Post-order (children left to right before the parent), plus parent and sibling index.
    parent, number, order = {root: None}, {root: 1}, []
    stack = [(root, False)]
    while stack:
        v, done = stack.pop()
        if done:
            order.append(v)
            continue
        stack.append((v, True))
        ks = kids(v)
        for i, w in enumerate(ks):
            parent[w], number[w] = v, i + 1
        stack.extend((w, False) for w in reversed(ks))

    prelim = dict.fromkeys(parent, 0.0)
    mod = dict.fromkeys(parent, 0.0)
    change = dict.fromkeys(parent, 0.0)
    shift = dict.fromkeys(parent, 0.0)
    thread = dict.fromkeys(parent)
    ancestor = {v: v for v in parent}
    default_ancestor = {}

    def left_sibling(v):
        p = parent[v]
        return None if p is None or number[v] == 1 else kids(p)[number[v] - 2]

    def next_left(v):
        ks = kids(v)
        return ks[0] if ks else thread[v]

    def next_right(v):
        ks = kids(v)
        return ks[-1] if ks else thread[v]

    def move_subtree(wm, wp, amount):
        subtrees = number[wp] - number[wm]
        change[wp] -= amount / subtrees
        shift[wp] += amount
        change[wm] += amount / subtrees
        prelim[wp] += amount
        mod[wp] += amount

    def apportion(v, default):
        w = left_sibling(v)
        if w is None:
            return default
        vip = vop = v
        vim = w
        vom = kids(parent[v])[0]
        sip, sop, sim, som = mod[vip], mod[vop], mod[vim], mod[vom]
        while next_right(vim) is not None and next_left(vip) is not None:
            vim, vip = next_right(vim), next_left(vip)
            vom, vop = next_left(vom), next_right(vop)
            ancestor[vop] = v
            amount = (prelim[vim] + sim) - (prelim[vip] + sip) + dist(vim, vip)
            if amount > 0:
                a = ancestor[vim]
                wm = a if parent.get(a) == parent[v] else default
                move_subtree(wm, v, amount)
                sip += amount
                sop += amount
            sim += mod[vim]
            sip += mod[vip]
            som += mod[vom]
            sop += mod[vop]
        if next_right(vim) is not None and next_right(vop) is None:
            thread[vop] = next_right(vim)
            mod[vop] += sim - sop
        if next_left(vip) is not None and next_left(vom) is None:
            thread[vom] = next_left(vip)
            mod[vom] += sip - som
            default = v
        return default

    for v in order:
        ks = kids(v)
        w = left_sibling(v)
        if ks:
            # Spread the subtrees pushed apart by apportion, right to left.
            amount = acc = 0.0
            for c in reversed(ks):
                prelim[c] += amount
                mod[c] += amount
                acc += change[c]
                amount += shift[c] + acc
            mid = (prelim[ks[0]] + prelim[ks[-1]]) / 2.0
            if w is not None:
                prelim[v] = prelim[w] + dist(w, v)
                mod[v] = prelim[v] - mid
            else:
                prelim[v] = mid
        elif w is not None:
            prelim[v] = prelim[w] + dist(w, v)
        p = parent[v]
        if p is not None:
            default_ancestor[p] = apportion(v, default_ancestor.get(p, kids(p)[0]))

    x = {}
    stack = [(root, 0.0)]
    while stack:
        v, m = stack.pop()
        x[v] = prelim[v] + m
        stack.extend((c, m + mod[v]) for c in kids(v))
    left = min(x[v] - width(v) / 2.0 for v in x)
    return {v: x[v] - left for v in x}
