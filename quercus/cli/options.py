"""Tree-parameter options generated from the estimators' ``get_params()``.

Every parameter of :class:`~quercus.DecisionTreeClassifier` and
:class:`~quercus.DecisionTreeRegressor` becomes an option (``max_depth`` -> ``--max-depth``),
so that a new parameter is reachable from the command line without touching this module.
Values are converted by their text (``none``, ``true``/``false``, integers, floats, strings);
the estimator's own validation then checks them and its message becomes the error.
"""

import re
from numbers import Integral

from .. import (C45Classifier, CARTClassifier, CARTRegressor, DecisionTreeClassifier,
                DecisionTreeRegressor, ID3Classifier)


class UsageError(Exception):
    """Bad usage, a bad parameter or bad data: exit status 2 with a one-line message."""


#: ``--algorithm`` names and their estimators.
ALGORITHMS = {
    "id3": ID3Classifier,
    "c45": C45Classifier,
    "cart": CARTClassifier,
    "cart-regressor": CARTRegressor,
    "tree": DecisionTreeClassifier,
    "tree-regressor": DecisionTreeRegressor,
}

# Parameters given by options of their own: --categorical names the columns.
_OWN_OPTION = {"categorical_features": "--categorical"}


def parameter_names():
    """Every tree parameter, the classifier's first, then the regressor's others.

    Examples
    --------
    >>> names = parameter_names()
    >>> "max_depth" in names and "confidence_factor" in names and "class_weight" in names
    True
    """
    names = list(DecisionTreeClassifier().get_params())
    names += [n for n in DecisionTreeRegressor().get_params() if n not in names]
    return names


def option_name(param):
    """The command-line option of a parameter.

    Examples
    --------
    >>> option_name("min_samples_leaf"), option_name("categorical_features")
    ('--min-samples-leaf', '--categorical')
    """
    return _OWN_OPTION.get(param, "--" + param.replace("_", "-"))


def _doc_help():
    """Each parameter's first sentence, from the estimators' docstrings."""
    out = {}
    for cls in (DecisionTreeClassifier, DecisionTreeRegressor):
        doc = cls.__doc__ or ""
        for m in re.finditer(r"^    (\w+) : .*\n((?:        .*\n?)*)", doc, re.M):
            text = " ".join(m.group(2).replace("``", "").split())
            out.setdefault(m.group(1), text.split(". ")[0].rstrip(".") + ".")
    return out


def _kinds(name):
    """The values a parameter takes, in words, from the estimators' constraint tables."""
    from sklearn.utils._param_validation import make_constraint
    words = []
    for cls in (DecisionTreeClassifier, DecisionTreeRegressor):
        for c in cls._parameter_constraints.get(name, []):
            if c is None:
                w = "none"
            elif c == "boolean":
                w = "true or false"
            elif c is dict:
                w = "label=weight,..."
            elif c == "cv_object":
                w = "an int >= 2"
            elif c == "random_state":
                w = "an int"
            elif c == "array-like":
                w = "comma-separated names"
            elif hasattr(c, "options"):
                w = "/".join(sorted(c.options))
            else:
                w = re.sub(r"^an? ", "", str(make_constraint(c)))
            if w not in words:
                words.append(w)
    return "; ".join(words)


def add_parameter_options(parser, skip=()):
    """Add one option per tree parameter to an argparse parser (or argument group).

    Parameters named in ``skip`` get no option of their own (a command's option of the same
    name means something else); ``--param NAME=VALUE`` reaches every parameter.

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser()
    >>> add_parameter_options(p)
    >>> vars(p.parse_args(["--max-depth", "3"]))["param_max_depth"]
    '3'
    """
    helps = _doc_help()
    parser.add_argument("--param", action="append", metavar="NAME=VALUE", default=[],
                        help="any tree parameter by its Python name, e.g. --param cv=5")
    for name in parameter_names():
        if name in _OWN_OPTION or name in skip:
            continue
        text = f"{_kinds(name)}. {helps.get(name, '')}".strip()
        parser.add_argument(option_name(name), dest="param_" + name, metavar="VALUE",
                            default=None, help=text.replace("%", "%%"))


def _convert(text):
    low = text.strip().lower()
    if low in ("none", "null"):
        return None
    if low in ("true", "yes"):
        return True
    if low in ("false", "no"):
        return False
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text.strip()


def _str_options(cls, name):
    opts = set()
    for c in cls._parameter_constraints.get(name, []):
        opts |= set(getattr(c, "options", ()) or ())
    return opts


def convert_value(cls, name, text):
    """The Python value of an option's text, for parameter ``name`` of ``cls``.

    ``none`` is None, ``true``/``false`` booleans, numbers numbers; a hyphen may stand for
    an underscore in a choice (``reduced-error``); ``class_weight`` takes ``balanced`` or
    ``label=weight,label=weight``.

    Examples
    --------
    >>> from quercus import C45Classifier
    >>> convert_value(C45Classifier, "pruning", "reduced-error")
    'reduced_error'
    >>> convert_value(C45Classifier, "max_depth", "none") is None
    True
    >>> convert_value(C45Classifier, "class_weight", "是=2,否=1")
    {'是': 2, '否': 1}
    """
    if name == "class_weight" and "=" in text:
        weights = {}
        for item in text.split(","):
            label, sep, w = item.partition("=")
            if not sep:
                raise UsageError(f"--class-weight {text!r}: write label=weight,label=weight "
                                 "or balanced")
            value = _convert(w)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise UsageError(f"--class-weight: the weight of {label.strip()!r} is "
                                 f"{w.strip()!r}, not a number")
            weights[label.strip()] = value
        return weights
    value = _convert(text)
    if isinstance(value, str) and "-" in value:
        alt = value.replace("-", "_")
        if alt in _str_options(cls, name):
            return alt
    return value


def chosen_parameters(args, cls):
    """The parameters given on the command line, converted for ``cls``.

    Examples
    --------
    >>> import argparse
    >>> from quercus import ID3Classifier
    >>> chosen_parameters(argparse.Namespace(param_max_depth="2", param_pruning=None),
    ...                   ID3Classifier)
    {'max_depth': 2}
    """
    known = cls().get_params()
    given = [(k[len("param_"):], v) for k, v in sorted(vars(args).items())
             if k.startswith("param_") and v is not None]
    for item in getattr(args, "param", None) or []:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--param {item!r}: write NAME=VALUE, e.g. --param max_depth=3")
        given.append((name.strip().replace("-", "_"), text))
    out = {}
    for name, text in given:
        if name not in known:
            raise UsageError(f"{option_name(name)}: {cls.__name__} has no parameter "
                             f"{name!r}")
        out[name] = convert_value(cls, name, text)
    return out


def make_estimator(cls, params):
    """``cls(**params)``, checked by the estimator's validation.

    An invalid value raises :class:`UsageError` naming the option, with the estimator's
    message.

    Examples
    --------
    >>> from quercus import ID3Classifier
    >>> try:
    ...     make_estimator(ID3Classifier, {"max_depth": 0})
    ... except UsageError as exc:
    ...     print(exc)  # doctest: +ELLIPSIS
    --max-depth 0: The 'max_depth' parameter of ID3Classifier must be an int in the range...
    """
    est = cls(**params)
    try:
        est._validate_params()
    except ValueError as exc:  # scikit-learn's InvalidParameterError is a ValueError
        raise UsageError(_name_option(str(exc), params)) from None
    return est


def _name_option(msg, params):
    m = re.search(r"The '(\w+)' parameter", msg)
    if m and m.group(1) in params:
        value = params[m.group(1)]
        shown = value if isinstance(value, (Integral, float, str)) else repr(value)
        return f"{option_name(m.group(1))} {shown}: {msg}"
    return msg
