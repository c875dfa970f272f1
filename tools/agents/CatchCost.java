import java.util.Locale;

/**
 * CatchCost MS: what one exception thrown by a compiled method and caught
 * by its compiled caller costs, with and without a JVMTI agent's
 * capabilities (run.sh runs it under each set). The throwable is made
 * once (no stack walk per throw); thrower and catcher are kept out of
 * line (-XX:CompileCommand=dontinline,CatchCost::*), so that each throw
 * leaves a compiled frame and enters its caller's through the runtime
 * (OptoRuntime::handle_exception_C), as a throw across a call does in
 * an application. Prints the best ns per throw and catch over batches of
 * alternating thrown and unthrown calls for MS ms, after a warm-up that
 * compiles both paths.
 */
public final class CatchCost {
    static final class Fast extends RuntimeException {
        Fast() { super(null, null, false, false); }
    }

    static final Fast EXCEPTION = new Fast();
    static int sink;

    static int thrower(int i, boolean raise) {
        if (raise) throw EXCEPTION;
        return i;
    }

    static int catcher(int i, boolean raise) {
        try {
            return thrower(i, raise);
        } catch (Fast e) {
            return -i;
        }
    }

    static long batch(int n, boolean raise) {
        long t0 = System.nanoTime();
        int s = 0;
        for (int i = 0; i < n; i++) s += catcher(i, raise);
        sink += s;
        return System.nanoTime() - t0;
    }

    public static void main(String[] args) {
        int ms = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
        int n = 20_000;
        for (int w = 0; w < 50; w++) { batch(n, true); batch(n, false); }
        double thrown = Double.MAX_VALUE, plain = Double.MAX_VALUE;
        long end = System.nanoTime() + ms * 1_000_000L;
        while (System.nanoTime() < end) {
            thrown = Math.min(thrown, batch(n, true) / (double) n);
            plain = Math.min(plain, batch(n, false) / (double) n);
        }
        System.out.printf(Locale.ROOT, "CATCH thrown=%.1f plain=%.1f per_catch=%.1f%n", thrown, plain, thrown - plain);
    }
}
