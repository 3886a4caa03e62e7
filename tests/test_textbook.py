"""The textbook's numbers, through quercus's public API.

Every expected value is computed here by hand, with the fractions written out from the data
tables (watermelon 2.0 / 3.0 of Zhou Zhihua's 《机器学习》 chapter 4, Quinlan's golf data),
and compared with the book's printed (3-decimal) figures. Class counts are written
(是, 否) for the watermelons and (yes, no) for golf.

Watermelon 2.0, for reference (编号: 色泽 根蒂 敲声 纹理 脐部 触感 -> 好瓜):
     1 青绿 蜷缩 浊响 清晰 凹陷 硬滑 是     10 青绿 硬挺 清脆 清晰 平坦 软粘 否
     2 乌黑 蜷缩 沉闷 清晰 凹陷 硬滑 是     11 浅白 硬挺 清脆 模糊 平坦 硬滑 否
     3 乌黑 蜷缩 浊响 清晰 凹陷 硬滑 是     12 浅白 蜷缩 浊响 模糊 平坦 软粘 否
     4 青绿 蜷缩 沉闷 清晰 凹陷 硬滑 是     13 青绿 稍蜷 浊响 稍糊 凹陷 硬滑 否
     5 浅白 蜷缩 浊响 清晰 凹陷 硬滑 是     14 浅白 稍蜷 沉闷 稍糊 凹陷 硬滑 否
     6 青绿 稍蜷 浊响 清晰 稍凹 软粘 是     15 乌黑 稍蜷 浊响 清晰 稍凹 软粘 否
     7 乌黑 稍蜷 浊响 稍糊 稍凹 软粘 是     16 浅白 蜷缩 浊响 模糊 平坦 硬滑 否
     8 乌黑 稍蜷 浊响 清晰 稍凹 硬滑 是     17 青绿 蜷缩 沉闷 稍糊 稍凹 硬滑 否
     9 乌黑 稍蜷 沉闷 稍糊 稍凹 硬滑 否
"""

import re
from math import log2

import pytest

from quercus import C45Classifier, CARTClassifier, ID3Classifier, export_dict, export_text
from quercus.datasets import load_golf, load_watermelon
from quercus.export.text import display_width

BOOK = 1e-3    # the book prints three decimals
EXACT = 1e-12  # our own hand computation, in double precision


def H(*counts):
    """Entropy in bits of a class-count vector, by the book's formula (4.1)."""
    n = sum(counts)
    return -sum(c / n * log2(c / n) for c in counts if c)


def G(*counts):
    """Gini value (4.5) of a class-count vector."""
    n = sum(counts)
    return 1 - sum((c / n) ** 2 for c in counts)


def conditional_H(*branches):
    """sum_v |D^v|/|D| Ent(D^v) for branches given as class-count tuples."""
    n = sum(sum(b) for b in branches)
    return sum(sum(b) / n * H(*b) for b in branches)


def row(table, feature, **where):
    sel = table["feature"] == feature
    for col, value in where.items():
        sel &= table[col] == value
    rows = table[sel]
    assert len(rows) == 1, f"{feature} {where}: {len(rows)} rows"
    return rows.iloc[0]


@pytest.fixture(scope="module")
def melon2():
    return load_watermelon("2.0")


@pytest.fixture(scope="module")
def melon3():
    return load_watermelon("3.0")


@pytest.fixture(scope="module")
def id3_melon2(melon2):
    return ID3Classifier().fit(*melon2)


# ================================================================== watermelon 2.0, ID3
ENT_D = H(8, 9)  # 8 good melons (1-8), 9 bad (9-17): 0.99750

# Branches per attribute at the root, (是, 否) per category in order of first appearance.
ROOT_BRANCHES = {
    "色泽": [(3, 3), (4, 2), (1, 4)],  # 青绿 {1,4,6|10,13,17} 乌黑 {2,3,7,8|9,15} 浅白 {5|11,12,14,16}
    "根蒂": [(5, 3), (3, 4), (0, 2)],  # 蜷缩 {1-5|12,16,17} 稍蜷 {6,7,8|9,13,14,15} 硬挺 {|10,11}
    "敲声": [(6, 4), (2, 3), (0, 2)],  # 浊响 {1,3,5,6,7,8|12,13,15,16} 沉闷 {2,4|9,14,17} 清脆 {|10,11}
    "纹理": [(7, 2), (1, 4), (0, 3)],  # 清晰 {1-6,8|10,15} 稍糊 {7|9,13,14,17} 模糊 {|11,12,16}
    "脐部": [(5, 2), (3, 3), (0, 4)],  # 凹陷 {1-5|13,14} 稍凹 {6,7,8|9,15,17} 平坦 {|10,11,12,16}
    "触感": [(6, 6), (2, 3)],          # 硬滑 {1-5,8|9,11,13,14,16,17} 软粘 {6,7|10,12,15}
}


def test_watermelon20_root_entropy_is_0998(id3_melon2):
    table = id3_melon2.explain(0)
    assert table.attrs["n_samples"] == 17
    assert table.attrs["distribution"] == {"否": 9.0, "是": 8.0}
    # Ent(D) = -(8/17 log2 8/17 + 9/17 log2 9/17) = 0.99750
    assert ENT_D == pytest.approx(-(8 / 17 * log2(8 / 17) + 9 / 17 * log2(9 / 17)), abs=EXACT)
    assert table.attrs["entropy"] == pytest.approx(0.998, abs=BOOK)
    assert table.attrs["entropy"] == pytest.approx(ENT_D, abs=EXACT)
    # Gini(D) = 1 - (8/17)^2 - (9/17)^2 = 144/289
    assert table.attrs["gini"] == pytest.approx(144 / 289, abs=EXACT)


@pytest.mark.parametrize("feature, book", [
    ("根蒂", 0.143), ("敲声", 0.141), ("纹理", 0.381), ("脐部", 0.289), ("触感", 0.006)])
def test_watermelon20_root_information_gains_match_book(id3_melon2, feature, book):
    hand = ENT_D - conditional_H(*ROOT_BRANCHES[feature])
    assert hand == pytest.approx(book, abs=BOOK)
    gain = row(id3_melon2.explain(0), feature)["gain"]
    assert gain == pytest.approx(book, abs=BOOK)
    assert gain == pytest.approx(hand, abs=EXACT)


def test_watermelon20_gain_of_色泽_is_0108_the_book_prints_0109(id3_melon2):
    # By hand:
    #   Ent(D^青绿) = Ent(3/6, 3/6) = 1.00000
    #   Ent(D^乌黑) = Ent(4/6, 2/6) = 0.91830
    #   Ent(D^浅白) = Ent(1/5, 4/5) = 0.72193
    #   sum_v |D^v|/|D| Ent(D^v) = 6/17 * 1 + 6/17 * 0.91830 + 5/17 * 0.72193
    #                            = 0.35294 + 0.32410 + 0.21233 = 0.88938 (0.889377)
    #   Gain(D, 色泽) = 0.99750 - 0.88938 = 0.10812  ->  0.108
    # The book prints 0.109: it subtracts from Ent(D) already rounded to 0.998
    # (0.998 - 0.88938 = 0.10862 -> 0.109). The exact value rounds to 0.108; no other
    # gain of the table is affected by that rounding.
    hand = ENT_D - (6 / 17 * H(3, 3) + 6 / 17 * H(4, 2) + 5 / 17 * H(1, 4))
    assert hand == pytest.approx(0.10812, abs=1e-5)
    assert 0.998 - (6 / 17 * H(3, 3) + 6 / 17 * H(4, 2) + 5 / 17 * H(1, 4)) == pytest.approx(
        0.109, abs=BOOK)
    gain = row(id3_melon2.explain(0), "色泽")["gain"]
    assert gain == pytest.approx(hand, abs=EXACT)
    assert round(gain, 3) == 0.108


def test_watermelon20_root_split_is_纹理_the_largest_gain(id3_melon2):
    table = id3_melon2.explain(0)
    assert table.loc[table["chosen"], "feature"].tolist() == ["纹理"]
    assert export_dict(id3_melon2)["feature"] == "纹理"


def _shape(d):
    """export_dict node -> (class, n_samples) of a leaf, or (feature, n_samples, branches);
    a threshold branch is named by its operator only ("<=" / ">")."""
    if "children" not in d:
        return (d["class"], d["n_samples"])
    conds = [c["condition"] for c in d["children"]]
    if "threshold" in d:
        conds = [c.split()[0] for c in conds]
    return (d["feature"], d["n_samples"],
            [(cond, _shape(c["node"])) for cond, c in zip(conds, d["children"])])


def test_id3_tree_of_watermelon20_is_figure_4_4(id3_melon2):
    # Figure 4.4, with the number of training samples of each node (hand count):
    # 纹理=清晰 {1-6,8,10,15} -> 根蒂 (tie broken by column order, see the next test):
    #   蜷缩 {1-5}: 是; 硬挺 {10}: 否;
    #   稍蜷 {6,8,15} -> 色泽 (gain 0.252, tied with 触感, earlier column):
    #     青绿 {6}: 是; 乌黑 {8,15} -> 触感 {硬滑: 8 是, 软粘: 15 否};
    #     浅白 {}: empty, the parent's majority (2 是 : 1 否) -> 是
    # 纹理=稍糊 {7,9,13,14,17} -> 触感 (gain = Ent(D) = 0.722): 硬滑 {9,13,14,17} 否, 软粘 {7} 是
    # 纹理=模糊 {11,12,16}: 否
    expected = ("纹理", 17, [
        ("= 清晰", ("根蒂", 9, [
            ("= 蜷缩", ("是", 5)),
            ("= 稍蜷", ("色泽", 3, [
                ("= 青绿", ("是", 1)),
                ("= 乌黑", ("触感", 2, [("= 硬滑", ("是", 1)), ("= 软粘", ("否", 1))])),
                ("= 浅白", ("是", 0)),
            ])),
            ("= 硬挺", ("否", 1)),
        ])),
        ("= 稍糊", ("触感", 5, [("= 硬滑", ("否", 4)), ("= 软粘", ("是", 1))])),
        ("= 模糊", ("否", 3)),
    ])
    tree = export_dict(id3_melon2)
    assert _shape(tree) == expected
    empty = tree["children"][0]["node"]["children"][1]["node"]["children"][2]["node"]
    assert empty["n_samples"] == 0
    assert empty["distribution"] == {"否": 1.0, "是": 2.0}  # the parent's {6, 8, 15}
    assert id3_melon2.get_n_leaves() == 9


def test_second_level_tie_under_纹理_清晰_goes_to_根蒂_by_column_order(id3_melon2):
    # D^1 = 纹理=清晰 = {1,2,3,4,5,6,8,10,15}: 7 是, 2 否; Ent(D^1) = 0.764 (book)
    # 根蒂: 蜷缩 {1-5} (5,0), 稍蜷 {6,8,15} (2,1), 硬挺 {10} (0,1)
    # 脐部: 凹陷 {1-5} (5,0), 稍凹 {6,8,15} (2,1), 平坦 {10} (0,1)
    # 触感: 硬滑 {1-5,8} (6,0), 软粘 {6,10,15} (1,2)
    #   all three: Gain = 0.764 - 3/9 * Ent(2/3, 1/3) = 0.764 - 0.306 = 0.458 (book: 0.458)
    # 色泽: 青绿 {1,4,6,10} (3,1), 乌黑 {2,3,8,15} (3,1), 浅白 {5} (1,0) -> 0.043 (book)
    # 敲声: 浊响 {1,3,5,6,8,15} (5,1), 沉闷 {2,4} (2,0), 清脆 {10} (0,1) -> 0.331 (book)
    node = export_dict(id3_melon2)["children"][0]["node"]["node"]
    table = id3_melon2.explain(node)
    assert table.attrs["n_samples"] == 9
    assert table.attrs["entropy"] == pytest.approx(0.764, abs=BOOK)
    assert table.attrs["entropy"] == pytest.approx(H(7, 2), abs=EXACT)
    assert "纹理" not in set(table["feature"])  # a multiway attribute is not reused
    tie = H(7, 2) - 3 / 9 * H(2, 1)
    assert tie == pytest.approx(0.458, abs=BOOK)
    for feature in ("根蒂", "脐部", "触感"):
        assert row(table, feature)["gain"] == pytest.approx(tie, abs=EXACT)
    assert row(table, "色泽")["gain"] == pytest.approx(
        H(7, 2) - (4 / 9 * H(3, 1) + 4 / 9 * H(3, 1) + 1 / 9 * H(1, 0)), abs=EXACT)
    assert row(table, "色泽")["gain"] == pytest.approx(0.043, abs=BOOK)
    assert row(table, "敲声")["gain"] == pytest.approx(H(7, 2) - 6 / 9 * H(5, 1), abs=EXACT)
    assert row(table, "敲声")["gain"] == pytest.approx(0.331, abs=BOOK)
    # 根蒂 comes before 脐部 and 触感 in the columns: it wins the tie
    assert table.loc[table["chosen"], "feature"].tolist() == ["根蒂"]


# ================================================================== watermelon 3.0
# 密度 sorted, as listed in the book (section 4.4.1) and the seeds (eq. 4.7):
DENSITY = [0.243, 0.245, 0.343, 0.360, 0.403, 0.437, 0.481, 0.556, 0.593, 0.608, 0.634,
           0.639, 0.657, 0.666, 0.697, 0.719, 0.774]


def test_watermelon30_密度_candidates_are_the_16_midpoints(melon3):
    table = ID3Classifier().fit(*melon3).explain(0)
    rows = table[table["feature"] == "密度"]
    midpoints = [(a + b) / 2 for a, b in zip(DENSITY[:-1], DENSITY[1:])]
    assert len(midpoints) == 16
    assert rows["kind"].tolist() == ["numeric"] * 16
    assert rows["threshold"].tolist() == pytest.approx(midpoints, abs=EXACT)


def test_watermelon30_best_密度_split_is_0381_with_gain_0262(melon3):
    # The book writes 0.381 for the midpoint (0.360 + 0.403) / 2 = 0.3815.
    # 密度 <= 0.3815: {10, 11, 12, 15} all 否; > 0.3815: 8 是, 5 否
    # Gain = 0.998 - 13/17 * Ent(8/13, 5/13) = 0.998 - 0.735 = 0.262
    hand = ENT_D - 13 / 17 * H(8, 5)
    assert hand == pytest.approx(0.262, abs=BOOK)
    table = ID3Classifier().fit(*melon3).explain(0)
    best = row(table, "密度", best_of_feature=True)
    assert best["threshold"] == pytest.approx(0.3815, abs=EXACT)
    assert best["gain"] == pytest.approx(0.262, abs=BOOK)
    assert best["gain"] == pytest.approx(hand, abs=EXACT)


def test_watermelon30_best_含糖率_split_is_0126_with_gain_0349(melon3):
    # 含糖率 sorted: 0.042(16) 0.057(11) 0.091(9) 0.099(12) 0.103(17) | 0.149(7) ...
    # threshold (0.103 + 0.149) / 2 = 0.126; left 5 否, right 8 是 4 否
    # Gain = 0.998 - 12/17 * Ent(8/12, 4/12) = 0.998 - 0.648 = 0.349
    hand = ENT_D - 12 / 17 * H(8, 4)
    assert hand == pytest.approx(0.349, abs=BOOK)
    table = ID3Classifier().fit(*melon3).explain(0)
    best = row(table, "含糖率", best_of_feature=True)
    assert best["threshold"] == pytest.approx(0.126, abs=EXACT)
    assert best["gain"] == pytest.approx(0.349, abs=BOOK)
    assert best["gain"] == pytest.approx(hand, abs=EXACT)


def test_id3_tree_of_watermelon30_is_figure_4_8(melon3):
    # Root: 纹理 (0.381) beats 含糖率 (0.349), 脐部 (0.289) and 密度 (0.262).
    # 纹理=清晰 {1-6,8,10,15}: 密度 <= 0.3815 isolates exactly the bad {10 (0.243), 15 (0.360)}:
    #   Gain = Ent(7/9, 2/9), the largest possible.
    # 纹理=稍糊 {7,9,13,14,17}: 触感 (软粘 {7} 是) and 密度 <= (0.481+0.639)/2 ({7} is the
    #   lightest) both separate 7 from the rest; 触感 is the earlier column.
    expected = ("纹理", 17, [
        ("= 清晰", ("密度", 9, [("<=", ("否", 2)), (">", ("是", 7))])),
        ("= 稍糊", ("触感", 5, [("= 硬滑", ("否", 4)), ("= 软粘", ("是", 1))])),
        ("= 模糊", ("否", 3)),
    ])
    tree = export_dict(ID3Classifier().fit(*melon3))
    assert _shape(tree) == expected
    assert tree["children"][0]["node"]["threshold"] == pytest.approx(0.3815, abs=EXACT)


def test_c45_picks_含糖率_at_the_watermelon30_root(melon3):
    # Gains of the eight attributes at the root (hand, see ROOT_BRANCHES and the two tests above):
    gains = {f: ENT_D - conditional_H(*b) for f, b in ROOT_BRANCHES.items()}
    gains["密度"] = ENT_D - 13 / 17 * H(8, 5)
    gains["含糖率"] = ENT_D - 12 / 17 * H(8, 4)
    # 0.108 0.143 0.141 0.381 0.289 0.006 0.262 0.349 -> average 1.67911 / 8 = 0.20989
    average = sum(gains.values()) / 8
    assert average == pytest.approx(0.20989, abs=1e-5)
    above = {f for f, g in gains.items() if g >= average}
    assert above == {"纹理", "脐部", "密度", "含糖率"}
    # IV: 纹理 9/5/3 melons, 脐部 7/6/4, 密度 4 | 13, 含糖率 5 | 12
    iv = {"纹理": H(9, 5, 3), "脐部": H(7, 6, 4), "密度": H(4, 13), "含糖率": H(5, 12)}
    ratio = {f: gains[f] / iv[f] for f in above}
    # 纹理 0.381/1.447 = 0.263, 脐部 0.289/1.549 = 0.187, 密度 0.262/0.787 = 0.333,
    # 含糖率 0.349/0.874 = 0.400 -> 含糖率
    assert ratio == pytest.approx({"纹理": 0.263, "脐部": 0.187, "密度": 0.333,
                                   "含糖率": 0.400}, abs=BOOK)
    assert max(ratio, key=ratio.get) == "含糖率"

    clf = C45Classifier(pruning=None).fit(*melon3)  # the book's C4.5, unpruned
    table = clf.explain(0)
    assert table.attrs["average_gain"] == pytest.approx(average, abs=EXACT)
    best = table[table["best_of_feature"]]
    assert set(best["feature"]) == set(gains)
    for _, r in best.iterrows():
        assert r["gain"] == pytest.approx(gains[r["feature"]], abs=EXACT)
        assert bool(r["above_average_gain"]) == (r["feature"] in above)
        if r["feature"] in above:
            assert r["intrinsic_value"] == pytest.approx(iv[r["feature"]], abs=EXACT)
            assert r["gain_ratio"] == pytest.approx(ratio[r["feature"]], abs=EXACT)
    assert table.loc[table["chosen"], "feature"].tolist() == ["含糖率"]
    assert export_dict(clf)["feature"] == "含糖率"
    assert export_dict(clf)["threshold"] == pytest.approx(0.126, abs=EXACT)


# ================================================================== golf
@pytest.fixture(scope="module")
def golf_root():
    return C45Classifier().fit(*load_golf()).explain(0)


def test_golf_entropy_is_0940(golf_root):
    # 9 yes, 5 no
    assert golf_root.attrs["distribution"] == {"no": 5.0, "yes": 9.0}
    assert golf_root.attrs["entropy"] == pytest.approx(0.940, abs=BOOK)
    assert golf_root.attrs["entropy"] == pytest.approx(
        -(9 / 14 * log2(9 / 14) + 5 / 14 * log2(5 / 14)), abs=EXACT)


def test_golf_gain_of_outlook_is_0247(golf_root):
    # sunny: 2 yes 3 no; overcast: 4 yes; rain: 3 yes 2 no
    # Gain = 0.940 - (5/14 * 0.971 + 4/14 * 0 + 5/14 * 0.971) = 0.940 - 0.694 = 0.247
    hand = H(9, 5) - (5 / 14 * H(2, 3) + 4 / 14 * H(4, 0) + 5 / 14 * H(3, 2))
    outlook = row(golf_root, "outlook")
    assert outlook["gain"] == pytest.approx(0.247, abs=BOOK)
    assert outlook["gain"] == pytest.approx(hand, abs=EXACT)


def test_golf_gain_ratio_of_outlook_is_0247_over_1577(golf_root):
    # IV(outlook) = Ent(5/14, 4/14, 5/14) = 1.577; ratio = 0.247 / 1.577 = 0.156
    iv = -(5 / 14 * log2(5 / 14) + 4 / 14 * log2(4 / 14) + 5 / 14 * log2(5 / 14))
    gain = H(9, 5) - (5 / 14 * H(2, 3) + 5 / 14 * H(3, 2))
    outlook = row(golf_root, "outlook")
    assert outlook["intrinsic_value"] == pytest.approx(1.577, abs=BOOK)
    assert outlook["intrinsic_value"] == pytest.approx(iv, abs=EXACT)
    assert outlook["gain_ratio"] == pytest.approx(0.156, abs=BOOK)
    assert outlook["gain_ratio"] == pytest.approx(gain / iv, abs=EXACT)


def test_golf_multiway_gini_index_of_outlook_is_0343(golf_root):
    # 5/14 (1 - (2/5)^2 - (3/5)^2) + 4/14 (1 - 1) + 5/14 (1 - (3/5)^2 - (2/5)^2)
    #   = 5/14 * 12/25 * 2 = 24/70 = 0.343
    hand = 5 / 14 * (1 - (2 / 5) ** 2 - (3 / 5) ** 2) + 4 / 14 * (1 - (4 / 4) ** 2) \
        + 5 / 14 * (1 - (3 / 5) ** 2 - (2 / 5) ** 2)
    assert hand == pytest.approx(24 / 70, abs=EXACT)
    outlook = row(golf_root, "outlook")
    assert outlook["kind"] == "multiway"
    assert outlook["gini_index"] == pytest.approx(0.343, abs=BOOK)
    assert outlook["gini_index"] == pytest.approx(hand, abs=EXACT)


# ================================================================== CART one-vs-rest (seeds)
# The seeds (000_*.txt, eq. 4.6) list Gini_index(D, a = v) for every attribute value v of
# watermelon 2.0. Each value below is recomputed from the table, as
#   |D^{a=v}|/17 * Gini(D^{a=v}) + |D^{a!=v}|/17 * Gini(D^{a!=v}),  counts (是, 否).
# Slips in the seeds:
#   - 色泽=浅白 is printed 0.426; its own expression 5/17*(1-(1/5)^2-(4/5)^2) +
#     12/17*(1-(7/12)^2-(5/12)^2) evaluates to 0.437.
#   - "纹理=稍稀" should be 纹理=稍糊 (纹理 takes 清晰 / 稍糊 / 模糊); its 0.437 is right.
#   - "触感=硬挺" should be 触感=硬滑 (硬挺 is a value of 根蒂); its 0.494 is right.
#   - the seeds call watermelon 2.0 "表4.2"; it is table 4.1 (4.2 is the train/validation
#     split of section 4.3).
SEEDS_GINI = [
    # feature, value, hand computation, printed in the seeds (corrected where it slipped)
    ("色泽", "青绿", 6 / 17 * (1 - (3 / 6) ** 2 - (3 / 6) ** 2)
     + 11 / 17 * (1 - (5 / 11) ** 2 - (6 / 11) ** 2), 0.497),
    ("色泽", "乌黑", 6 / 17 * (1 - (4 / 6) ** 2 - (2 / 6) ** 2)
     + 11 / 17 * (1 - (4 / 11) ** 2 - (7 / 11) ** 2), 0.456),
    ("色泽", "浅白", 5 / 17 * (1 - (1 / 5) ** 2 - (4 / 5) ** 2)
     + 12 / 17 * (1 - (7 / 12) ** 2 - (5 / 12) ** 2), 0.437),  # seeds: 0.426 (slip)
    ("根蒂", "蜷缩", 8 / 17 * (1 - (5 / 8) ** 2 - (3 / 8) ** 2)
     + 9 / 17 * (1 - (3 / 9) ** 2 - (6 / 9) ** 2), 0.456),
    ("根蒂", "稍蜷", 7 / 17 * (1 - (3 / 7) ** 2 - (4 / 7) ** 2)
     + 10 / 17 * (1 - (5 / 10) ** 2 - (5 / 10) ** 2), 0.496),
    ("根蒂", "硬挺", 2 / 17 * (1 - (0 / 2) ** 2 - (2 / 2) ** 2)
     + 15 / 17 * (1 - (8 / 15) ** 2 - (7 / 15) ** 2), 0.439),
    ("敲声", "浊响", 10 / 17 * (1 - (6 / 10) ** 2 - (4 / 10) ** 2)
     + 7 / 17 * (1 - (2 / 7) ** 2 - (5 / 7) ** 2), 0.450),
    ("敲声", "沉闷", 5 / 17 * (1 - (2 / 5) ** 2 - (3 / 5) ** 2)
     + 12 / 17 * (1 - (6 / 12) ** 2 - (6 / 12) ** 2), 0.494),
    ("敲声", "清脆", 2 / 17 * (1 - (0 / 2) ** 2 - (2 / 2) ** 2)
     + 15 / 17 * (1 - (8 / 15) ** 2 - (7 / 15) ** 2), 0.439),
    ("纹理", "清晰", 9 / 17 * (1 - (7 / 9) ** 2 - (2 / 9) ** 2)
     + 8 / 17 * (1 - (1 / 8) ** 2 - (7 / 8) ** 2), 0.286),
    ("纹理", "稍糊", 5 / 17 * (1 - (1 / 5) ** 2 - (4 / 5) ** 2)
     + 12 / 17 * (1 - (7 / 12) ** 2 - (5 / 12) ** 2), 0.437),  # seeds: "稍稀" (slip)
    ("纹理", "模糊", 3 / 17 * (1 - (0 / 3) ** 2 - (3 / 3) ** 2)
     + 14 / 17 * (1 - (8 / 14) ** 2 - (6 / 14) ** 2), 0.403),
    ("脐部", "凹陷", 7 / 17 * (1 - (5 / 7) ** 2 - (2 / 7) ** 2)
     + 10 / 17 * (1 - (3 / 10) ** 2 - (7 / 10) ** 2), 0.415),
    ("脐部", "稍凹", 6 / 17 * (1 - (3 / 6) ** 2 - (3 / 6) ** 2)
     + 11 / 17 * (1 - (5 / 11) ** 2 - (6 / 11) ** 2), 0.497),
    ("脐部", "平坦", 4 / 17 * (1 - (0 / 4) ** 2 - (4 / 4) ** 2)
     + 13 / 17 * (1 - (8 / 13) ** 2 - (5 / 13) ** 2), 0.362),
    ("触感", "硬滑", 12 / 17 * (1 - (6 / 12) ** 2 - (6 / 12) ** 2)
     + 5 / 17 * (1 - (2 / 5) ** 2 - (3 / 5) ** 2), 0.494),  # seeds: "硬挺" (slip)
    ("触感", "软粘", 5 / 17 * (1 - (2 / 5) ** 2 - (3 / 5) ** 2)
     + 12 / 17 * (1 - (6 / 12) ** 2 - (6 / 12) ** 2), 0.494),
]


@pytest.fixture(scope="module")
def cart_root(melon2):
    return CARTClassifier().fit(*melon2).explain(0)


@pytest.mark.parametrize("feature, value, hand, printed", SEEDS_GINI,
                         ids=[f"{f}={v}" for f, v, _, _ in SEEDS_GINI])
def test_cart_one_vs_rest_gini_index_table_of_the_seeds(cart_root, feature, value, hand,
                                                        printed):
    assert hand == pytest.approx(printed, abs=BOOK)
    r = row(cart_root, feature, category=value)
    assert r["kind"] == "categorical_binary"
    assert r["gini_index"] == pytest.approx(hand, abs=EXACT)


def test_cart_seeds_slip_色泽_浅白_is_0437_not_0426(cart_root):
    gini = row(cart_root, "色泽", category="浅白")["gini_index"]
    # 5/17 * 0.32 + 12/17 * 70/144 = 0.0941 + 0.3431
    assert gini == pytest.approx(5 / 17 * 0.32 + 12 / 17 * 70 / 144, abs=EXACT)
    assert gini != pytest.approx(0.426, abs=BOOK)


def test_cart_root_one_vs_rest_table_has_one_row_per_value_and_纹理_清晰_wins(cart_root):
    assert len(cart_root) == len(SEEDS_GINI) == 17
    assert list(zip(cart_root["feature"], cart_root["category"])) == [
        (f, v) for f, v, _, _ in SEEDS_GINI]
    chosen = cart_root[cart_root["chosen"]]
    assert list(zip(chosen["feature"], chosen["category"])) == [("纹理", "清晰")]
    assert chosen["gini_index"].iloc[0] == pytest.approx(0.286, abs=BOOK)
    assert cart_root["gini_index"].min() == chosen["gini_index"].iloc[0]


# ================================================================== text export
def test_export_text_aligns_leaf_distributions_by_display_width(id3_melon2):
    assert display_width("纹理 = 清晰") == 11           # 4 + 3 + 4
    assert display_width("|   根蒂 = 蜷缩: 是") == 19   # 4 + 4 + 3 + 4 + 2 + 2
    lines = export_text(id3_melon2).splitlines()
    leaf = re.compile(r"^(?P<text>.*: [是否])(?P<pad> +)(?P<dist>[\[(].*)$")
    leaves = [m for m in map(leaf.match, lines) if m]
    assert len(leaves) == 9
    # the widest branch text is a depth-3 leaf, "|   |   |   触感 = 硬滑: 是":
    # 12 + 4 + 3 + 4 + 2 + 2 = 27 columns; the distributions start 2 columns after it
    assert max(display_width(m["text"]) for m in leaves) == 27
    starts = {display_width(m["text"] + m["pad"]) for m in leaves}
    assert starts == {29}
    # the padding really depends on the CJK width: 纹理 = 模糊: 否 is 15 columns, 11 chars
    mohu = next(m for m in leaves if m["text"] == "纹理 = 模糊: 否")
    assert len(mohu["pad"]) == 29 - 15
    assert mohu["dist"] == "[否: 3, 是: 0]"
    empty = next(m for m in leaves if m["text"].endswith("色泽 = 浅白: 是"))
    assert empty["dist"].startswith("(")


# ================================================================== tied majority
def test_tied_leaf_predicts_the_class_first_seen_in_training_labels(melon2):
    # With 色泽 as the only attribute, the 青绿 leaf holds {1,4,6} 是 and {10,13,17} 否:
    # a 3 : 3 tie. The book's convention: the class seen first in the training labels,
    # 是 (row 1), although classes_ sorts 否 first.
    X, y = melon2
    clf = ID3Classifier().fit(X[["色泽"]], y)
    assert clf.classes_.tolist() == ["否", "是"]
    probe = X[["色泽"]].loc[[1, 2, 5]]          # 青绿, 乌黑 (4:2), 浅白 (1:4)
    assert clf.predict(probe).tolist() == ["是", "是", "否"]
    assert clf.predict_proba(probe.iloc[:1]).tolist() == [[0.5, 0.5]]
    leaf = export_dict(clf)["children"][0]
    assert leaf["condition"] == "= 青绿"
    assert leaf["node"]["class"] == "是"
    # Reorder the rows so that a bad melon comes first: the same tie now goes to 否.
    order = [9] + [i for i in X.index if i != 9]
    clf = ID3Classifier().fit(X.loc[order, ["色泽"]], y.loc[order])
    assert clf.predict(probe).tolist() == ["否", "是", "否"]
