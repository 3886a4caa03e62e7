"""Where a fit's time goes inside the compiled kernels, function by function.

cProfile sees a numba kernel as one opaque call, and ``perf`` sees its machine code as
anonymous addresses. This script names those addresses: it fits once (compiling every
kernel the fit needs into a fresh cache, so that the machine code is at hand), writes
``/tmp/perf-<pid>.map`` (Linux ``perf``'s map of just-in-time code: address, size, name)
for every function of every compiled quercus kernel, then samples its own process with
``perf record`` while it repeats the fit, and prints each function's share of the samples.
An ``inner`` helper (see ``quercus/_kernels/_jit.py``) that LLVM did not inline shows
under its own name; one it inlined counts in its caller.

Usage (``perf`` from the Debian package ``linux-perf``)::

    python -m benchmarks.profile_kernels --set breast_cancer --learner ccp
    python -m benchmarks.profile_kernels --rows 300000 --cols 50 --seconds 12
    python -m benchmarks.profile_kernels --case case15:-:class --learner ccp-defaults
    python -m benchmarks.profile_kernels --case case25:-:anova --learner ccp-defaults --lines

The rows are ``--set``'s training rows (any data set of the suite), ``--case``'s (a CSV
of ``benchmarks/data-cache/cv_small``, as ``benchmarks/kernel_time.py`` names it:
``case15:-:class``), or the suite's ``make_classification`` sample (half the columns
informative); ``--learner`` is a
learner key of the suite (``cart``, ``cart-hist``, ``c45``, ``ccp``) or ``ccp-defaults``
(cross-validated pruning with every default). The first fit compiles every kernel (20-60 s). The map
reads numba internals (``CodeLibrary._get_compiled_object``, ``get_pointer_to_function``),
so a numba upgrade may need this script changed; the package does not use it.

``--lines`` also puts the samples on source lines, each with the lines it is inlined into
(from line tables compiled into the kernels; see :func:`keep_code_with_line_tables`).
"""

import argparse
import bisect
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

PERF_MISSING = "perf is not installed (Debian: apt-get install linux-perf)"


def short_name(symbol):
    """The dotted name in a numba symbol: its length-prefixed parts after ``_ZN``.

    >>> short_name("_ZN7quercus8_kernels6splits12scan_orderedB3v54B54c8tJTIeFIjx")
    'quercus._kernels.splits.scan_ordered'
    >>> short_name("NRT_decref")
    'NRT_decref'
    """
    if not symbol.startswith("_ZN"):
        return symbol
    parts, pos = [], 3
    while pos < len(symbol) and symbol[pos].isdigit():
        digits = re.match(r"\d+", symbol[pos:]).group()
        pos += len(digits)
        parts.append(symbol[pos:pos + int(digits)])
        pos += int(digits)
    return ".".join(parts) or symbol


def compiled_functions(dispatchers_, folder):
    """(address, size, symbol, object file, the symbol's offset in it) of each function
    of each compiled overload, each overload's object code written into ``folder``.

    Each function's address is asked of the loaded library by its own symbol (the
    object's sections are loaded apart, so offsets in the object do not give it)."""
    found = []
    for d in dispatchers_:
        for cres in d.overloads.values():
            lib = cres.library
            try:
                obj = lib._get_compiled_object()
            except Exception:  # loaded from a cache: no object at hand
                continue
            obj_path = os.path.join(folder, f"kernel{len(os.listdir(folder))}.o")
            with open(obj_path, "wb") as f:
                f.write(obj)
            out = subprocess.run(["nm", "-S", "--defined-only", obj_path],
                                 capture_output=True, text=True, check=True).stdout
            for row in out.splitlines():
                fields = row.split()
                if len(fields) != 4 or fields[2] not in "tTwW":
                    continue
                try:
                    address = lib.get_pointer_to_function(fields[3])
                except Exception:
                    address = 0
                if address:
                    found.append((address, int(fields[1], 16), fields[3], obj_path,
                                  int(fields[0], 16)))
    return found


def perf_map(functions):
    """perf's ``address size name`` lines of :func:`compiled_functions`' ``functions``."""
    return [f"{address:x} {size:x} {short_name(symbol)}\n"
            for address, size, symbol, _, _ in functions]


def perf_map_lines(dispatchers_):
    """``address size name`` lines for each function of each compiled overload."""
    with tempfile.TemporaryDirectory() as tmp:
        return perf_map(compiled_functions(dispatchers_, tmp))


def keep_code_with_line_tables():
    """Have numba write line tables (``NUMBA_DEBUGINFO``, set before numba is imported)
    into the machine code it would emit without them: numba's debug info also turns on
    bounds checks, keeps every variable alive to the end of its function and forbids
    inlining, a different and slower program. Reads numba internals (its target options'
    ``finalize`` and the lowering's ``pre_lower``)."""
    from numba.core import cpu, lowering
    finalize, pre_lower = cpu.CPUTargetOptions.finalize, lowering.Lower.pre_lower

    def finalize_same_code(self, flags, options):
        finalize(self, flags, options)
        flags.dbg_extend_lifetimes = False
        flags.boundscheck = False

    def pre_lower_inlinable(self):
        pre_lower(self)
        self.builder.function.attributes.discard("noinline")

    cpu.CPUTargetOptions.finalize = finalize_same_code
    lowering.Lower.pre_lower = pre_lower_inlinable


def source_chains(ips, functions, depth=4):
    """{(innermost line, ..., the kernel's own line): samples} of the sampled addresses
    ``ips`` in ``functions`` (:func:`compiled_functions`'), each address's inlined calls
    read from its object's line tables (``addr2line -i``); ``file.py:?`` where a line
    table names no line, the function's name where it names no file (numba's own
    functions, such as its reference counts ``NRT_incref``). Addresses in no kernel
    count under ``("(elsewhere)",)``."""
    by_object, counts = {}, {}
    functions = sorted(functions)
    starts = [f[0] for f in functions]
    for ip in ips:
        i = bisect.bisect_right(starts, ip) - 1
        if i >= 0 and ip < functions[i][0] + functions[i][1]:
            address, _, symbol, obj_path, offset = functions[i]
            at = by_object.setdefault(obj_path, {})
            o = ip - address + offset
            at[o] = (at.get(o, (0, symbol))[0] + 1, symbol)
        else:
            counts[("(elsewhere)",)] = counts.get(("(elsewhere)",), 0) + 1
    for obj_path, offsets in by_object.items():
        order = sorted(offsets)
        out = subprocess.run(["addr2line", "-a", "-i", "-e", obj_path]
                             + [f"0x{o:x}" for o in order],
                             capture_output=True, text=True, check=True).stdout
        frames = {}
        current = None
        for row in out.splitlines():
            if row.startswith("0x"):
                current = frames.setdefault(int(row, 16), [])
            elif current is not None:
                place, _, line = row.split(" ")[0].rpartition(":")
                current.append(f"{os.path.basename(place)}:{line}")
        for o in order:
            n, symbol = offsets[o]
            chain = tuple(frames.get(o, ["?"])[:depth])
            if chain[0].startswith(("<string>", "??")):  # (numba's own code: NRT_*)
                chain = (short_name(symbol),)
            counts[chain] = counts.get(chain, 0) + n
    return counts


def shares(report_text, top):
    """(share %, name) of the ``top`` heaviest names in ``perf report --stdio`` output,
    one name's rows (a helper compiled into several kernels) added up."""
    total = {}
    for row in report_text.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[[.k]\]\s+(\S+)", row)  # user or kernel code
        if m:
            total[m.group(2)] = total.get(m.group(2), 0.0) + float(m.group(1))
    return sorted(((v, k) for k, v in total.items()), reverse=True)[:top]


def training_rows(args):
    """(X, y, task, categorical columns): ``--set``'s training rows, ``--case``'s rows
    (a DataFrame: its factors are its categorical columns), or the suite's synthetic
    classification rows (``--rows`` x ``--cols``)."""
    from benchmarks import suite
    if args.case:
        from benchmarks import cv_small
        X, y, task = cv_small.read_spec(args.case)
        return X, y, suite.CLF if task == "class" else suite.REG, []
    if args.set:
        ds = [d for d in suite.DATASETS if d.name == args.set]
        if not ds:
            raise SystemExit(f"--set {args.set!r}: no such data set in benchmarks/suite.py")
        X, _, y, _ = suite.split(ds[0])
        return X, y, ds[0].task, suite.categorical(X)
    X, y = suite._synthetic_classification(args.rows, args.cols)
    return X.to_numpy(), y, suite.CLF, []


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", help="a data set of the suite (default: synthetic rows)")
    parser.add_argument("--case", help="a cv_small CSV as name:factors:task, e.g. "
                        "case15:-:class (python -m benchmarks.cv_small makes them)")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--cols", type=int, default=50)
    parser.add_argument("--learner", default="cart",
                        help="cart (exact), cart-hist, c45, ccp, or ccp-defaults: "
                        "CARTClassifier(pruning='cost_complexity') with every other "
                        "parameter its default (default: cart)")
    parser.add_argument("--seconds", type=float, default=8.0, help="sampling time")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--lines", action="store_true",
                        help="also attribute the samples to source lines, with the calls "
                        "inlined into them (the kernels compiled with line tables)")
    args = parser.parse_args(argv)
    if shutil.which("perf") is None or shutil.which("nm") is None:
        print(PERF_MISSING if shutil.which("perf") is None else "nm (binutils) is missing")
        return 2
    # A fresh cache: kernels loaded from the user's cache carry no object code to map.
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="quercus-profile-")
    if args.lines:
        if shutil.which("addr2line") is None:
            print("addr2line (binutils) is missing")
            return 2
        os.environ["NUMBA_DEBUGINFO"] = "1"  # (read when numba is imported)
        keep_code_with_line_tables()
    import quercus
    from benchmarks import suite
    from quercus._kernels._jit import kernels
    # Compiled from the first call: left to itself, a process runs a small fit's kernels as
    # Python for its first fits, and the profile would be the interpreter's.
    quercus.set_config(jit="compile")
    X, y, task, cats = training_rows(args)
    n_classes = 0 if task == suite.REG else len(set(y))
    if args.learner == "ccp-defaults":
        from quercus import CARTClassifier, CARTRegressor
        cls = CARTRegressor if task == suite.REG else CARTClassifier
        est = cls(pruning="cost_complexity")
        settings = f"{cls.__name__}(pruning='cost_complexity'), all else default"
    else:
        est, settings = suite.quercus_estimator(args.learner, task, len(y), n_classes, cats)
    print(f"{len(y):,} rows x {X.shape[1]}: {settings}", flush=True)
    start = time.perf_counter()
    est.fit(X, y)
    print(f"first fit (compiling): {time.perf_counter() - start:.1f} s", flush=True)
    map_path = f"/tmp/perf-{os.getpid()}.map"
    objects = tempfile.mkdtemp(prefix="quercus-objects-")
    functions = compiled_functions([d for _, d in kernels()], objects)
    lines = perf_map(functions)
    with open(map_path, "w") as f:
        f.writelines(lines)
    data = os.path.join(tempfile.mkdtemp(prefix="quercus-perf-"), "perf.data")
    perf = subprocess.Popen(["perf", "record", "-q", "-F", "2000", "-o", data, "-p",
                             str(os.getpid()), "--", "sleep", str(args.seconds)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(0.5)  # perf attaches
    fits, secs = 0, []
    while perf.poll() is None:
        start = time.perf_counter()
        est.fit(X, y)
        secs.append(time.perf_counter() - start)
        fits += 1
    if perf.returncode != 0:
        print("perf record failed:", perf.stderr.read().decode().strip()[-400:])
        return 1
    report = subprocess.run(["perf", "report", "-i", data, "--sort", "symbol", "--stdio"],
                            capture_output=True, text=True).stdout
    secs.sort()
    print(f"{fits} fits sampled, median {secs[len(secs) // 2] * 1e3:.1f} ms; "
          f"{len(lines)} compiled functions mapped")
    print(f"{'share':>7}  function")
    for share, name in shares(report, args.top):
        print(f"{share:6.2f}%  {name}")
    if args.lines:
        ips = subprocess.run(["perf", "script", "-i", data, "-F", "ip"], capture_output=True,
                             text=True).stdout.split()
        chains = source_chains([int(ip, 16) for ip in ips], functions)
        total = max(sum(chains.values()), 1)
        print(f"\n{'share':>7}  source line <- the line it is inlined into <- ...")
        for chain, n in sorted(chains.items(), key=lambda kv: -kv[1])[:args.top]:
            print(f"{100 * n / total:6.2f}%  {' <- '.join(chain)}")
    shutil.rmtree(objects, ignore_errors=True)
    os.remove(map_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
