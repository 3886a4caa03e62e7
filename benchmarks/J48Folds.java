// Weka J48 on given train/test ARFF pairs, timed in one JVM after a warm-up.
//
// Compiled at run time by benchmarks/pruning_peers.py (javac -cp weka.jar) into the
// gitignored benchmarks/data-cache/; needs only Weka's public API (3.6 or later).
//
// Usage: java -cp weka.jar:DIR J48Folds "OPTIONS" REPS OUT.tsv TRAIN1 TEST1 [TRAIN2 TEST2 ...]
//   OPTIONS  J48's options as on its command line, e.g. "-C 0.25 -M 2"
//   REPS     timed builds per fold; the median is reported
// Writes OUT.tsv: one line per fold with
//   fold, correct, n_test, leaves, size, median build seconds, min build seconds,
//   and the predicted class index of every test instance (comma-separated).
import java.io.PrintWriter;
import java.util.Arrays;

import weka.classifiers.Evaluation;
import weka.classifiers.trees.J48;
import weka.core.Instances;
import weka.core.Utils;
import weka.core.converters.ConverterUtils.DataSource;

public class J48Folds {
    static Instances read(String path) throws Exception {
        Instances data = DataSource.read(path);
        data.setClassIndex(data.numAttributes() - 1);
        return data;
    }

    static J48 build(String options, Instances train) throws Exception {
        J48 tree = new J48();
        tree.setOptions(Utils.splitOptions(options));
        tree.buildClassifier(train);
        return tree;
    }

    public static void main(String[] args) throws Exception {
        String options = args[0];
        int reps = Integer.parseInt(args[1]);
        PrintWriter out = new PrintWriter(args[2], "UTF-8");
        int nFolds = (args.length - 3) / 2;
        // Warm-up: the JIT compiles Weka's code on the first builds; untimed, as the Python
        // side's first (numba-loading) fit is.
        Instances first = read(args[3]);
        long until = System.nanoTime() + 2_000_000_000L;
        for (int i = 0; i < 50 && System.nanoTime() < until; i++) build(options, first);
        for (int f = 0; f < nFolds; f++) {
            Instances train = read(args[3 + 2 * f]);
            Instances test = read(args[4 + 2 * f]);
            double[] secs = new double[reps];
            J48 tree = null;
            for (int r = 0; r < reps; r++) {
                long t0 = System.nanoTime();
                tree = build(options, train);
                secs[r] = (System.nanoTime() - t0) / 1e9;
            }
            Arrays.sort(secs);
            double median = reps % 2 == 1 ? secs[reps / 2]
                    : 0.5 * (secs[reps / 2 - 1] + secs[reps / 2]);
            Evaluation eval = new Evaluation(train);
            eval.evaluateModel(tree, test);
            StringBuilder pred = new StringBuilder();
            for (int i = 0; i < test.numInstances(); i++) {
                if (i > 0) pred.append(',');
                pred.append((int) tree.classifyInstance(test.instance(i)));
            }
            out.println((f + 1) + "\t" + (long) Math.round(eval.correct()) + "\t"
                    + test.numInstances() + "\t" + (long) tree.measureNumLeaves() + "\t"
                    + (long) tree.measureTreeSize() + "\t" + median + "\t" + secs[0] + "\t"
                    + pred);
        }
        out.close();
    }
}
