"""The ``quercus`` command line: fit, predict, show, explain, evaluate, demo, warmup.

Exit status: 0 on success; 2 for bad usage or bad data (a one-line message naming the
file, column, row or parameter, no traceback); 1 for an unexpected error; 141 when the
reader of the output went away (``quercus demo | head``). See docs/cli.md.
"""

import argparse
import os
import sys

# The exit status of a command whose reader went away: 128 + SIGPIPE, as a shell reports a
# program that signal ended.
EXIT_BROKEN_PIPE = 141
EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2

_DESCRIPTION = "Decision trees, exact to the textbook: ID3, C4.5 and CART."
_EPILOG = ("Run 'quercus COMMAND --help' for a command's options. Data files: CSV/TSV "
           "(encoding and delimiter detected), .xlsx, .parquet, .arff. Exit status: 0 ok, "
           "2 bad usage or data, 1 unexpected error.")


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (and exit status 2)."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


class _Formatter(argparse.HelpFormatter):
    def __init__(self, prog):
        super().__init__(prog, max_help_position=30, width=min(100, _terminal_width()))


def _terminal_width():
    try:
        return os.get_terminal_size().columns
    except OSError:
        return 100


def build_parser():
    """The ``quercus`` argument parser, with one subparser per command.

    Examples
    --------
    >>> p = build_parser()
    >>> p.parse_args(["fit", "melons.csv", "--max-depth", "2"]).param_max_depth
    '2'
    """
    from .. import __version__
    from .commands import SHOW_FORMATS
    from .options import ALGORITHMS, add_parameter_options

    parser = _Parser(prog="quercus", description=_DESCRIPTION, epilog=_EPILOG,
                     formatter_class=_Formatter)
    parser.add_argument("--version", action="version", version=f"quercus {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    common = argparse.ArgumentParser(add_help=False)
    g = common.add_argument_group("output")
    g.add_argument("-q", "--quiet", action="store_true", help="no notes, no progress")
    g.add_argument("-v", "--verbose", action="store_true",
                   help="how files were read, the parameters used; a traceback for an "
                   "unexpected error")

    reading = argparse.ArgumentParser(add_help=False)
    g = reading.add_argument_group("reading data files")
    g.add_argument("--encoding", help="text encoding of a CSV/ARFF file (default: UTF-8 "
                   "with or without BOM, else detected, e.g. GBK/GB18030)")
    g.add_argument("--delimiter", help="CSV field delimiter (default: sniffed among , tab ; "
                   "|); 'tab' for a tab")
    g.add_argument("--sheet", help="Excel sheet name or 0-based number (default: the first)")

    training = argparse.ArgumentParser(add_help=False)
    g = training.add_argument_group("training data")
    g.add_argument("--target", metavar="COL",
                   help="the column to predict (default: the last column)")
    g.add_argument("--algorithm", default="auto", metavar="NAME",
                   help=f"one of auto, {', '.join(ALGORITHMS)} (default auto: c45, or "
                   "cart-regressor for a numeric target with fractions)")
    g.add_argument("--categorical", action="append", metavar="COLS",
                   help="columns to treat as categorical, comma-separated (default: text "
                   "and boolean columns)")
    g.add_argument("--ignore", action="append", metavar="COLS",
                   help="columns to leave out, comma-separated")
    g.add_argument("--id", metavar="COL", help="an id column to leave out")
    g.add_argument("--no-auto-id", action="store_true",
                   help="keep integer columns that number the rows (1, 2, 3, ...); by "
                   "default they are left out")
    def tree_parameters(skip=()):
        parent = argparse.ArgumentParser(add_help=False)
        add_parameter_options(parent.add_argument_group(
            "tree parameters", "The estimators' parameters (docs/guide.md); unset, each "
            "takes the algorithm's default."), skip=skip)
        return parent

    params = tree_parameters()

    parser.commands = {}

    def command(name, help, parents, description=None):
        parser.commands[name] = sub.add_parser(
            name, help=help, description=description or help, parents=parents,
            formatter_class=_Formatter)
        return parser.commands[name]

    p = command("fit", "grow a tree on a data file, print a summary, save the model",
                [common, reading, training, params])
    p.add_argument("data", metavar="DATA", help="CSV, TSV, .xlsx, .parquet or .arff file")
    p.add_argument("-o", "--output", metavar="MODEL.json",
                   help="write the model here (quercus JSON); without it the tree is printed")
    p.add_argument("--tree", action="store_true", help="print the tree even with -o")

    p = command("predict", "predict each row of a data file with a saved model",
                [common, reading])
    p.add_argument("model", metavar="MODEL.json")
    p.add_argument("data", metavar="DATA")
    p.add_argument("-o", "--output", metavar="OUT.csv",
                   help="write the predictions here (default: stdout), CSV or .tsv")
    p.add_argument("--proba", action="store_true",
                   help="add each class's probability, P(class)")
    p.add_argument("--id", metavar="COL", help="copy this column of DATA into the output")

    p = command("show", "print a saved model: text, rules, dot, html, png, svg or json",
                [common])
    p.add_argument("model", metavar="MODEL.json")
    p.add_argument("--format", "-f", choices=SHOW_FORMATS, default="text",
                   help="default: text")
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")

    p = command("explain", "the split table of a node: every candidate and why the "
                "chosen one won", [common, reading, training, params],
                description="Explain a node: 'quercus explain DATA' fits a tree first; "
                "'quercus explain MODEL.json --data DATA' explains a saved model on data.")
    p.add_argument("source", metavar="DATA|MODEL.json")
    p.add_argument("--data", metavar="DATA", help="the data for a model file")
    p.add_argument("--node", default="0", metavar="NODE",
                   help="a node id, or a path of branch tests such as 纹理=清晰/根蒂=蜷缩 "
                   "(default: the root)")

    p = command("evaluate", "accuracy, confusion matrix, per-class precision/recall/F1 by "
                "cross-validation or on a test file, algorithms side by side",
                [common, reading, training, tree_parameters(skip=("cv",))],
                description="Evaluate algorithms by cross-validation or on a test file. "
                "Here --cv is the evaluation's folds; the trees' own cv parameter (for "
                "pruning='cost_complexity') is --param cv=K.")
    p.add_argument("data", metavar="DATA")
    p.add_argument("--cv", type=int, metavar="K",
                   help="K-fold cross-validation (default 10; stratified for a classifier)")
    p.add_argument("--test", metavar="DATA2", help="evaluate on this file instead")
    p.add_argument("--seed", type=int, default=1, help="shuffles the folds (default 1)")

    p = command("demo", "the watermelon book's chapter 4: the split table, the ID3, C4.5 "
                "and CART trees, reduced-error pruning", [common])
    p.add_argument("--write-data", metavar="DIR",
                   help="instead, write the bundled data sets as CSV files into DIR (for "
                   "trying the other commands)")
    command("warmup", "compile the numba kernels into the on-disk cache", [common])
    return parser


def _run(args, con):
    from . import commands
    if args.command == "warmup":
        from .warmup import _warmup
        return _warmup(args)
    return getattr(commands, f"cmd_{args.command}")(args, con)


def main(argv=None):
    """Entry point of the ``quercus`` command; returns the exit status.

    Examples
    --------
    >>> from quercus.cli import main
    >>> main(["warmup"])  # doctest: +ELLIPSIS
    quercus kernels ready (...)
    0
    """
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        # 'quercus' alone asks what it can do: the help, on stdout, and success.
        parser.print_help()
        return EXIT_OK
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:
            where = parser.commands.get(args.command, parser)
            where.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:  # --help, --version, or a usage error already printed
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    from .commands import Console
    from .io import DataError
    from .options import UsageError
    con = Console(quiet=getattr(args, "quiet", False), verbose=getattr(args, "verbose", False))
    prog = f"quercus {args.command}"
    try:
        status = _run(args, con)
        sys.stdout.flush()  # (a reader gone shows here, not at the interpreter's exit)
    except BrokenPipeError:
        # ``quercus demo | head``: stop quietly, as shell tools do. stdout goes to devnull
        # so that the interpreter's last flush does not fail again with a traceback.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except (UsageError, DataError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - the last resort: one line, status 1
        if con.verbose:
            import traceback
            traceback.print_exc()
        print(f"{prog}: unexpected error: {type(exc).__name__}: {exc} (run with --verbose "
              "for the traceback; please report it)", file=sys.stderr)
        return EXIT_ERROR
    return status


if __name__ == "__main__":
    sys.exit(main())
