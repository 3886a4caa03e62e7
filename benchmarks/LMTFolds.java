// Weka's LMT on given train/test ARFF pairs, timed in one JVM after a warm-up.
//
// Compiled at run time by benchmarks/lmt_peers.py (javac -cp weka.jar) into the gitignored
// benchmarks/data-cache/; uses only Weka's public API (3.6 or later). Also used by
// tests/data/lmt/make_fixtures.py, with the whole data set as both train and test.
//
// Usage: java -cp weka.jar:DIR LMTFolds "OPTIONS" REPS OUT.tsv TRAIN1 TEST1 [TRAIN2 TEST2 ...]
//   OPTIONS  LMT's options as on its command line, e.g. "-M 15" ("" for the defaults)
//   REPS     timed builds per fold; the median is reported
// Writes OUT.tsv, one line per fold:
//   fold, correct, n_test, leaves, size, median build seconds, min build seconds,
//   the predicted class index of every test instance (comma-separated),
//   the class probabilities of every test instance (';' between instances, ',' between
//   classes, full precision);
// and OUT.tsv.<fold>.txt, the fold model as Weka prints it.
import java.io.PrintWriter;
import java.util.Arrays;

import weka.classifiers.trees.LMT;
import weka.core.Instances;
import weka.core.Utils;
import weka.core.converters.ConverterUtils.DataSource;

public class LMTFolds {
    static Instances read(String path) throws Exception {
        Instances data = DataSource.read(path);
        data.setClassIndex(data.numAttributes() - 1);
        return data;
    }

    static LMT build(String options, Instances train) throws Exception {
        LMT tree = new LMT();
        tree.setOptions(Utils.splitOptions(options));
        tree.buildClassifier(train);
        return tree;
    }

    public static void main(String[] args) throws Exception {
        String options = args[0];
        int reps = Integer.parseInt(args[1]);
        PrintWriter out = new PrintWriter(args[2], "UTF-8");
        int nFolds = (args.length - 3) / 2;
        // Warm-up so that the timed builds run JIT-compiled code, as the Python side's
        // timed fits run after an untimed first one.
        Instances first = read(args[3]);
        long until = System.nanoTime() + 3_000_000_000L;
        for (int i = 0; i < 20 && System.nanoTime() < until; i++) build(options, first);
        for (int f = 0; f < nFolds; f++) {
            Instances train = read(args[3 + 2 * f]);
            Instances test = read(args[4 + 2 * f]);
            double[] secs = new double[reps];
            LMT tree = null;
            for (int r = 0; r < reps; r++) {
                long t0 = System.nanoTime();
                tree = build(options, train);
                secs[r] = (System.nanoTime() - t0) / 1e9;
            }
            Arrays.sort(secs);
            double median = reps % 2 == 1 ? secs[reps / 2]
                    : 0.5 * (secs[reps / 2 - 1] + secs[reps / 2]);
            long correct = 0;
            StringBuilder pred = new StringBuilder();
            StringBuilder prob = new StringBuilder();
            for (int i = 0; i < test.numInstances(); i++) {
                double[] dist = tree.distributionForInstance(test.instance(i));
                int best = Utils.maxIndex(dist);
                if (best == (int) test.instance(i).classValue()) correct++;
                if (i > 0) {
                    pred.append(',');
                    prob.append(';');
                }
                pred.append(best);
                for (int k = 0; k < dist.length; k++) {
                    if (k > 0) prob.append(',');
                    prob.append(Double.toString(dist[k]));
                }
            }
            out.println((f + 1) + "\t" + correct + "\t" + test.numInstances() + "\t"
                    + (long) tree.measureNumLeaves() + "\t" + (long) tree.measureTreeSize()
                    + "\t" + median + "\t" + secs[0] + "\t" + pred + "\t" + prob);
            PrintWriter model = new PrintWriter(args[2] + "." + (f + 1) + ".txt", "UTF-8");
            model.println(tree.toString());
            model.close();
        }
        out.close();
    }
}
