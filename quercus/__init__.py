"""quercus: the classic decision-tree learners (ID3, C4.5, CART), exact to the textbook."""

from ._estimators import (
    C45Classifier,
    CARTClassifier,
    CARTRegressor,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ID3Classifier,
)
from ._persist import ModelFileError, load
from ._prune_api import prune
from .export import export_dict, export_text

__version__ = "0.1.0"

__all__ = [
    "DecisionTreeClassifier",
    "ID3Classifier",
    "C45Classifier",
    "CARTClassifier",
    "DecisionTreeRegressor",
    "CARTRegressor",
    "prune",
    "load",
    "ModelFileError",
    "export_text",
    "export_dict",
    "__version__",
]
