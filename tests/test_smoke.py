from quercus import ID3Classifier
from quercus.datasets import load_watermelon


def test_id3_fits_watermelon_perfectly():
    X, y = load_watermelon("2.0")
    assert ID3Classifier().fit(X, y).score(X, y) == 1.0
