"""Make the Weka LMT fixtures of tests/test_lmt.py (Weka is not needed to run the tests).

Usage, from the repository root, with Debian's weka package installed::

    python tests/data/lmt/make_fixtures.py

For each ARFF file below (copied here from Debian's weka examples; glass without its empty
class 'vehic wind non-float', which quercus, fitting the classes present, would not have),
Weka's LMT with its defaults is trained on all rows through benchmarks/LMTFolds.java (the
whole file as train and test) and ``<name>.weka.json`` records the Weka version, the tree
size and leaves, Weka's printed model and its class probabilities of every row.
"""

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
EXAMPLES = Path("/usr/share/doc/weka/examples")
JAR = Path("/usr/share/java/weka.jar")
SETS = ["iris", "glass6", "breast-cancer"]


def copy_arff():
    shutil.copy(EXAMPLES / "iris.arff", HERE / "iris.arff")
    shutil.copy(EXAMPLES / "breast-cancer.arff", HERE / "breast-cancer.arff")
    text = (EXAMPLES / "glass.arff").read_text()
    (HERE / "glass6.arff").write_text(text.replace(" 'vehic wind non-float',", ""))


def main():
    copy_arff()
    version = subprocess.run(["java", "-cp", str(JAR), "weka.core.Version"],
                             capture_output=True, text=True).stdout.splitlines()[0]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["javac", "-nowarn", "-cp", str(JAR), "-d", tmp,
                        str(REPO / "benchmarks" / "LMTFolds.java")], check=True)
        for name in SETS:
            arff = HERE / f"{name}.arff"
            out = Path(tmp) / f"{name}.tsv"
            subprocess.run(["java", "-cp", f"{JAR}:{tmp}", "LMTFolds", "", "1", str(out),
                            str(arff), str(arff)], check=True)
            f, correct, n, leaves, size, _, _, pred, prob = out.read_text().strip().split("\t")
            model = Path(str(out) + ".1.txt").read_text()
            fixture = {"weka_version": version, "options": "", "arff": arff.name,
                       "correct": int(correct), "n": int(n), "leaves": int(leaves),
                       "size": int(size), "model": model,
                       "proba": [[float(v) for v in row.split(",")]
                                 for row in prob.split(";")]}
            (HERE / f"{name}.weka.json").write_text(json.dumps(fixture, indent=1) + "\n")
            print(name, leaves, size, correct, n)


if __name__ == "__main__":
    main()
