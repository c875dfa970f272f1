// Loops: a method shaped like Lucene's ExactPhraseScorer.phraseFreq, for
// importer's loop-trip tests (TestLoopTripsFromSamples): a little code
// outside its loops, an outer loop with little code of its own and an
// inner loop that holds most of its time; once calls it once; and a method
// shaped like Lucene's BlockDocsEnum.nextDoc, next, whose loop is left from
// inside its body (TestLoopTripsFromExits), which drive calls. Compiled with
// `javac --release 17 -g Loops.java`.
public class Loops {
    static final int[] a = new int[64];

    static int phrase(int n, int m) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += a[i & 63];
            for (int j = 0; j < m; j++) {
                s += a[j & 63] * j + (s >>> 3);
            }
        }
        return s;
    }

    static int once(int n) {
        return phrase(n, 50);
    }

    public static void main(String[] args) {
        long t = 0;
        for (int k = 0; k < 1_000_000; k++) {
            t += phrase(k & 7, 50);
        }
        for (int k = 0; k < 1_000; k++) {
            t += once(k);
        }
        System.out.println(t);
    }

    static final int[] buf = new int[128];
    static int upto, skipped, live;

    static int next(int limit) {
        while (true) {
            if (upto == limit) {
                return -1;
            }
            int v = buf[upto & 127];
            upto++;
            if (live == 0 || (v & live) != 0) {
                return v;
            }
            skipped++;
        }
    }

    static int drive() {
        int t = 0;
        for (int k = 0; k < 1_000; k++) {
            t += next(1 << 20);
        }
        return t;
    }
}
