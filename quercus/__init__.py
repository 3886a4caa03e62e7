"""quercus: the classic decision-tree learners (ID3, C4.5, CART), exact to the textbook."""

from ._estimators import (
    C45Classifier,
    CARTClassifier,
    CARTRegressor,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ID3Classifier,
)
from ._config import config_context, get_config, set_config
from ._persist import ModelFileError, load, register_own_format
from ._prepare import DataWarning
from ._prune_api import prune
from ._version import __version__
from .export import (export_code, export_dict, export_graphviz, export_html, export_rules,
                     export_text, plot_tree)
from .linear import LogisticModelTree, LogisticRegression

# The linear models' files have fields of their own, which their classes read.
register_own_format(LogisticRegression, LogisticModelTree)


__all__ = [
    "DecisionTreeClassifier",
    "ID3Classifier",
    "C45Classifier",
    "CARTClassifier",
    "DecisionTreeRegressor",
    "CARTRegressor",
    "LogisticRegression",
    "LogisticModelTree",
    "prune",
    "load",
    "ModelFileError",
    "DataWarning",
    "export_text",
    "export_dict",
    "export_graphviz",
    "plot_tree",
    "export_code",
    "export_rules",
    "export_html",
    "get_config",
    "set_config",
    "config_context",
    "__version__",
]
