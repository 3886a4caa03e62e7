"""Bundled teaching data sets: the watermelon tables of Zhou Zhihua's 《机器学习》 and
Quinlan's weather (golf) data.

Each loader returns ``(X, y)``: a pandas DataFrame of attributes in the table's row order
(the row id 编号 becomes the index, not an attribute) and a Series target.
"""

from importlib import resources

import pandas as pd

__all__ = ["load_watermelon", "load_golf", "watermelon_train_validation_split",
           "WATERMELON_TRAIN_IDS", "WATERMELON_VALIDATION_IDS"]

_WATERMELON_FILES = {
    "2.0": "watermelon_2_0.csv",
    "3.0": "watermelon_3_0.csv",
    "2.0alpha": "watermelon_2_0_alpha.csv",
}

#: The textbook's split of watermelon 2.0 for its pruning example (table 4.2), by 编号.
WATERMELON_TRAIN_IDS = (1, 2, 3, 6, 7, 10, 14, 15, 16, 17)
WATERMELON_VALIDATION_IDS = (4, 5, 8, 9, 11, 12, 13)


def _read(name):
    with resources.files(__name__).joinpath("data", name).open("r", encoding="utf-8") as fh:
        # Every attribute is read as text except the declared numeric ones, so that
        # categories keep their order of first appearance and empty cells become missing.
        return pd.read_csv(fh, dtype=object, keep_default_na=False, na_values=[""])


def load_watermelon(version="2.0"):
    """Load a watermelon data set of the book's chapter 4.

    Parameters
    ----------
    version : {"2.0", "3.0", "2.0alpha"}
        "2.0": six categorical attributes (table 4.1); "3.0": the same plus the numeric
        密度 and 含糖率 (table 4.3); "2.0alpha": 2.0 with missing values (table 4.4).

    Returns
    -------
    X : pandas.DataFrame, indexed by 编号
    y : pandas.Series named 好瓜, values 是 / 否

    Examples
    --------
    >>> from quercus.datasets import load_watermelon
    >>> X, y = load_watermelon("3.0")
    >>> X.shape, y.value_counts().to_dict()
    ((17, 8), {'否': 9, '是': 8})
    """
    if version not in _WATERMELON_FILES:
        raise ValueError(f"Unknown watermelon version {version!r}; choose one of "
                         f"{sorted(_WATERMELON_FILES)}.")
    df = _read(_WATERMELON_FILES[version])
    df["编号"] = df["编号"].astype(int)
    df = df.set_index("编号")
    for col in ("密度", "含糖率"):
        if col in df:
            df[col] = df[col].astype(float)
    y = df.pop("好瓜")
    return df.astype({c: object for c in df.columns if c not in ("密度", "含糖率")}), y


def load_golf():
    """Load Quinlan's weather data (14 days; play golf or not).

    Returns
    -------
    X : pandas.DataFrame with outlook, temperature, humidity, windy
        outlook is categorical, temperature and humidity numeric, windy boolean.
    y : pandas.Series named play, values yes / no

    Examples
    --------
    >>> from quercus.datasets import load_golf
    >>> X, y = load_golf()
    >>> list(X.columns), y.tolist()[:3]
    (['outlook', 'temperature', 'humidity', 'windy'], ['yes', 'no', 'no'])
    """
    df = _read("golf.csv")
    df["temperature"] = df["temperature"].astype(float)
    df["humidity"] = df["humidity"].astype(float)
    df["windy"] = df["windy"].map({"true": True, "false": False}).astype(bool)
    df["outlook"] = df["outlook"].astype(object)
    y = df.pop("play")
    return df, y


def watermelon_train_validation_split():
    """The book's training / validation split of watermelon 2.0 (section 4.3).

    Returns
    -------
    X_train, X_val, y_train, y_val
        Rows 编号 1 2 3 6 7 10 14 15 16 17 for training, 4 5 8 9 11 12 13 for validation.

    Examples
    --------
    >>> from quercus.datasets import watermelon_train_validation_split
    >>> X_train, X_val, y_train, y_val = watermelon_train_validation_split()
    >>> len(X_train), len(X_val)
    (10, 7)
    """
    X, y = load_watermelon("2.0")
    train = list(WATERMELON_TRAIN_IDS)
    val = list(WATERMELON_VALIDATION_IDS)
    return X.loc[train], X.loc[val], y.loc[train], y.loc[val]
