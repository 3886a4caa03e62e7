"""Kernels compiled at build time and shipped in the package (quercus/_kernels/_prebuilt.py,
build_support/backend.py): built into the package folder, loaded when the user's cache
lacks them, ignored when built for another processor or source."""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from quercus._kernels import _prebuilt

REPO = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("quercus_build_backend",
                                               REPO / "build_support" / "backend.py")
backend = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(backend)

# A kernel small enough to compile in a second stands for the first fit's.
WARM = ("from quercus.cli.warmup import build_shipped;"
        "from quercus._kernels.thresholds import midpoint;"
        "build_shipped(lambda: midpoint(1.0, 2.0))")

# Loads (or compiles) that kernel in a process whose package lives in sys.argv[1]; prints
# whether numba loaded it from a cache and what the shipped folder offers.
USE = """
import json, sys
sys.path.insert(0, sys.argv[1])
import quercus
from quercus import config_context
from quercus._kernels import _prebuilt
from quercus._kernels._jit import sources_hash
from quercus._kernels.thresholds import midpoint
assert quercus.__file__.startswith(sys.argv[1]), quercus.__file__
with config_context(jit="compile"):
    value = float(midpoint(1.0, 2.0))
print(json.dumps({"value": value, "hits": sum(midpoint.stats.cache_hits.values()),
                  "shipped": _prebuilt.shipped(sources_hash()) is not None}))
"""


def _package_copy(tmp_path):
    """A built copy of the package, as setuptools' build_py leaves it."""
    build_lib = tmp_path / "build_lib"
    shutil.copytree(REPO / "quercus", build_lib / "quercus",
                    ignore=shutil.ignore_patterns("__pycache__", "prebuilt"))
    return build_lib


def _clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES",
                        "QUERCUS_JIT", "PYTHONPATH")}
    env.update(extra)
    return env


def _use(build_lib, user_cache):
    out = subprocess.run([sys.executable, "-c", USE, str(build_lib)], cwd=user_cache.parent,
                         env=_clean_env(QUERCUS_CACHE_DIR=str(user_cache)),
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _user_entries(user_cache):
    return sorted(p.name for p in user_cache.rglob("thresholds.midpoint-*"))


def _build(tmp_path, cpu):
    build_lib = _package_copy(tmp_path)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(backend, "BUILD", WARM)
        for name in ("QUERCUS_BUILD_KERNELS", "NUMBA_CACHE_DIR", "PYTHONPATH"):
            mp.delenv(name, raising=False)
        mp.setenv("QUERCUS_KERNEL_CPU", cpu)
        assert backend.compile_kernels(build_lib)
    return build_lib


@pytest.fixture(scope="module")
def built_once(tmp_path_factory):
    """A package copy whose kernels the build step compiled, for each processor."""
    found = {}

    def get(cpu):
        if cpu not in found:
            found[cpu] = _build(tmp_path_factory.mktemp(cpu), cpu)
        return found[cpu]
    return get


@pytest.fixture
def built(built_once, tmp_path):
    """A copy of a built package this test may change."""
    def make(cpu="host"):
        build_lib = tmp_path / "build_lib"
        shutil.copytree(built_once(cpu), build_lib)
        return build_lib
    return make


def test_the_build_compiles_into_the_package_and_a_fresh_user_cache_loads_them(
        built, tmp_path):
    build_lib = built()
    folder = build_lib / "quercus" / "_kernels" / "prebuilt"
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["codegen"][1] == _prebuilt.codegen_tuple()[1]
    assert list(folder.rglob("thresholds.midpoint-*.nbi"))
    user = tmp_path / "user-cache"
    used = _use(build_lib, user)
    assert used == {"value": 1.5, "hits": 1, "shipped": True}
    assert _user_entries(user) == []  # loaded from the package: nothing compiled


def test_kernels_built_for_any_processor_load_on_this_one(built, tmp_path):
    build_lib = built("generic")
    manifest = json.loads(
        (build_lib / "quercus" / "_kernels" / "prebuilt" / "manifest.json").read_text())
    assert manifest["codegen"][1:] == ["generic", ""]
    assert _use(build_lib, tmp_path / "user-cache")["hits"] == 1


@pytest.mark.parametrize("field, value", [("codegen", ["x86_64-other", "generic", ""]),
                                          ("codegen", [None, "not-this-cpu", "+x"]),
                                          ("sources", "0" * 64),
                                          ("numba", "0.0.1"),
                                          ("python", "cpython-20")])
def test_kernels_built_for_another_processor_or_source_compile_instead(
        built, tmp_path, field, value):
    build_lib = built()
    path = build_lib / "quercus" / "_kernels" / "prebuilt" / "manifest.json"
    manifest = json.loads(path.read_text())
    if field == "codegen" and value[0] is None:
        value[0] = manifest["codegen"][0]
    path.write_text(json.dumps(dict(manifest, **{field: value})))
    user = tmp_path / "user-cache"
    assert _use(build_lib, user) == {"value": 1.5, "hits": 0, "shipped": False}
    assert _user_entries(user)  # compiled, into the user's cache


def test_building_without_kernels_also_removes_a_stale_build_s(built, monkeypatch):
    build_lib = built()
    folder = build_lib / "quercus" / "_kernels" / "prebuilt"
    assert folder.is_dir()
    monkeypatch.setenv("QUERCUS_BUILD_KERNELS", "0")
    assert not backend.compile_kernels(build_lib)
    assert not folder.exists()


def test_a_failed_compile_leaves_the_package_without_kernels(tmp_path, monkeypatch,
                                                              capfd):
    build_lib = _package_copy(tmp_path)
    monkeypatch.setattr(backend, "BUILD", "raise SystemExit(3)")
    assert not backend.compile_kernels(build_lib)
    assert not (build_lib / "quercus" / "_kernels" / "prebuilt").exists()
    assert "compiles them at first use" in capfd.readouterr().err


def test_an_unknown_processor_is_refused_by_name(tmp_path, monkeypatch):
    monkeypatch.setenv("QUERCUS_KERNEL_CPU", "pentium")
    with pytest.raises(SystemExit, match="QUERCUS_KERNEL_CPU='pentium'"):
        backend.compile_kernels(_package_copy(tmp_path))


def test_a_wheel_build_requires_the_package_s_dependencies_unless_kernels_are_off(
        monkeypatch):
    tomllib = pytest.importorskip("tomllib")  # (Python 3.11 on)
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert backend.RUNTIME == project["project"]["dependencies"]
    assert project["build-system"]["backend-path"] == ["build_support"]
    # (setuptools' own requirements come from running setup.py: stood in for here)
    monkeypatch.setattr(backend._setuptools, "get_requires_for_build_wheel",
                        lambda config_settings=None: ["setuptools-own"])
    monkeypatch.delenv("QUERCUS_BUILD_KERNELS", raising=False)
    assert backend.get_requires_for_build_wheel() == ["setuptools-own"] + backend.RUNTIME
    monkeypatch.setenv("QUERCUS_BUILD_KERNELS", "0")
    assert backend.get_requires_for_build_wheel() == ["setuptools-own"]


def _commands(tmp_path):
    from setuptools.dist import Distribution
    dist = Distribution({"name": "quercus", "version": "0", "packages": [],
                         "cmdclass": backend.commands()})
    dist.get_command_obj("build_py").build_lib = str(tmp_path)
    return dist


def test_a_wheel_with_kernels_is_tagged_for_its_python_and_platform(tmp_path):
    wheel = _commands(tmp_path).get_command_obj("bdist_wheel")
    wheel.ensure_finalized()
    assert wheel.get_tag() == ("py3", "none", "any")  # (no kernels built)
    (tmp_path / "quercus" / "_kernels" / "prebuilt").mkdir(parents=True)
    python, abi, platform = wheel.get_tag()
    assert python.endswith("%d%d" % sys.version_info[:2]) and not python.startswith("py")
    assert (abi, platform != "any") == ("none", True)


@pytest.mark.parametrize("editable", [False, True])
def test_only_a_non_editable_build_compiles_the_kernels(tmp_path, monkeypatch, editable):
    calls = []
    monkeypatch.setattr(backend, "compile_kernels", calls.append)
    build_py = _commands(tmp_path).get_command_obj("build_py")
    build_py.editable_mode = editable
    build_py.ensure_finalized()
    build_py.run()
    assert calls == ([] if editable else [str(tmp_path)])
