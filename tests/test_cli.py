"""The ``quercus`` command line: every command in-process through ``main([...])`` (which
returns the exit status), the installed console script through a subprocess, the readers,
the exit statuses, and the examples of docs/cli.md."""

import doctest
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import ID3Classifier, export_dict, export_text
from quercus.cli import main
from quercus.cli.commands import find_node
from quercus.cli.io import DataError, read_table, sniff_delimiter
from quercus.cli.options import option_name, parameter_names
from quercus.cli.progress import Progress
from quercus.cli.table import format_table
from quercus.datasets import load_watermelon
from quercus.export.text import display_width

DATA = Path(__file__).parent / "data"
DOCS = Path(__file__).parent.parent / "docs" / "cli.md"
BUNDLED = Path(quercus.__file__).parent / "datasets" / "data"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Data files made from the bundled watermelon tables, in the formats the CLI reads."""
    d = tmp_path_factory.mktemp("cli")
    text = (BUNDLED / "watermelon_2_0_alpha.csv").read_text(encoding="utf-8")
    # GBK bytes, Chinese headers, blank cells (2.0alpha's missing values), the 编号 column.
    (d / "melons_gbk.csv").write_bytes(text.encode("gbk"))
    (d / "melons_bom.csv").write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    (d / "melons.tsv").write_text(text.replace(",", "\t"), encoding="utf-8")
    X, y = load_watermelon("3.0")
    frame = X.assign(好瓜=y).reset_index()
    frame.to_excel(d / "melons3.xlsx", index=False)
    frame.to_parquet(d / "melons3.parquet")
    return d


def run(capsys, *argv):
    """(exit status, stdout, stderr) of ``quercus argv...`` run in this process."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def user_error(capsys, *argv):
    """The one-line stderr of a command that must fail with status 2."""
    status, _, err = run(capsys, *argv)
    assert status == 2, err
    assert "Traceback" not in err
    lines = [ln for ln in err.strip().splitlines() if not ln.startswith("note: ")]
    assert len(lines) == 1, err  # one line (notes written before it aside)
    return lines[0]


# ---------------------------------------------------------------- the command itself
def test_bare_quercus_prints_the_help_and_succeeds(capsys):
    status, out, _ = run(capsys)
    assert status == 0
    for command in ("fit", "predict", "show", "explain", "evaluate", "demo", "warmup"):
        assert re.search(rf"^\s+{command}\s", out, re.M), command


def test_version(capsys):
    status, out, _ = run(capsys, "--version")
    assert status == 0 and out.strip() == f"quercus {quercus.__version__}"


def test_installed_console_script_runs(files, tmp_path):
    script = shutil.which("quercus", path=os.path.dirname(sys.executable)) or shutil.which(
        "quercus")
    if script is None:
        pytest.skip("the quercus console script is not installed")
    proc = subprocess.run([script, "--version"], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip() == f"quercus {quercus.__version__}"
    model = tmp_path / "m.json"
    proc = subprocess.run([script, "fit", str(files / "melons_gbk.csv"), "-o", str(model)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "17 rows" in proc.stdout and model.exists()
    proc = subprocess.run([script, "fit", str(files / "melons_gbk.csv"), "--max-depth", "0"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "max_depth" in proc.stderr


def test_module_entry_point_runs():
    proc = subprocess.run([sys.executable, "-m", "quercus", "--help"], capture_output=True,
                          text=True, check=True)
    assert "demo" in proc.stdout and "warmup" in proc.stdout


def test_a_reader_that_goes_away_stops_the_demo_quietly():
    # No one reads the pipe, as when `quercus demo | head` has printed its lines: the
    # demo's output fails to be written, and the command ends without a traceback.
    proc = subprocess.Popen([sys.executable, "-m", "quercus", "demo"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=600) == 141
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def test_unknown_command_is_a_usage_error(capsys):
    err = user_error(capsys, "grow-a-forest")
    assert "invalid choice" in err


def test_unknown_option_names_the_command(capsys):
    err = user_error(capsys, "fit", "x.csv", "--bogus", "1")
    assert err.startswith("quercus fit: error: unrecognized arguments: --bogus 1")


# ---------------------------------------------------------------- demo
def test_demo_prints_split_table_three_trees_and_pruning(capsys):
    status, out, _ = run(capsys, "demo")
    assert status == 0
    assert "Ent(D) = 0.998" in out
    for header in ("ID3 (", "C4.5 (", "CART ("):
        assert header in out
    assert "* 纹理 = {清晰, 稍糊, 模糊}" in out and "0.381" in out  # marked as chosen
    assert "纹理 != 清晰" in out  # the CART tree's binary split
    # The book's section 4.3: 42.9% unpruned, 71.4% after reduced-error pruning.
    assert "validation accuracy 42.9%" in out and "validation accuracy 71.4%" in out


def test_demo_writes_the_bundled_data(capsys, tmp_path):
    status, out, _ = run(capsys, "demo", "--write-data", tmp_path / "d")
    assert status == 0
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == sorted(
        p.name for p in BUNDLED.glob("*.csv"))
    assert len(out.splitlines()) == 4


# ---------------------------------------------------------------- readers
def test_gbk_csv_is_detected_with_blank_cells_missing(files):
    t = read_table(files / "melons_gbk.csv")
    assert t.encoding == "gb18030" and t.delimiter == ","
    assert list(t.frame.columns)[:2] == ["编号", "色泽"]
    assert t.frame.drop(columns="编号").isna().sum().sum() == 13  # table 4.4's blanks


@pytest.mark.parametrize("text", ["编号\n1\n", "色泽,好瓜\n青绿,是\n"])
def test_a_few_words_of_gbk_are_not_taken_for_big5_or_utf16(text):
    from quercus.cli.io import decode_bytes
    assert decode_bytes(text.encode("gbk"), "x.csv") == (text, "gb18030")


def test_a_western_file_is_not_taken_for_gbk():
    from quercus.cli.io import decode_bytes
    text = "name,city\nJosé,Genève\nFrançois,São Paulo\n"
    assert decode_bytes(text.encode("cp1252"), "x.csv")[0] == text


def test_utf8_bom_and_tab_files(files):
    bom = read_table(files / "melons_bom.csv")
    assert bom.encoding == "utf-8-sig" and bom.frame.columns[0] == "编号"
    tsv = read_table(files / "melons.tsv")
    assert tsv.delimiter == "\t" and tsv.frame.shape == (17, 8)


def test_the_delimiter_is_sniffed():
    assert sniff_delimiter("a;b;c\n1;2,5;3\n") == ";"
    assert sniff_delimiter('a|b\n"x|y"|2\n') == "|"
    assert sniff_delimiter("a\tb\n1\t2\n") == "\t"
    assert sniff_delimiter("a,b\n1,2\n") == ","


def test_given_encoding_and_delimiter_win(tmp_path):
    p = tmp_path / "l1.txt"
    p.write_bytes("name;city\nJosé;Genève\n".encode("latin-1"))
    t = read_table(p, encoding="latin-1", delimiter=";")
    assert t.frame.loc[0, "city"] == "Genève"
    with pytest.raises(DataError, match=r"l1\.txt: not valid utf-8 at line 2"):
        read_table(p, encoding="utf-8")


def test_arff_nominal_attributes_are_categorical_and_question_marks_missing():
    t = read_table(DATA / "soybean_small.arff")
    df = t.frame
    assert t.format == "arff" and df.shape == (24, 7)
    assert isinstance(df["date"].dtype, pd.CategoricalDtype)
    assert list(df["date"].cat.categories)[:3] == ["april", "may", "june"]  # declared order
    assert df["seed-size"].dtype == float
    data = (DATA / "soybean_small.arff").read_text().split("@data", 1)[1]
    assert df.isna().sum().sum() == data.count("?") > 0


def test_arff_with_missing_values_fits(capsys):
    status, out, err = run(capsys, "fit", DATA / "soybean_small.arff")
    assert status == 0, err
    assert "24 rows, 6 attributes (5 categorical, 1 numeric), target class (4 classes)" in out
    assert "training accuracy" in out


def test_xlsx_fits(capsys, files):
    status, out, err = run(capsys, "fit", files / "melons3.xlsx")
    assert status == 0, err
    assert "17 rows, 8 attributes (6 categorical, 2 numeric), target 好瓜" in out
    assert "ignored: 编号" in out


def test_parquet_numeric_target_fits_a_regression_tree(capsys, files):
    status, out, err = run(capsys, "fit", files / "melons3.parquet", "--target", "含糖率",
                           "--max-depth", "2")
    assert status == 0, err
    assert "CARTRegressor (cart-regressor)" in out and "training R²" in out


@pytest.mark.parametrize("module, suffix", [("openpyxl", "melons3.xlsx"),
                                            ("pyarrow", "melons3.parquet"),
                                            ("arff", None)])
def test_a_missing_reader_names_the_cli_extra(capsys, files, monkeypatch, module, suffix):
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    path = files / suffix if suffix else DATA / "soybean_small.arff"
    err = user_error(capsys, "fit", path)
    assert 'pip install "quercus[cli]"' in err and str(path) in err


# ---------------------------------------------------------------- fit
def test_gbk_csv_fits_predicts_and_explains_with_no_flag(capsys, files, tmp_path):
    data, model = files / "melons_gbk.csv", tmp_path / "melons.json"
    status, out, err = run(capsys, "fit", data, "-o", model)
    assert status == 0, err
    assert ("17 rows, 6 attributes (6 categorical, 0 numeric), target 好瓜 (2 classes)"
            in out)
    assert "ignored: 编号" in out  # a column numbering the rows is no attribute
    X, y = load_watermelon("2.0alpha")
    expected = quercus.C45Classifier().fit(X, y)
    assert export_text(quercus.load(model)) == export_text(expected)

    status, out, err = run(capsys, "predict", model, data)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == "prediction" and lines[1:] == expected.predict(X).tolist()
    assert "ignored: 编号, 好瓜" in err  # the extra columns: a note, not an error

    status, out, err = run(capsys, "explain", data)
    assert status == 0, err
    assert "Ent(D) = 0.998" in out and "rho" in out  # rho: the known fraction
    assert out.splitlines()[-3].startswith("chosen: 纹理 = {清晰, 稍糊, 模糊}: highest gain "
                                           "ratio")


def test_parameters_reach_the_estimator(capsys, files, tmp_path):
    model = tmp_path / "m.json"
    status, _, err = run(capsys, "fit", files / "melons_gbk.csv", "--algorithm", "id3",
                         "--max-depth", "1", "--pruning", "none", "--strict-improvement",
                         "false", "--param", "min_samples_leaf=2", "-o", model)
    assert status == 0, err
    params = json.loads(model.read_text(encoding="utf-8"))["params"]
    assert params["max_depth"] == 1 and params["pruning"] is None
    assert params["strict_improvement"] is False and params["min_samples_leaf"] == 2
    assert quercus.load(model).get_depth() == 1


def test_reduced_error_pruning_from_the_command_line(capsys, files, tmp_path):
    status, out, err = run(capsys, "fit", files / "melons_gbk.csv", "--algorithm", "id3",
                           "--pruning", "reduced-error", "--random-state", "0",
                           "-o", tmp_path / "m.json")
    assert status == 0, err
    assert json.loads((tmp_path / "m.json").read_text("utf-8"))["params"]["pruning"] == \
        "reduced_error"


def test_every_estimator_parameter_has_an_option(capsys):
    status, out, _ = run(capsys, "fit", "--help")
    assert status == 0
    names = set(quercus.DecisionTreeClassifier().get_params()) | set(
        quercus.DecisionTreeRegressor().get_params())
    assert names == set(parameter_names())
    for name in names:
        assert re.search(rf"{re.escape(option_name(name))}\b", out), name


def test_categorical_declares_a_numeric_column(capsys, tmp_path):
    p = tmp_path / "codes.csv"
    p.write_text("grade,size,ok\n1,3.5,yes\n2,1.0,no\n1,2.5,yes\n3,4.0,no\n2,2.0,no\n"
                 "1,3.0,yes\n", encoding="utf-8")
    status, out, err = run(capsys, "fit", p, "--categorical", "grade", "--algorithm", "id3",
                           "-o", tmp_path / "m.json")
    assert status == 0, err
    assert "(1 categorical, 1 numeric)" in out
    est = quercus.load(tmp_path / "m.json")
    assert est.schema_.categories[0].tolist() == ["1", "2", "3"]
    status, out, err = run(capsys, "predict", tmp_path / "m.json", p)
    assert status == 0, err


def test_id_and_ignore_leave_columns_out(capsys, files):
    status, out, _ = run(capsys, "fit", files / "melons_gbk.csv", "--ignore", "编号,触感")
    assert status == 0 and "5 attributes" in out and "ignored: 编号, 触感" in out
    status, out, _ = run(capsys, "fit", files / "melons_gbk.csv", "--no-auto-id")
    assert status == 0 and "7 attributes" in out


def test_rows_without_a_target_are_left_out_with_a_note(capsys, tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("a,b,y\nx,1,p\ny,2,\nx,3,q\ny,4,p\nx,5,q\n", encoding="utf-8")
    status, out, err = run(capsys, "fit", p)
    assert status == 0 and "4 rows" in out
    assert "1 row(s) without a value of 'y' left out (data rows 2)" in err
    status, _, err = run(capsys, "fit", p, "-q")
    assert status == 0 and err == ""


# ---------------------------------------------------------------- predict
@pytest.fixture(scope="module")
def model3(files, tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "melons3.json"
    assert main(["fit", str(files / "melons3.xlsx"), "-o", str(path), "-q"]) == 0
    return path


def test_predict_matches_columns_by_name_with_ids_and_probabilities(capsys, files, model3,
                                                                     tmp_path):
    df = pd.read_excel(files / "melons3.xlsx")
    shuffled = tmp_path / "shuffled.csv"
    df[list(reversed(df.columns))].to_csv(shuffled, index=False)
    out_file = tmp_path / "pred.csv"
    status, _, err = run(capsys, "predict", model3, shuffled, "--id", "编号", "--proba",
                         "-o", out_file)
    assert status == 0, err
    pred = pd.read_csv(out_file)
    assert list(pred.columns) == ["编号", "prediction", "P(否)", "P(是)"]
    est = quercus.load(model3)
    X = df.drop(columns=["编号", "好瓜"])
    assert pred["prediction"].tolist() == est.predict(X).tolist()
    assert np.allclose(pred[["P(否)", "P(是)"]].to_numpy(), est.predict_proba(X), atol=1e-6)
    assert pred["编号"].tolist() == list(range(1, 18))


def test_predict_names_missing_columns(capsys, files, model3, tmp_path):
    p = tmp_path / "few.csv"
    pd.read_excel(files / "melons3.xlsx").drop(columns=["密度", "纹理"]).to_csv(p, index=False)
    err = user_error(capsys, "predict", model3, p)
    assert f"{p}: missing column(s) the model needs: 纹理, 密度" in err


def test_predict_names_the_row_of_a_bad_value(capsys, files, model3, tmp_path):
    df = pd.read_excel(files / "melons3.xlsx")
    df["密度"] = df["密度"].astype(object)
    df.loc[4, "密度"] = "heavy"
    p = tmp_path / "bad_value.csv"
    df.to_csv(p, index=False)
    err = user_error(capsys, "predict", model3, p)
    assert "'密度'" in err and "'heavy' at data row 5" in err and str(p) in err


def test_proba_of_a_regressor_is_a_usage_error(capsys, files, tmp_path):
    m = tmp_path / "reg.json"
    assert main(["fit", str(files / "melons3.parquet"), "--target", "含糖率", "-q", "-o",
                 str(m)]) == 0
    capsys.readouterr()
    assert "probabilities need a classifier" in user_error(capsys, "predict", m,
                                                           files / "melons3.parquet",
                                                           "--proba")


# ---------------------------------------------------------------- show
def test_show_text_and_json(capsys, model3, tmp_path):
    est = quercus.load(model3)
    status, out, _ = run(capsys, "show", model3)
    assert status == 0 and out == export_text(est) + "\n"
    status, out, _ = run(capsys, "show", model3, "--format", "json")
    assert status == 0 and json.loads(out) == json.loads(json.dumps(export_dict(est)))
    status, out, _ = run(capsys, "show", model3, "-f", "text", "-o", tmp_path / "t.txt")
    assert status == 0 and out == ""
    assert (tmp_path / "t.txt").read_text("utf-8") == export_text(est) + "\n"


_EXPORTERS = {"rules": "export_rules", "dot": "export_graphviz", "html": "export_html",
              "svg": "plot_tree", "png": "plot_tree"}


@pytest.mark.parametrize("fmt", sorted(_EXPORTERS))
def test_show_other_formats_once_their_exporter_exists(capsys, model3, tmp_path, fmt):
    import quercus.export
    if getattr(quercus.export, _EXPORTERS[fmt], None) is None:
        pytest.skip(f"quercus.export.{_EXPORTERS[fmt]} is not written yet")
    if fmt in ("png", "svg"):
        pytest.importorskip("matplotlib")
    out_file = tmp_path / f"tree.{fmt}"
    status, _, err = run(capsys, "show", model3, "--format", fmt, "-o", out_file)
    assert status == 0, err
    data = out_file.read_bytes()
    assert data.startswith(b"\x89PNG") if fmt == "png" else len(data) > 20
    if fmt in ("rules", "dot", "html"):
        assert "纹理" in data.decode("utf-8")


@pytest.mark.parametrize("fmt", sorted(_EXPORTERS))
def test_a_format_whose_exporter_is_missing_is_a_usage_error(capsys, model3, monkeypatch, fmt):
    import quercus.export
    monkeypatch.delattr(quercus.export, _EXPORTERS[fmt], raising=False)
    err = user_error(capsys, "show", model3, "--format", fmt, "-o", "unused")
    assert f"format {fmt} is not available" in err


# ---------------------------------------------------------------- explain
def test_node_paths_and_ids():
    clf = ID3Classifier().fit(*load_watermelon("2.0"))
    t = clf.tree_
    kids = t.children(0)
    assert find_node(clf, "纹理=清晰") == kids[0]
    assert find_node(clf, "纹理 = 稍糊") == kids[1]
    second = t.children(kids[0])
    assert find_node(clf, "纹理=清晰/根蒂=稍蜷") == second[1] == find_node(clf, str(second[1]))
    reg = quercus.CARTRegressor(max_depth=1).fit(*(lambda X: (X[["密度"]], X["含糖率"]))(
        load_watermelon("3.0")[0]))
    assert find_node(reg, "密度<=") == reg.tree_.children(0)[0]
    assert find_node(reg, "密度 > 0.6815") == reg.tree_.children(0)[1]


def test_explain_a_node_by_path_and_a_saved_model(capsys, files, tmp_path):
    data = files / "melons_gbk.csv"
    status, out, err = run(capsys, "explain", data, "--algorithm", "id3", "--node",
                           "纹理=清晰")
    assert status == 0, err
    assert out.startswith("node 1: 纹理=清晰, ")
    assert re.search(r"^\* 根蒂 = ", out, re.M)  # the chosen split, marked
    assert "chosen: 根蒂 = {蜷缩, 稍蜷, 硬挺}: highest information gain" in out
    m = tmp_path / "id3.json"
    assert main(["fit", str(data), "--algorithm", "id3", "-o", str(m), "-q"]) == 0
    capsys.readouterr()
    status, out2, err = run(capsys, "explain", m, "--data", data, "--node", "纹理=清晰")
    assert status == 0, err
    assert out2 == out  # the saved model, explained on its data, says the same


def test_explain_a_bad_node_lists_the_branches(capsys, files):
    err = user_error(capsys, "explain", files / "melons_gbk.csv", "--algorithm", "id3",
                     "--node", "纹理=透明")
    assert "matches no branch of node 0" in err and "纹理 = 清晰, 纹理 = 稍糊" in err
    err = user_error(capsys, "explain", files / "melons_gbk.csv", "--node", "999")
    assert "--node 999: the tree has nodes 0 to" in err


# ---------------------------------------------------------------- evaluate
def test_evaluate_cross_validation_side_by_side(capsys, tmp_path):
    p = tmp_path / "golf.csv"
    shutil.copy(BUNDLED / "golf.csv", p)
    status, out, err = run(capsys, "evaluate", p, "--cv", "3", "--algorithm", "id3,cart")
    assert status == 0, err
    assert "=== ID3Classifier (id3): 3-fold stratified cross-validation, 14 rows" in out
    assert "=== side by side ===" in out
    # The confusion matrix's rows add up to the class counts (9 yes, 5 no).
    m = re.search(r"actual\s+no\s+yes\n-+.*\nno\s+(\d+)\s+(\d+)\nyes\s+(\d+)\s+(\d+)", out)
    assert m and [int(m[1]) + int(m[2]), int(m[3]) + int(m[4])] == [5, 9]
    for word in ("precision", "recall", "f1", "weighted avg", "kappa", "tree (fitted on all"):
        assert word in out


def test_evaluate_says_when_classes_are_too_small_for_the_folds(capsys, tmp_path):
    p = tmp_path / "golf.csv"
    shutil.copy(BUNDLED / "golf.csv", p)
    status, out, err = run(capsys, "evaluate", p, "--algorithm", "cart")
    assert status == 0
    assert "the largest class has 9 rows: 9 stratified folds instead of 10" in err
    assert "9-fold stratified cross-validation" in out


def test_evaluate_on_a_test_file_and_a_regression(capsys, files):
    status, out, err = run(capsys, "evaluate", files / "melons3.xlsx", "--test",
                           files / "melons3.parquet", "--algorithm", "c45")
    assert status == 0, err
    assert "accuracy   0.941  (16 of 17)" in out  # the training rows themselves
    status, out, err = run(capsys, "evaluate", files / "melons3.parquet", "--target",
                           "含糖率", "--cv", "4")
    assert status == 0, err
    assert "4-fold cross-validation" in out and "RMSE" in out and "MAE" in out


# ---------------------------------------------------------------- exit statuses
@pytest.mark.parametrize("argv, message", [
    # bad files
    (["fit", "{d}/nothing.csv"], "{d}/nothing.csv: no such file"),
    (["fit", "{d}/melons_gbk.csv", "--encoding", "utf-8"], "not valid utf-8 at line 1"),
    (["fit", "{d}/ragged.csv"], "ragged.csv: Error tokenizing data"),
    (["fit", "{d}/broken.arff"], "broken.arff:"),
    (["fit", "{d}/melons.xls"], "old Excel format"),
    (["predict", "{d}/melons_gbk.csv", "{d}/melons_gbk.csv"], "Invalid model file"),
    # bad columns
    (["fit", "{d}/melons_gbk.csv", "--target", "甜度"], "no column '甜度' (--target)"),
    (["fit", "{d}/melons_gbk.csv", "--categorical", "甜度"], "no column '甜度' (--categorical)"),
    (["fit", "{d}/melons_gbk.csv", "--target", "色泽", "--ignore", "色泽"],
     "both the target and ignored"),
    (["fit", "{d}/dup.csv"], "column 'a' appears twice"),
    # bad parameters
    (["fit", "{d}/melons_gbk.csv", "--max-depth", "0"],
     "--max-depth 0: The 'max_depth' parameter of C45Classifier must be an int in the range"),
    (["fit", "{d}/melons_gbk.csv", "--pruning", "bogus"], "'pruning' parameter"),
    (["fit", "{d}/melons_gbk.csv", "--class-weight", "是=x"], "weight of '是' is 'x'"),
    (["fit", "{d}/melons_gbk.csv", "--class-weight", "甜=1"], "'甜' is not a class"),
    (["fit", "{d}/melons_gbk.csv", "--algorithm", "c50"], "--algorithm 'c50': choose from"),
    (["fit", "{d}/melons_gbk.csv", "--param", "max_leaves=3"], "has no parameter 'max_leaves'"),
    (["evaluate", "{d}/melons_gbk.csv", "--cv", "1"], "--cv 1: needs at least 2 folds"),
    (["fit", "{d}/melons_gbk.csv", "--max-features", "9"], "'max_features' parameter"),
])
def test_user_errors_exit_2_with_one_line_naming_the_culprit(capsys, files, argv, message):
    (files / "ragged.csv").write_text("a,b\n1,2\n3,4,5\n", encoding="utf-8")
    (files / "broken.arff").write_text("@relation x\n@attribute a {p,q}\n@data\nz\n")
    (files / "melons.xls").write_bytes(b"not excel")
    (files / "dup.csv").write_text("a,b,a\n1,2,3\n", encoding="utf-8")
    err = user_error(capsys, *[a.format(d=files) for a in argv])
    assert message.format(d=files) in err
    assert err.startswith(f"quercus {argv[0]}: error: ")


def test_an_unexpected_error_exits_1_without_a_traceback(capsys, monkeypatch):
    from quercus.cli import commands

    def boom(args, con):
        raise RuntimeError("a bug")
    monkeypatch.setattr(commands, "cmd_demo", boom)
    status, _, err = run(capsys, "demo")
    assert status == 1 and "Traceback" not in err
    assert "unexpected error: RuntimeError: a bug" in err
    status, _, err = run(capsys, "demo", "--verbose")
    assert status == 1 and "Traceback" in err  # --verbose shows it


# ---------------------------------------------------------------- table, progress
def test_format_table_aligns_wide_characters():
    t = pd.DataFrame({"split": ["色泽 = 青绿", "x", "纹理"], "gain": [0.1, 12.25, np.nan],
                      "ok": [True, False, True]})
    lines = format_table(t, mark=[False, True, False]).splitlines()
    assert lines[3].startswith("* x")
    ends = {display_width(ln[:ln.index(num) + len(num)]) for ln, num in
            zip(lines[2:4], ["0.100", "12.250"])}
    assert len(ends) == 1  # the numbers end in the same terminal column
    assert lines[2].endswith("yes") and lines[3].endswith("no")
    assert lines[4].split()[-1] == "yes"  # the missing gain is an empty cell


def test_progress_only_on_a_terminal():
    import io

    class Tty(io.StringIO):
        def isatty(self):
            return True
    tty, pipe = Tty(), io.StringIO()
    for stream in (tty, pipe):
        with Progress("fitting C45Classifier", total=3, stream=stream) as p:
            p.step()
    assert "fitting C45Classifier 1/3" in tty.getvalue()
    assert tty.getvalue().endswith("\r")  # the line is cleared at the end
    assert pipe.getvalue() == ""
    quiet = Tty()
    with Progress("x", stream=quiet, enabled=False):
        pass
    assert quiet.getvalue() == ""


# ---------------------------------------------------------------- docs/cli.md
def _documented_sessions():
    """(command, expected stdout) pairs of docs/cli.md's ```console blocks."""
    text = DOCS.read_text(encoding="utf-8")
    pairs = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, output = chunk.partition("\n")
            pairs.append((command, output))
    return pairs


def test_the_documented_examples_print_what_the_docs_show(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(DATA / "soybean_small.arff", tmp_path / "soybean_small.arff")
    sessions = _documented_sessions()
    assert len(sessions) >= 10
    checker = doctest.OutputChecker()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    for command, want in sessions:
        argv = shlex.split(command)
        assert argv[0] == "quercus", command
        expected_status = 2 if "error:" in want else 0
        status = main(argv[1:])
        out, err = capsys.readouterr()
        got = out + (err if expected_status else "")
        assert status == expected_status, (command, err)
        assert checker.check_output(want, got, flags), (
            f"\n$ {command}\n--- documented ---\n{want}--- printed ---\n{got}")


# ---------------------------------------------------------------- README.md
README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_readme_command_line_examples_run_as_written(capsys, tmp_path, monkeypatch):
    """Every ``$ quercus`` line of the README's console block runs (comments after ``#``
    are the README's notes) and prints what the README shows under it, where it shows
    something (``...`` stands for a time)."""
    monkeypatch.chdir(tmp_path)
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```console\n(.*?)```", text, re.S)
    assert blocks, "README.md has no console block"
    checker = doctest.OutputChecker()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    ran = 0
    for block in blocks:
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, want = chunk.partition("\n")
            argv = shlex.split(command, comments=True)
            assert argv[0] == "quercus", command
            status = main(argv[1:])
            out, err = capsys.readouterr()
            assert status == 0, (command, err)
            if want.strip():
                assert checker.check_output(want, out, flags), (
                    f"\n$ {command}\n--- README ---\n{want}--- printed ---\n{out}")
            ran += 1
    assert ran >= 5
