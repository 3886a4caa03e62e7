"""Linear models: logistic regression as R's ``glm(..., family = binomial)``, and logistic
model trees as Weka's LMT.

Examples
--------
>>> from quercus.linear import LogisticRegression, SeparationWarning
>>> issubclass(SeparationWarning, UserWarning)
True
"""

from ._glm import (
    AliasedWarning,
    GLMConvergenceWarning,
    GLMWarning,
    LogisticRegression,
    SeparationWarning,
)
from ._lmt import LogisticModelTree

__all__ = ["LogisticRegression", "LogisticModelTree", "GLMWarning", "SeparationWarning",
           "GLMConvergenceWarning", "AliasedWarning"]
