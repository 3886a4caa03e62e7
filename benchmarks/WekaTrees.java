// Any Weka classifier on one train/test ARFF pair: build and prediction timed in one JVM.
//
// Compiled at run time by benchmarks/suite.py (javac -cp weka.jar) into the gitignored
// benchmarks/data-cache/; needs only Weka's public API (3.6 or later). J48Folds.java times
// J48's build only; the performance suite also times prediction and runs REPTree and
// SimpleCart, hence this general harness.
//
// Usage: java -cp weka.jar:DIR WekaTrees CLASS "OPTIONS" REPS OUT.tsv TRAIN.arff TEST.arff
//   CLASS    e.g. weka.classifiers.trees.J48
//   OPTIONS  the classifier's options as on its command line, e.g. "-C 0.25 -M 2"
//   REPS     timed builds (and timed predictions of the whole test set); medians reported
// Writes OUT.tsv, one line: median build seconds, median predict seconds, correct, n_test,
// leaves (-1 when the classifier reports no leaf count).
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Collections;

import weka.classifiers.Classifier;
import weka.core.AdditionalMeasureProducer;
import weka.core.Instances;
import weka.core.Utils;
import weka.core.converters.ConverterUtils.DataSource;

public class WekaTrees {
    static Instances read(String path) throws Exception {
        Instances data = DataSource.read(path);
        data.setClassIndex(data.numAttributes() - 1);
        return data;
    }

    static Classifier build(String cls, String options, Instances train) throws Exception {
        Classifier c = Classifier.forName(cls, Utils.splitOptions(options));
        c.buildClassifier(train);
        return c;
    }

    static int predict(Classifier c, Instances test) throws Exception {
        int correct = 0;
        for (int i = 0; i < test.numInstances(); i++) {
            if (c.classifyInstance(test.instance(i)) == test.instance(i).classValue()) correct++;
        }
        return correct;
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    }

    // Leaves from the classifier's own measure (J48) or numLeaves() (SimpleCart); REPTree
    // offers only the tree size, so its leaves are counted in its text form (" : " lines).
    static long leaves(Classifier c) {
        if (c instanceof AdditionalMeasureProducer) {
            AdditionalMeasureProducer m = (AdditionalMeasureProducer) c;
            if (Collections.list(m.enumerateMeasures()).contains("measureNumLeaves")) {
                return Math.round(m.getMeasure("measureNumLeaves"));
            }
        }
        try {
            return ((Number) c.getClass().getMethod("numLeaves").invoke(c)).longValue();
        } catch (ReflectiveOperationException e) {
            // no such method: try the text form below
        }
        if (c.getClass().getSimpleName().equals("REPTree")) {
            return Arrays.stream(c.toString().split("\n")).filter(s -> s.contains(" : ")).count();
        }
        return -1;
    }

    public static void main(String[] args) throws Exception {
        String cls = args[0], options = args[1];
        int reps = Integer.parseInt(args[2]);
        Instances train = read(args[4]), test = read(args[5]);
        // Warm-up, untimed: the JIT compiles Weka's code during the first builds. At least
        // one build, more (up to 50) while they fit in one second, so small data warm up too.
        long until = System.nanoTime() + 1_000_000_000L;
        Classifier c = build(cls, options, train);
        for (int i = 1; i < 50 && System.nanoTime() < until; i++) build(cls, options, train);
        double[] fit = new double[reps], pred = new double[reps];
        for (int r = 0; r < reps; r++) {
            c = null;
            long t0 = System.nanoTime();
            c = build(cls, options, train);
            fit[r] = (System.nanoTime() - t0) / 1e9;
        }
        int correct = predict(c, test);  // warm-up of the prediction path
        for (int r = 0; r < reps; r++) {
            long t0 = System.nanoTime();
            correct = predict(c, test);
            pred[r] = (System.nanoTime() - t0) / 1e9;
        }
        try (PrintWriter out = new PrintWriter(args[3], "UTF-8")) {
            out.println(median(fit) + "\t" + median(pred) + "\t" + correct + "\t"
                    + test.numInstances() + "\t" + leaves(c));
        }
    }
}
