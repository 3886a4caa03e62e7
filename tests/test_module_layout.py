"""The package's layout: no import cycle among its modules, and the modules that work on a
fitted tree (fit, pruning, explanation, model files) call no private method of an
estimator. Both read the source with ``ast``: imports inside functions count too."""

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "quercus"

# Modules that read a fitted tree through its arrays and its Target, never through the
# estimator's private methods.
TREE_MODULES = ("_fit", "_pruning", "_prune_api", "_explain", "_persist")

# scikit-learn's parameter validation (a method of BaseEstimator, not of ours), and a named
# tuple's public methods (underscored so as not to clash with field names).
ALLOWED_PRIVATE_CALLS = {"_validate_params", "_replace", "_make", "_asdict"}


def _module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imported(module, path, node):
    """The quercus modules an import statement of ``module`` (at ``path``) names."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            base = base.rpartition(".")[0]
        source = (f"{base}.{node.module}" if node.module else base) if node.level else node.module
        # ``from pkg import name``: the submodule pkg.name if there is one, else pkg.
        names = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in MODULES else source
                 for alias in node.names]
    found = set()
    for name in names:
        while name and name not in MODULES:  # a name inside a module: that module
            name = name.rpartition(".")[0]
        if name and name != module:
            found.add(name)
    return found


def import_graph():
    """Each quercus module -> the quercus modules it imports, at any depth of its code."""
    graph = {}
    for module, path in MODULES.items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges |= _imported(module, path, node)
        graph[module] = edges
    return graph


def find_cycle(graph):
    """One import cycle of ``graph`` as a list of modules (first = last), or None."""
    state = {}  # 1: on the current path, 2: done
    path = []

    def visit(module):
        state[module] = 1
        path.append(module)
        for other in sorted(graph[module]):
            if state.get(other) == 1:
                return path[path.index(other):] + [other]
            if other not in state:
                cycle = visit(other)
                if cycle:
                    return cycle
        path.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            cycle = visit(module)
            if cycle:
                return cycle
    return None


def private_calls(path):
    """``(line, call)`` of each call of a private method on a name other than ``self``
    (``est._majority(...)``, ``fold._fit_encoded(...)``) in the file at ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        attr, owner = node.func.attr, node.func.value
        if (attr.startswith("_") and not attr.startswith("__")
                and attr not in ALLOWED_PRIVATE_CALLS
                and isinstance(owner, ast.Name) and owner.id != "self"):
            found.append((node.lineno, f"{owner.id}.{attr}(...)"))
    return found


def test_the_graph_sees_imports_inside_functions_and_relative_ones():
    graph = import_graph()
    # _prune_api imports _pruning at the top; _estimators imports _explain in explain().
    assert "quercus._pruning" in graph["quercus._prune_api"]
    assert "quercus._explain" in graph["quercus._estimators"]
    assert "quercus.inspect" in graph["quercus.export.text"]  # from ..inspect import ...
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle_among_the_package_s_modules():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


@pytest.mark.parametrize("module", TREE_MODULES)
def test_tree_modules_call_no_private_method_of_an_estimator(module):
    assert private_calls(PACKAGE / f"{module}.py") == []


def test_the_private_call_scan_finds_what_it_looks_for(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("def f(est, fold):\n"
                      "    est._majority(1)\n"
                      "    fold._fit_encoded(2)\n"
                      "    self._ok()\n"
                      "    est._validate_params()\n"
                      "    est.classes_.sum()\n")
    assert private_calls(source) == [(2, "est._majority(...)"), (3, "fold._fit_encoded(...)")]
