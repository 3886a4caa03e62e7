"""The fitted tree as flat parallel arrays (struct of arrays).

Siblings are stored contiguously: the children of node ``i`` are
``first_child[i] .. first_child[i] + n_children[i] - 1``, all with indices above ``i``.
``value`` is kept for every node (weighted class counts), so pruning and explanations need
no refit. An empty multiway branch (a category with no training sample at that node) is a
leaf with zero samples whose ``value`` is its parent's, the textbook's rule.
"""

from dataclasses import make_dataclass

import mmap

import numpy as np

from ._kernels.builder import init_nodes
from ._kernels.schema import (ALL_FIELDS, FLAT_FIELDS, LEAF, NODE_FIELDS, ROUTING_FIELDS,
                              Nodes, Routing)

SCHEMA_VERSION = 1

# The schema's fields by name: their types (the node schema, quercus._kernels.schema).
_FIELDS = {f.name: f.dtype for f in NODE_FIELDS}
_FLAT = {f.name: f.dtype for f in FLAT_FIELDS}
_ALL_FIELDS = {**_FIELDS, **_FLAT}
_ALL_DTYPES = {name: np.dtype(dt) for name, dt in _ALL_FIELDS.items()}
MAX_TREE_NODES = np.iinfo(np.int32).max
# A tree expected to take this many bytes grows in memory maps (TreeBuilder.expect).
MAP_MIN_BYTES = 32 << 20
# Bytes of a node's fields but its value (8 more per class or output).
_NODE_BYTES = sum(np.dtype(dt).itemsize for name, dt in _FIELDS.items() if name != "value")


class _TreeArraysMethods:
    """What a fitted tree does; :class:`TreeArrays` adds its arrays, one per schema field."""

    def __post_init__(self):
        for name in ("cat_map", "sur_feature"):  # the int32 offsets must reach every entry
            if len(getattr(self, name)) > MAX_TREE_NODES:
                raise MemoryError(f"A tree whose {name} has more than {MAX_TREE_NODES} "
                                  "entries is not supported; limit max_depth or "
                                  "max_leaf_nodes, or use fewer surrogates.")
        # Every tree holds its fields in the schema's types, however it was built (grown,
        # pruned, compacted, loaded): the compiled routing kernels then see one signature.
        for name, dt in _ALL_DTYPES.items():
            arr = getattr(self, name)
            if not isinstance(arr, np.ndarray) or arr.dtype != dt:
                setattr(self, name, np.asarray(arr, dtype=dt))

    def cached(self, key, make):
        """``make()``, computed once for this tree object and ``key``, and kept with it:
        tables derived from the tree for its predictions. Not copied with the tree, pickled
        or saved (a copy, a pruned or a loaded tree makes its own); the tree's arrays must
        not change in place once something is cached.

        Examples
        --------
        >>> t = TreeBuilder(n_out=2).freeze()
        >>> calls = []
        >>> def make():
        ...     calls.append(1)
        ...     return "table"
        >>> t.cached("k", make), t.cached("k", make), len(calls)
        ('table', 'table', 1)
        """
        cache = self.__dict__.setdefault("_derived", {})
        if key not in cache:
            cache[key] = make()
        return cache[key]

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_derived", None)
        return state

    def kernel_args(self):
        """The arrays the routing kernels take: a :data:`Routing` record."""
        return Routing(*(getattr(self, name) for name in ROUTING_FIELDS))

    @property
    def node_count(self):
        return int(self.kind.shape[0])

    @property
    def max_depth(self):
        return int(self.depth.max())

    @property
    def n_leaves(self):
        return int(np.count_nonzero(self.kind == LEAF))

    def parent(self):
        """Parent index of every node (-1 for the root)."""
        parent = np.full(self.node_count, -1, dtype=np.int64)
        for i in np.flatnonzero(self.kind != LEAF):
            s = self.first_child[i]
            parent[s:s + self.n_children[i]] = i
        return parent

    def children(self, node):
        """Indices of the children of ``node`` (empty for a leaf)."""
        s = int(self.first_child[node])
        return list(range(s, s + int(self.n_children[node])))

    def to_dict(self):
        """Plain lists, JSON-serialisable."""
        out = {"schema_version": SCHEMA_VERSION}
        for name in _ALL_FIELDS:
            out[name] = getattr(self, name).tolist()
        return out

    @classmethod
    def from_dict(cls, data):
        """Inverse of :meth:`to_dict`."""
        if data.get("schema_version") != SCHEMA_VERSION:
            raise ValueError(
                f"Unsupported tree schema_version {data.get('schema_version')!r}; "
                f"this quercus reads version {SCHEMA_VERSION}.")
        return cls(**{name: np.asarray(data[name], dtype=dt)
                      for name, dt in _ALL_FIELDS.items()})


TreeArrays = make_dataclass(
    "TreeArrays", [(f.name, np.ndarray) for f in ALL_FIELDS], bases=(_TreeArraysMethods,),
    namespace={"__module__": __name__, "__doc__": """Parallel arrays of a fitted tree, one
    per field of the node schema (:mod:`quercus._kernels.schema`); index 0 is the root.

    ``feature`` is -1 and ``threshold`` 0 on leaves; ``category`` is the code ``v`` of a
    ``a == v`` split (``CAT_BINARY``), -1 elsewhere. ``rho`` is the known-weight fraction of
    the split attribute at the node. ``value`` is (n_nodes, n_classes) class weights for a
    classifier, (n_nodes, 1) the prediction (mean or median) for a regressor.
    """})


class FlatArray:
    """A growable one-dimensional array of one dtype: a tree builder's flat arrays (the
    surrogates' and category maps' entries). Python lists of them held several times the
    memory, then both at once when the tree was frozen: a float entry is a 24-byte object
    plus its 8-byte pointer.

    Examples
    --------
    >>> a = FlatArray(np.float64)
    >>> a.append(1.5); a.extend([2.0, 3.0]); len(a)
    3
    >>> del a[1:]; a.extend(np.array([4.0])); a[0:2].tolist()
    [1.5, 4.0]
    """

    def __init__(self, dtype):
        self._data = np.empty(16, dtype=dtype)
        self._n = 0

    def __len__(self):
        return self._n

    def _room(self, n_more):
        need = self._n + n_more
        if need > self._data.shape[0]:
            self._data.resize(max(need, 2 * self._data.shape[0]), refcheck=False)

    def append(self, value):
        self._room(1)
        self._data[self._n] = value
        self._n += 1

    def extend(self, values):
        values = np.asarray(values, dtype=self._data.dtype)
        self._room(values.shape[0])
        self._data[self._n:self._n + values.shape[0]] = values
        self._n += values.shape[0]

    def __getitem__(self, key):
        """A copy of a slice of the entries held, ``a[start:stop]`` (a copy: the storage
        moves as it grows, so no view of it may be handed out)."""
        if not isinstance(key, slice):
            raise TypeError("a FlatArray is read by slices")
        return self._data[:self._n][key].copy()

    def __delitem__(self, key):
        """``del a[n:]`` drops the entries from ``n`` on (an undone split's)."""
        if not (isinstance(key, slice) and key.stop is None and key.step is None):
            raise TypeError("only the tail of a FlatArray can be dropped: del a[n:]")
        self._n = min(self._n, max(0, key.start or 0))

    def take(self):
        """The entries held, as an array of their own size; the FlatArray is spent."""
        data, self._data = self._data, None
        data.resize(self._n, refcheck=False)  # shrunk in place, no copy
        return data


def _mapped(shape, dtype):
    """An uninitialised array in its own anonymous memory map: pages that are never
    written are never resident, and it is unmapped when the last view of it goes. Huge
    pages are declined, so that a partly filled array holds no unused 2 MB around its
    last node."""
    n_bytes = max(1, int(np.prod(shape)) * np.dtype(dtype).itemsize)
    # Private, as the allocator's memory is: a forked process gets a copy on write, not a
    # view of this one's tree.
    private = {"flags": mmap.MAP_PRIVATE} if hasattr(mmap, "MAP_PRIVATE") else {}
    buf = mmap.mmap(-1, n_bytes, **private)
    if hasattr(buf, "madvise") and hasattr(mmap, "MADV_NOHUGEPAGE"):
        buf.madvise(mmap.MADV_NOHUGEPAGE)
    return np.frombuffer(buf, dtype=dtype, count=int(np.prod(shape))).reshape(shape)


class TreeBuilder:
    """Growable storage used by the grower; :meth:`freeze` returns :class:`TreeArrays`.

    Memory: the arrays grow by a quarter of their size, in place (``ndarray.resize``: a
    big array is remapped by realloc, not copied beside the old one), and :meth:`freeze`
    shrinks them in place to the nodes held, so a fit's peak holds the nodes at most 1.25
    times, about 1.12 on average (not 3 times: old and doubled arrays side by side, then
    the builder and a frozen copy).

    A tree whose size the grower can foretell, and which will be big (``MAP_MIN_BYTES``),
    takes fresh memory maps with room for all of it instead (:meth:`expect`).

    Examples
    --------
    >>> b = TreeBuilder(n_out=2)
    >>> b.add(3, 0), b.add(2, 1)
    (0, 3)
    >>> t = b.freeze()
    >>> t.node_count, t.depth.tolist(), t.first_child.dtype.name
    (5, [0, 0, 0, 1, 1], 'int32')
    """

    def __init__(self, n_out, capacity=64):
        self._n_classes = n_out
        self._cap = 0
        self.count = 0
        self._arrays = {}
        self.flat = {name: FlatArray(dt) for name, dt in _FLAT.items()}
        self._grow(capacity)

    def _grow(self, need):
        if need > MAX_TREE_NODES:
            raise MemoryError(f"A tree of more than {MAX_TREE_NODES} nodes is not supported; "
                              "limit max_depth or max_leaf_nodes, or raise min_samples_leaf.")
        capacity = max(self._cap + self._cap // 4, need)
        for name, dt in _FIELDS.items():
            shape = (capacity, self._n_classes) if name == "value" else (capacity,)
            arr = self._arrays.get(name)
            if arr is None:
                self._arrays[name] = np.empty(shape, dtype=dt)
            elif arr.shape[0] >= capacity:
                continue  # (a map with room enough)
            elif arr.flags.owndata:
                # In place (realloc: a big array is remapped, not copied, so the old and
                # the new one are not both held); no view of a field outlives an add().
                arr.resize(shape, refcheck=False)
            else:  # a map outgrown (its bound was only a hint)
                new = np.empty(shape, dtype=dt)
                new[:self.count] = arr[:self.count]
                self._arrays[name] = new
        self._cap = capacity

    def expect(self, n_nodes):
        """Make room for the ``n_nodes`` the tree is expected to reach (a hint: it may
        have more). When they would take ``MAP_MIN_BYTES``, the arrays move now, while the
        tree is small, to fresh memory maps with room for them all: a page of a map holds
        memory only once a node is written to it, and the arrays are not copied again as
        the tree grows. (Growing by a quarter zero-fills the new quarter and may copy; and
        moving a big tree's arrays later would leave their old blocks in the allocator's
        heap, raising the fit's peak above that of no maps at all.)

        Examples
        --------
        >>> b = TreeBuilder(n_out=1)
        >>> b.add(2, 0)
        0
        >>> b.expect(10**6)  # 86 MB of nodes at most: maps with room for them
        >>> b._cap, b["kind"].flags.owndata
        (1000000, False)
        """
        node_bytes = _NODE_BYTES + 8 * self._n_classes
        if n_nodes > self._cap and n_nodes * node_bytes >= MAP_MIN_BYTES:
            self._map_fields(min(n_nodes, MAX_TREE_NODES))

    def _map_fields(self, capacity):
        """Move the fields into fresh maps of ``capacity`` nodes, one at a time (so the old
        and new copies of only one field are held at once), as far as maps can be had."""
        try:
            for name, dt in _FIELDS.items():
                old = self._arrays[name]
                new = _mapped((capacity,) + old.shape[1:], dt)
                new[:self.count] = old[:self.count]
                self._arrays[name] = new
                del old, new
        except (OSError, MemoryError, ValueError):
            pass  # the fields not moved grow in the heap (the moved ones have room)
        finally:
            self._cap = min(arr.shape[0] for arr in self._arrays.values())

    def add(self, n_new, depth, init=True):
        """Reserve ``n_new`` contiguous leaf slots at ``depth`` (made new leaves by
        :func:`~quercus._kernels.builder.init_nodes`, unless ``init`` is False: the caller
        writes every field); return the first index."""
        if self.count + n_new > self._cap:
            self._grow(self.count + n_new)
        first = self.count
        if init:  # (slots are reused after an undone split)
            init_nodes(self.nodes(), first, n_new, depth)
        self.count += n_new
        return first

    def nodes(self):
        """The node fields as a :data:`~quercus._kernels.schema.Nodes` record, for the
        builder's functions (:mod:`quercus._kernels.builder`); valid until the next
        :meth:`add`, which may move the arrays."""
        return Nodes(*(self._arrays[f.name] for f in NODE_FIELDS))

    def __getitem__(self, name):
        return self._arrays[name]

    def freeze(self):
        """The finished tree; the builder is empty afterwards."""
        n = self.count
        flat = {name: self.flat[name].take() for name in _FLAT}
        fields = {}
        for name in _FIELDS:
            arr = self._arrays.pop(name)
            if arr.flags.owndata:
                arr.resize((n,) + arr.shape[1:], refcheck=False)  # shrunk in place, no copy
            else:  # a map: its room never written holds no memory
                arr = arr[:n]
            fields[name] = arr
        self._cap = self.count = 0
        return TreeArrays(**fields, **flat)
