// StripMining: where C2 puts the safepoint poll of a strip-mined counted
// loop, and how long a strip is, seen from where a safepoint finds a
// thread that runs the loop. run.sh runs it; README.md has the results.
//
// The worker calls run(v, n): a method with loop A, one of five bodies
// (v), with a bound C2 cannot know (n, a parameter), then b(), a loop B
// with a literal bound of 10^7 iterations. run.sh keeps C2 from inlining
// them (-XX:CompileCommand=dontinline), so the return poll that follows
// each loop is seen in run, at the call.
// A stores its index in a plain field, progress, which C2 sinks to the end
// of each strip.
//
// The main thread lets the worker start A, sleeps 2 ms, requests a
// safepoint (Thread.getAllStackTraces, a VM_ThreadDump operation in JDK
// 17) and reads progress again as soon as the operation returns. Pinned
// to one CPU (run.sh uses taskset), the main thread, which slept, runs
// before the worker, which it preempted, makes progress: the value read is
// where the safepoint stopped the worker. It prints the worker's top frame
// and line and whether it stopped inside A, at A's exit (progress n-16 or
// more: an unrolled main loop ends up to 15 iterations early, a post-loop
// runs the rest), inside B, or at the return poll after A or B.
import java.util.Map;

public class StripMining {
    static volatile long aStart, aEnd, bEnd;
    static volatile int request = -1, variant; // n for the worker; 0 ends it
    static int progress;                        // A's index (a plain field)
    static long sink;

    static long run(int v, int n) {
        aStart = System.nanoTime();
        long s;
        switch (v) {
            case 1: s = a1(n); break;
            case 2: s = a2(n); break;
            case 3: s = a3(n); break;
            case 4: s = a4(n); break;
            default: s = a5(n);
        }
        aEnd = System.nanoTime();
        s = b(s);                                 // a return poll here is b's
        bEnd = System.nanoTime();
        return s;
    }

    static long b(long s) {
        for (int i = 0; i < 10_000_000; i++) { // B: literal bound, no safepoint
            s = (s ^ (s >>> 29)) * 0xBF58476D1CE4E5B9L + i;
        }
        return s;
    }

    // The A loops, smallest body first (javap's bytecodes per iteration).
    static long a5(int n) { // int arithmetic: 12 bytecodes
        int s = 1;
        for (int i = 0; i < n; i++) { s = s * 31 + i; progress = i; }
        return s;
    }
    static long a1(int n) { // one long multiply: 14 bytecodes
        long s = 1;
        for (int i = 0; i < n; i++) { s = s * 0x9E3779B97F4A7C15L + i; progress = i; }
        return s;
    }
    static long a2(int n) { // two: 22 bytecodes
        long s = 1, t = 2;
        for (int i = 0; i < n; i++) { s = s * 0x9E3779B97F4A7C15L + i; t = t * 31 + s; progress = i; }
        return s + t;
    }
    static long a3(int n) { // three: 30 bytecodes
        long s = 1, t = 2, u = 3;
        for (int i = 0; i < n; i++) { s = s * 0x9E3779B97F4A7C15L + i; t = t * 31 + s; u = u * 17 + t; progress = i; }
        return s + t + u;
    }
    static long a4(int n) { // five: 46 bytecodes
        long s = 1, t = 2, u = 3, x = 4, y = 5;
        for (int i = 0; i < n; i++) {
            s = s * 0x9E3779B97F4A7C15L + i; t = t * 31 + s; u = u * 17 + t; x = x * 13 + u; y = y * 11 + x;
            progress = i;
        }
        return s + t + u + x + y;
    }
    static void worker() {
        while (true) {
            int n;
            while ((n = request) < 0) {
                Thread.onSpinWait();
            }
            if (n == 0) {
                return;
            }
            request = -1;
            sink += run(variant, n);
        }
    }

    static Thread w;

    // one runs run(v, n) on the worker and requests a safepoint 2 ms later
    // (inB: 2 ms after A ended).
    static void one(String what, int v, int n, boolean inB) {
        long before = bEnd;
        progress = -1;
        variant = v;
        request = n;
        while (aStart <= before) {
            java.util.concurrent.locks.LockSupport.parkNanos(100_000);
        }
        if (inB) {
            while (aEnd <= aStart) {
                java.util.concurrent.locks.LockSupport.parkNanos(100_000);
            }
        }
        java.util.concurrent.locks.LockSupport.parkNanos(2_000_000);
        int p0 = progress;
        long t1 = System.nanoTime();
        Map<Thread, StackTraceElement[]> all = Thread.getAllStackTraces();
        int p1 = progress;
        StackTraceElement top = all.get(w)[0];
        while (bEnd <= before) {
            java.util.concurrent.locks.LockSupport.parkNanos(100_000);
        }
        String req = t1 < aEnd ? "in A" : t1 < bEnd ? "in B" : "after B";
        String m = top.getMethodName(), stop;
        if (m.startsWith("a")) {
            stop = p1 >= n - 16 ? "at A's exit" : "inside A";
        } else if (m.equals("b")) {
            stop = "inside B";
        } else if (m.equals("run")) {
            stop = "at a return"; // after A or B, at the call in run
        } else {
            stop = "after B";
        }
        System.out.printf("%-26s n=%-10d requested %-5s (progress %10d)  stopped %-12s %s:%d  progress %d%n",
            what, n, req, p0, stop, top.getMethodName(), top.getLineNumber(), p1);
    }

    public static void main(String[] args) {
        String part = args.length > 0 ? args[0] : "exit";
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int strip = args.length > 2 ? Integer.parseInt(args[2]) : 1_000_000; // -XX:LoopStripMiningIter
        w = new Thread(StripMining::worker, "worker");
        w.setDaemon(true);
        w.start();
        for (int v = 1; v <= 5; v++) { // compile run and every A before measuring
            long before = bEnd;
            variant = v;
            request = 1000;
            while (bEnd <= before) {
                java.util.concurrent.locks.LockSupport.parkNanos(100_000);
            }
        }
        for (int r = 0; r < reps; r++) {
            switch (part) {
                case "exit": // LoopStripMiningIter = 10^8: A below one strip, B short
                    one("A1, n below one strip", 1, 50_000_000, false);
                    one("A1 short, request in B", 1, 100_000, true);
                    break;
                case "align": // LoopMaxUnroll=1: strips of exactly `strip`
                    one("A1, 1.5 strips", 1, strip * 3 / 2, false);
                    break;
                case "unroll": // the first strip ends inside A iff n > strip × unroll
                    for (int v = 5; v >= 1; v--) {
                        for (int k : new int[] {3, 6, 12, 24, 48}) {
                            one("A" + v + ", n = " + k / 2.0 + " strips", v, strip / 2 * k, false);
                        }
                    }
                    break;
                default:
                    throw new IllegalArgumentException(part);
            }
        }
        request = 0;
    }
}
