"""The bundled data sets (the command line's tests are in test_cli.py)."""

import pandas as pd
import pytest

from quercus.datasets import (WATERMELON_TRAIN_IDS, WATERMELON_VALIDATION_IDS, load_golf,
                              load_watermelon, watermelon_train_validation_split)


@pytest.mark.parametrize("version, n_cols", [("2.0", 6), ("3.0", 8), ("2.0alpha", 6)])
def test_watermelon_shapes_and_row_order(version, n_cols):
    X, y = load_watermelon(version)
    assert X.shape == (17, n_cols) and "编号" not in X.columns
    assert list(X.index) == list(range(1, 18))
    assert y.name == "好瓜" and y.iloc[0] == "是" and y.iloc[-1] == "否"
    assert (y == "是").sum() == 8


def test_watermelon_3_numeric_columns_and_alpha_missing_cells():
    X, _ = load_watermelon("3.0")
    assert X["密度"].dtype == float and X.loc[1, "密度"] == 0.697
    Xa, _ = load_watermelon("2.0alpha")
    assert pd.isna(Xa.loc[1, "色泽"]) and Xa.isna().sum().sum() == 13  # counted in table 4.4


def test_unknown_watermelon_version():
    with pytest.raises(ValueError, match="Unknown watermelon version '4.0'"):
        load_watermelon("4.0")


def test_golf_types():
    X, y = load_golf()
    assert X["windy"].dtype == bool and X["humidity"].dtype == float
    assert y.value_counts().to_dict() == {"yes": 9, "no": 5}


def test_textbook_train_validation_split():
    X_tr, X_va, y_tr, y_va = watermelon_train_validation_split()
    assert tuple(X_tr.index) == WATERMELON_TRAIN_IDS == (1, 2, 3, 6, 7, 10, 14, 15, 16, 17)
    assert tuple(X_va.index) == WATERMELON_VALIDATION_IDS == (4, 5, 8, 9, 11, 12, 13)
    assert list(y_va) == ["是", "是", "是", "否", "否", "否", "否"]
