import java.io.*;
import java.lang.management.ManagementFactory;
import java.nio.file.*;
import java.time.Duration;
import java.time.Instant;
import java.util.*;
import java.util.regex.*;
import java.util.concurrent.locks.LockSupport;
import javax.tools.*;

/**
 * Measures on the installed JVM the costs profsim's model takes as settings.
 * See README.md. {@code java Calibrate all OUTDIR [REPS]} runs every
 * measurement in child JVMs, fits them and writes OUTDIR/calibration.csv;
 * the other modes are the children.
 */
public class Calibrate {
    // ---------------------------------------------------------------- children

    static volatile boolean stop;
    static volatile long sink;
    static final Object lock = new Object();

    /** rec descends d frames, then waits on lock (or returns when warming up). */
    static long rec(int d, boolean park) throws InterruptedException {
        if (d > 1) return rec(d - 1, park) + 1;
        if (park) synchronized (lock) { while (!stop) lock.wait(); }
        return 1;
    }

    /** tiny is kept out of line (CompileCommand=dontinline): a call and a return poll per iteration. */
    static int tiny(int i) { return i * 31 + 7; }

    /** spinRec descends d frames, then spins on poll-dense code (a call and a return poll every few ns), recording the gaps in its progress longer than minGap. */
    static long spinRec(int d, long[] gaps, int[] n, long minGap) {
        if (d > 1) return spinRec(d - 1, gaps, n, minGap) + 1;
        long last = System.nanoTime();
        int x = 0;
        while (!stop) {
            // Most of the time in Java code, not in the clock's vDSO call:
            // JFR cannot walk a thread whose pc is outside Java code.
            for (int k = 0; k < 64; k++) x += tiny(x);
            long t = System.nanoTime();
            long g = t - last;
            if (g > minGap && n[0] < gaps.length / 2) {
                gaps[2 * n[0]] = last;
                gaps[2 * n[0] + 1] = g;
                n[0]++;
            }
            last = t;
        }
        sink = x;
        return 1;
    }

    static void warmRec(int depth) throws InterruptedException {
        long s = 0;
        for (int i = 0; i < 30000; i++) s += rec(depth, false);
        sink = s;
    }

    /** waiters starts THREADS threads that wait DEPTH frames deep in compiled code. */
    static void waiters(int threads, int depth) throws Exception {
        warmRec(depth);
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> { try { rec(depth, true); } catch (InterruptedException e) { } }, "waiter-" + i);
            t.setDaemon(true);
            t.start();
        }
        Thread.sleep(200);
    }

    /** hold THREADS DEPTH MS: THREADS threads wait DEPTH frames deep for MS ms (the JVMTI agent walks them). */
    static void hold(int threads, int depth, int ms) throws Exception {
        waiters(threads, depth);
        Thread.sleep(ms);
    }

    /** dump THREADS DEPTH N: THREADS threads wait DEPTH frames deep; N Thread.getAllStackTraces. */
    static void dump(int threads, int depth, int n) throws Exception {
        waiters(threads, depth);
        for (int i = 0; i < n; i++) {
            Thread.sleep(5);
            long t0 = System.nanoTime();
            Map<Thread, StackTraceElement[]> m = Thread.getAllStackTraces();
            long t1 = System.nanoTime();
            int frames = 0;
            for (StackTraceElement[] st : m.values()) frames += st.length;
            System.out.println("DUMP threads=" + m.size() + " frames=" + frames + " call_ns=" + (t1 - t0));
        }
        stop = true;
        synchronized (lock) { lock.notifyAll(); }
    }

    /** felt N: one thread spins on poll-dense code; N safepoints (Thread.getAllStackTraces) 10 ms apart. */
    static void felt(int n) throws Exception {
        long[] gaps = new long[2 * 100000];
        int[] cnt = new int[1];
        Thread sp = new Thread(() -> spinRec(4, gaps, cnt, 2000), "spinner");
        sp.start();
        Thread.sleep(1000); // compile the spinner
        cnt[0] = 0;
        long[] req = new long[n];
        for (int i = 0; i < n; i++) {
            Thread.sleep(10);
            req[i] = System.nanoTime();
            Thread.getAllStackTraces();
        }
        stop = true;
        sp.join();
        // The pause each safepoint caused the spinner: its first gap that
        // covers the request time (the spinner was stopped across it).
        int k = 0;
        for (int i = 0; i < n; i++) {
            long best = -1;
            for (int j = 0; j < cnt[0]; j++) {
                long s = gaps[2 * j], g = gaps[2 * j + 1];
                if (s <= req[i] + 200_000 && s + g >= req[i]) { best = g; break; }
            }
            if (best > 0) { System.out.println("FELT pause_ns=" + best); k++; }
        }
        System.out.println("FELT_MATCHED " + k + " of " + n);
    }

    /** jfrspin DEPTH SECS: one thread spins DEPTH frames deep under JFR; prints its gaps and the sampler's CPU. */
    static void jfrspin(int depth, int secs) throws Exception {
        long[] gaps = new long[2 * 200000];
        int[] cnt = new int[1];
        Thread sp = new Thread(() -> spinRec(depth, gaps, cnt, 2000), "spinner");
        sp.start();
        Thread.sleep(1000);
        cnt[0] = 0;
        long cpu0 = samplerCPU();
        long t0 = System.nanoTime();
        Thread.sleep(secs * 1000L);
        long cpu1 = samplerCPU();
        long wall = System.nanoTime() - t0;
        stop = true;
        sp.join();
        int m = Math.min(cnt[0], gaps.length / 2);
        for (int j = 0; j < m; j++) System.out.println("GAP " + gaps[2 * j] + " " + gaps[2 * j + 1]);
        System.out.println("SAMPLER cpu_ns=" + (cpu1 - cpu0) + " wall_ns=" + wall);
    }

    /** stubCallee is kept out of line (CompileCommand=dontinline,Calibrate::stubCallee) by jfrstub's "calls". */
    static int stubCallee(int i) { return i * 31 + 7; }

    /** One kernel of jfrstub: 10 000 iterations of one kind of code. */
    static long stubKernel(String kind, int[] arr, long s) {
        switch (kind) {
            case "arith": for (int i = 0; i < 10000; i++) { s = s * 6364136223846793005L + i; s ^= s >>> 17; } return s;
            case "alloc": for (int i = 0; i < 10000; i++) s += new int[16 + (i & 1)].length; return s;
            case "calls": for (int i = 0; i < 10000; i++) s += stubCallee(i); return s;
            case "pow": for (int i = 0; i < 10000; i++) s += (long) Math.pow(1.0001 + (i & 7), 3.3); return s;
            case "copy": for (int i = 0; i < 10000; i++) s += Arrays.copyOf(arr, 64)[i & 63]; return s;
            default: throw new IllegalArgumentException("jfrstub: unknown kernel " + kind + " (arith, alloc, calls, pow, copy)");
        }
    }

    /**
     * jfrstub KERNEL SECS: runs one kernel on thread main for SECS seconds
     * under JFR (jdk.ExecutionSample every 1 ms; run with
     * -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints) and prints,
     * from the first second on, main's samples a second, the share of them
     * in the method that makes the kernel's stub calls (copy:
     * Arrays.copyOf, whose one basic block calls System.arraycopy; the
     * others: stubKernel) and the sampler's tick, the 10th percentile of
     * the gaps between samples, as profsim import's TickPeriod reads a
     * recording (an overestimate where most ticks leave no sample).
     */
    static void jfrstub(String kind, int secs) throws Exception {
        Path file = Files.createTempFile("jfrstub", ".jfr");
        long s = 0;
        int[] arr = new int[64];
        try (jdk.jfr.Recording r = new jdk.jfr.Recording()) {
            r.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(1));
            r.start();
            long end = System.nanoTime() + secs * 1_000_000_000L;
            while (System.nanoTime() < end) s = stubKernel(kind, arr, s);
            r.stop();
            r.dump(file);
        }
        sink = s;
        String caller = kind.equals("copy") ? "copyOf" : "stubKernel";
        List<long[]> t = new ArrayList<>(); // time, 1 if the top frame is caller
        for (jdk.jfr.consumer.RecordedEvent e : jdk.jfr.consumer.RecordingFile.readAllEvents(file)) {
            jdk.jfr.consumer.RecordedThread th = e.getThread("sampledThread");
            if (th == null || !"main".equals(th.getJavaName()) || e.getStackTrace() == null || e.getStackTrace().getFrames().isEmpty()) continue;
            Instant i = e.getStartTime();
            String top = e.getStackTrace().getFrames().get(0).getMethod().getName();
            t.add(new long[] {i.getEpochSecond() * 1_000_000_000L + i.getNano(), top.equals(caller) ? 1 : 0});
        }
        Files.delete(file);
        t.sort(Comparator.comparingLong(x -> x[0]));
        if (t.size() < 100) throw new IllegalStateException("jfrstub: " + t.size() + " samples of main; run with a JDK whose JFR samples");
        long from = t.get(0)[0] + 1_000_000_000L, to = t.get(t.size() - 1)[0];
        List<Long> gaps = new ArrayList<>();
        int n = 0, in = 0;
        long last = -1;
        for (long[] x : t) {
            if (x[0] < from || x[0] > to) continue;
            n++;
            in += x[1];
            if (last >= 0) gaps.add(x[0] - last);
            last = x[0];
        }
        Collections.sort(gaps);
        System.out.printf(Locale.ROOT, "JFRSTUB kernel=%s samples_per_s=%.1f in_%s=%.3f tick_ns=%d%n", kind, n / ((to - from) / 1e9), caller, (double) in / n, gaps.get(gaps.size() / 10));
    }

    /** CPU time (ns) of the JFR sampler thread. */
    static long samplerCPU() throws IOException { return threadCPU("JFR Thread Samp"); }

    /** CPU time (ns, /proc schedstat) of this process's threads whose name starts with prefix. */
    static long threadCPU(String prefix) throws IOException {
        File[] tasks = new File("/proc/self/task").listFiles();
        if (tasks == null) throw new IOException("no /proc/self/task");
        long sum = 0;
        int n = 0;
        for (File t : tasks) {
            try {
                String comm = new String(Files.readAllBytes(new File(t, "comm").toPath())).trim();
                if (comm.startsWith(prefix)) {
                    String s = new String(Files.readAllBytes(new File(t, "schedstat").toPath())).trim();
                    sum += Long.parseLong(s.split(" ")[0]);
                    n++;
                }
            } catch (IOException e) { }
        }
        if (n == 0) throw new IOException("no thread named " + prefix + "*");
        return sum;
    }

    /**
     * backoff N: the mean time a 10 us timed wait takes over N, and a 1 ms
     * one over N/10 (HotSpot's safepoint back-off sleeps 10 us during the
     * first millisecond, 1 ms after it).
     */
    static void backoff(int n) {
        for (int i = 0; i < 100; i++) LockSupport.parkNanos(10_000);
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) LockSupport.parkNanos(10_000);
        long t1 = System.nanoTime();
        for (int i = 0; i < n / 10; i++) LockSupport.parkNanos(1_000_000);
        long t2 = System.nanoTime();
        System.out.println("BACKOFF mean_ns=" + (t1 - t0) / n + " late_mean_ns=" + (t2 - t1) / (n / 10));
    }

    // Kernels: loop bodies C2 cannot vectorize (a loop-carried dependency).
    static long fld;
    static long kIntMix(int n) { int x = 1; for (int i = 0; i < n; i++) x = x * 31 + (i ^ (x >>> 7)); return x; }
    static long kLongMix(int n) { long x = 1; for (int i = 0; i < n; i++) x = x * 0x9E3779B97F4A7C15L + (x >>> 29) + i; return x; }
    static long kField(int n) { for (int i = 0; i < n; i++) fld = fld * 3 + (fld >>> 11) + i; return fld; }
    static long kArray(int[] a, int n) { long s = 0; int j = 0; for (int i = 0; i < n; i++) { s += a[j] * (s | 1); j = (int) (s & (a.length - 1)); } return s; }

    /** kernel NAME NS_BUDGET: best ns per iteration over 5 timed runs after warm-up. */
    static void kernel(String name, long budgetNs) {
        int[] arr = new int[1024];
        for (int i = 0; i < arr.length; i++) arr[i] = i * 7 + 1;
        int n = 1000;
        // Grow n until one run takes budget/10, warming up on the way.
        while (true) {
            long t0 = System.nanoTime();
            runKernel(name, arr, n);
            long dt = System.nanoTime() - t0;
            if (dt > budgetNs / 10 || n > 1 << 30) break;
            n *= 2;
        }
        for (int w = 0; w < 3; w++) runKernel(name, arr, n);
        double best = Double.MAX_VALUE;
        for (int r = 0; r < 5; r++) {
            long t0 = System.nanoTime();
            runKernel(name, arr, n);
            best = Math.min(best, (System.nanoTime() - t0) / (double) n);
        }
        System.out.println("KERNEL " + name + " ns_per_iter=" + best + " n=" + n);
    }

    static void runKernel(String name, int[] arr, int n) {
        switch (name) {
            case "intmix": sink += kIntMix(n); break;
            case "longmix": sink += kLongMix(n); break;
            case "field": sink += kField(n); break;
            case "array": sink += kArray(arr, n); break;
            default: throw new IllegalArgumentException("kernel " + name);
        }
    }

    // Throwables whose construction walks the stack, and ones that do not
    // (fillInStackTrace overridden: the Java side of a construction alone).
    static final class Walked extends RuntimeException { }
    static final class Unwalked extends RuntimeException {
        @Override public synchronized Throwable fillInStackTrace() { return this; }
    }

    static Throwable lastThrown;

    /**
     * POLLUTE_KB (-Dcalibrate.pollute=KB, default 0) is how much memory
     * throwAt touches, one cache line in 64 bytes of a 64 MB array, before
     * each construction: a real program's work between two throwables
     * evicts what the walk reads (the frames' code blobs, debug information,
     * methods and mirrors), which a loop of constructions keeps in cache.
     */
    static final int POLLUTE_KB = Integer.getInteger("calibrate.pollute", 0);
    static final int[] POLLUTE = new int[POLLUTE_KB > 0 ? (64 << 20) / 4 : 0];
    static int polluteAt;

    static int pollute() {
        int s = 0;
        for (int i = 0, n = POLLUTE_KB * 1024 / 64; i < n; i++) {
            polluteAt = (polluteAt + 16 * 7919) & (POLLUTE.length - 1); // a prime stride of cache lines
            s += POLLUTE[polluteAt]++;
        }
        return s;
    }

    /** throwAt descends d frames, then constructs n throwables of one kind; returns the frames the last one recorded. */
    public static int throwAt(int d, boolean walk, int n) {
        if (d > 1) return throwAt(d - 1, walk, n);
        for (int i = 0; i < n; i++) {
            if (POLLUTE_KB > 0) pollute();
            lastThrown = walk ? new Walked() : new Unwalked();
        }
        return walk ? lastThrown.getStackTrace().length : 0;
    }

    /**
     * throwcost DEPTH MS: constructs throwables DEPTH frames deep, after a
     * warm-up that compiles both kinds, alternating batches of each kind
     * for MS ms; prints the best ns per construction of each kind and the
     * frames a walked one records.
     */
    static void throwcost(int depth, int ms) {
        int batch = 2000;
        for (int w = 0; w < 20; w++) { throwAt(depth, true, batch / 10); throwAt(depth, false, batch); }
        double walked = Double.MAX_VALUE, unwalked = Double.MAX_VALUE;
        int frames = 0;
        long end = System.nanoTime() + ms * 1_000_000L;
        while (System.nanoTime() < end) {
            long t0 = System.nanoTime();
            frames = throwAt(depth, true, batch);
            long t1 = System.nanoTime();
            throwAt(depth, false, batch);
            long t2 = System.nanoTime();
            walked = Math.min(walked, (t1 - t0) / (double) batch);
            unwalked = Math.min(unwalked, (t2 - t1) / (double) batch);
        }
        System.out.printf(Locale.ROOT, "THROW depth=%d frames=%d walked=%.1f unwalked=%.1f%n", depth, frames, walked, unwalked);
    }

    /**
     * throwchain DEPTH MS: as throwcost, but the stack below the
     * construction is DEPTH distinct methods (a generated class, each
     * method its own code and debug information, as a real application's
     * stack is) rather than one method recursing.
     */
    static void throwchain(int depth, int ms) throws Exception {
        Path dir = Files.createTempDirectory("calib-chain");
        StringBuilder src = new StringBuilder("public class Chain {\n");
        src.append("  public static int leaf(boolean walk, int n) { return Calibrate.throwAt(1, walk, n); }\n");
        for (int k = 0; k < depth; k++) {
            String next = k + 1 < depth ? "m" + (k + 1) + "(walk, n, x)" : "leaf(walk, n)";
            src.append("  public static int m").append(k).append("(boolean walk, int n, int y) {\n")
               .append("    int x = y * ").append(31 + 2 * k).append(" + ").append(k).append(";\n")
               .append("    for (int i = 0; i < (x & 3); i++) x ^= i * ").append(7 + k).append(";\n")
               .append("    return ").append(next).append(" + (x & 1);\n  }\n");
        }
        src.append("}\n");
        Path f = dir.resolve("Chain.java");
        Files.writeString(f, src.toString());
        JavaCompiler jc = ToolProvider.getSystemJavaCompiler();
        if (jc.run(null, null, null, "-cp", System.getProperty("java.class.path"), "-d", dir.toString(), f.toString()) != 0)
            throw new IllegalStateException("could not compile the generated chain");
        ClassLoader cl = new java.net.URLClassLoader(new java.net.URL[] {dir.toUri().toURL()}, Calibrate.class.getClassLoader());
        java.lang.reflect.Method m0 = cl.loadClass("Chain").getMethod("m0", boolean.class, int.class, int.class);
        int batch = 500;
        for (int w = 0; w < 200; w++) { m0.invoke(null, true, batch / 10, w); m0.invoke(null, false, batch, w); }
        double walked = Double.MAX_VALUE, unwalked = Double.MAX_VALUE;
        long end = System.nanoTime() + ms * 1_000_000L;
        while (System.nanoTime() < end) {
            long t0 = System.nanoTime();
            m0.invoke(null, true, batch, 1);
            long t1 = System.nanoTime();
            m0.invoke(null, false, batch, 1);
            long t2 = System.nanoTime();
            walked = Math.min(walked, (t1 - t0) / (double) batch);
            unwalked = Math.min(unwalked, (t2 - t1) / (double) batch);
        }
        m0.invoke(null, true, 1, 1);
        int frames = lastThrown.getStackTrace().length;
        System.out.printf(Locale.ROOT, "THROW depth=%d frames=%d walked=%.1f unwalked=%.1f%n", depth, frames, walked, unwalked);
    }

    /** javac SRC SECS: compile SRC in-process again and again (javac is the workload, -XX:+CITime times the JIT). */
    static void javac(String src, int secs) throws Exception {
        JavaCompiler jc = ToolProvider.getSystemJavaCompiler();
        Path out = Files.createTempDirectory("calib-javac");
        long end = System.nanoTime() + secs * 1_000_000_000L;
        int k = 0;
        while (System.nanoTime() < end) {
            int rc = jc.run(null, null, null, "-d", out.toString(), "-proc:none", src);
            if (rc != 0) throw new IllegalStateException("javac failed");
            k++;
        }
        System.out.println("JAVAC compiles=" + k);
        System.out.println("C2CPU ns=" + threadCPU("C2 CompilerThre"));
    }

    // ----------------------------------------------------------- orchestrator

    static String java;
    static String cp;
    static String self;

    static List<String> child(List<String> jvm, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(jvm);
        cmd.add("-cp");
        cmd.add(cp);
        cmd.add("Calibrate");
        cmd.addAll(Arrays.asList(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        Process p = pb.start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
            for (String l; (l = r.readLine()) != null; ) lines.add(l);
        }
        int rc = p.waitFor();
        if (rc != 0) {
            for (String l : lines) System.err.println("  | " + l);
            throw new IllegalStateException("child failed (" + rc + "): " + String.join(" ", cmd));
        }
        return lines;
    }

    static final Pattern SP = Pattern.compile("Safepoint \"(\\w+)\".*Reaching safepoint: (\\d+) ns, Cleanup: (\\d+) ns, At safepoint: (\\d+) ns, Total: (\\d+) ns");
    static final Pattern KV = Pattern.compile("(\\w+)=([-0-9.E]+)");

    static Map<String, Double> kv(String line) {
        Map<String, Double> m = new HashMap<>();
        Matcher x = KV.matcher(line);
        while (x.find()) m.put(x.group(1), Double.parseDouble(x.group(2)));
        return m;
    }

    static double median(List<Double> v) {
        List<Double> s = new ArrayList<>(v);
        Collections.sort(s);
        int n = s.size();
        if (n == 0) return Double.NaN;
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    /** Least squares y = b0 + b1 x1 + b2 x2 (x2 may be null: y = b0 + b1 x1). */
    static double[] fit(List<double[]> xs, List<Double> ys, int k) {
        int p = k + 1;
        double[][] a = new double[p][p + 1];
        for (int i = 0; i < ys.size(); i++) {
            double[] row = new double[p];
            row[0] = 1;
            for (int j = 0; j < k; j++) row[j + 1] = xs.get(i)[j];
            for (int r = 0; r < p; r++) {
                for (int c = 0; c < p; c++) a[r][c] += row[r] * row[c];
                a[r][p] += row[r] * ys.get(i);
            }
        }
        for (int c = 0; c < p; c++) { // Gauss-Jordan
            int piv = c;
            for (int r = c + 1; r < p; r++) if (Math.abs(a[r][c]) > Math.abs(a[piv][c])) piv = r;
            double[] t = a[c]; a[c] = a[piv]; a[piv] = t;
            for (int r = 0; r < p; r++) {
                if (r == c) continue;
                double f = a[r][c] / a[c][c];
                for (int cc = c; cc <= p; cc++) a[r][cc] -= f * a[c][cc];
            }
        }
        double[] b = new double[p];
        for (int r = 0; r < p; r++) b[r] = a[r][p] / a[r][r];
        return b;
    }

    /** One quantity measured in every repetition. */
    static final class Q {
        final String name, key, unit, how;
        final List<Double> reps = new ArrayList<>();
        Q(String name, String key, String unit, String how) { this.name = name; this.key = key; this.unit = unit; this.how = how; }
    }

    static final Map<String, Q> qs = new LinkedHashMap<>();

    static void put(String name, String key, String unit, String how, double v) {
        qs.computeIfAbsent(name, n -> new Q(name, key, unit, how)).reps.add(v);
        System.out.printf(Locale.ROOT, "  %-28s %12.1f %s%n", name, v, unit);
    }

    static final String DUMPS = "60";
    static double threadDumpPerFrame;

    /**
     * WALKS are the (waiting threads, depth) configurations a stack-walk
     * cost is fitted over: the thread count varies at a shallow depth and
     * the depth at a fixed thread count, so that the per-thread and
     * per-frame costs are told apart.
     */
    static final int[][] WALKS = {{4, 2}, {64, 2}, {160, 2}, {16, 8}, {16, 48}, {16, 96}};

    /**
     * walkFit runs one child per WALKS mix (args gives its JVM options and
     * arguments), pairs each line starting with prefix with the log line
     * of VM operation op before it, skips the first 10 pairs as warm-up,
     * and fits the medians of the operation's At-safepoint time over the
     * threads and frames the line reports: {fixed, per thread, per frame}.
     * reach and clean collect the Reaching and Cleanup phases. done, if
     * not null, is a line the child must print (the agent finished).
     */
    static double[] walkFit(String op, String prefix, String done, String label,
            java.util.function.BiFunction<Integer, Integer, List<List<String>>> args,
            List<Double> reach, List<Double> clean) throws Exception {
        List<double[]> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        for (int[] cfg : WALKS) {
            List<List<String>> a = args.apply(cfg[0], cfg[1]);
            List<String> out = child(a.get(0), a.get(1).toArray(new String[0]));
            Matcher last = null;
            List<Double> at = new ArrayList<>();
            double th = 0, fr = 0;
            int seen = 0;
            boolean finished = done == null;
            for (String l : out) {
                Matcher m = SP.matcher(l);
                if (m.find() && m.group(1).equals(op)) { last = m; continue; }
                if (done != null && l.startsWith(done)) finished = true;
                if (l.startsWith(prefix) && last != null) {
                    seen++;
                    if (seen <= 10) { last = null; continue; } // warm-up
                    Map<String, Double> d = kv(l);
                    th = d.get("threads");
                    fr = d.get("frames");
                    at.add(Double.parseDouble(last.group(4)));
                    reach.add(Double.parseDouble(last.group(2)));
                    clean.add(Double.parseDouble(last.group(3)));
                    last = null;
                }
            }
            if (!finished) throw new IllegalStateException(label + ": the child did not print " + done);
            double med = median(at);
            System.out.printf(Locale.ROOT, "    %s threads=%.0f frames=%.0f: at-safepoint median %.0f ns (%d)%n", label, th, fr, med, at.size());
            xs.add(new double[] {th, fr});
            ys.add(med);
        }
        return fit(xs, ys, 2);
    }

    static void measureDump() throws Exception {
        List<Double> reach = new ArrayList<>(), clean = new ArrayList<>();
        double[] b = walkFit("ThreadDump", "DUMP", null, "dump",
                (threads, depth) -> List.of(List.of("-Xlog:safepoint=info:stdout:none", "-Xss4m"),
                        List.of("dump", "" + threads, "" + depth, DUMPS)),
                reach, clean);
        put("threaddump_fixed", "", "ns", "intercept of the ThreadDump operation's at-safepoint time", b[0]);
        put("walk_per_thread", "", "ns", "ThreadDump at-safepoint time per thread (fit)", b[1]);
        put("walk_per_frame", "", "ns", "ThreadDump at-safepoint time per frame (fit)", b[2]);
        threadDumpPerFrame = b[2];
        put("reaching_idle", "", "ns", "Reaching safepoint with no thread in Java code (median)", median(reach));
        put("cleanup", "", "ns", "Cleanup phase (median)", median(clean));
    }

    /** The JVMTI agent (jvmti/agent.c), built by run.sh; null when it could not be built. */
    static String agent = System.getProperty("calibrate.agent");

    /** measureJVMTI returns the per-frame cost (ThreadDump's without the agent). */
    static double measureJVMTI() throws Exception {
        if (agent == null || agent.isEmpty()) {
            System.out.println("    (no JVMTI agent: jvmti rows skipped; JFR's walk is costed at ThreadDump's per-frame time)");
            return threadDumpPerFrame;
        }
        double[] b = walkFit("GetAllStackTraces", "JVMTI ", "JVMTI_DONE", "jvmti",
                (threads, depth) -> List.of(List.of("-Xlog:safepoint=info:stdout:none", "-Xss4m",
                        "-agentpath:" + agent + "=n=" + DUMPS + ",delay=1500,interval=5000,depth=256"),
                        List.of("hold", "" + threads, "" + depth, "3000")),
                new ArrayList<>(), new ArrayList<>());
        put("jvmti_fixed", "", "ns", "intercept of GetAllStackTraces' at-safepoint time (fit)", b[0]);
        put("jvmti_walk_per_thread", "sampler:jvmti.walk_per_thread sampler:safepoint.walk_per_thread", "ns", "GetAllStackTraces at-safepoint time per thread (fit)", b[1]);
        put("jvmti_walk_per_frame", "sampler:jvmti.walk_per_frame sampler:safepoint.walk_per_frame sampler:jfr.walk_per_frame", "ns", "GetAllStackTraces at-safepoint time per frame (fit); JFR's walk of a frame is costed the same", b[2]);
        return b[2];
    }

    static void measureFelt() throws Exception {
        List<String> out = child(List.of("-Xlog:safepoint=info:stdout:none", "-XX:CompileCommand=quiet", "-XX:CompileCommand=dontinline,Calibrate::tiny"), "felt", "300");
        List<Double> reach = new ArrayList<>(), total = new ArrayList<>(), at = new ArrayList<>(), felt = new ArrayList<>();
        String matched = "";
        for (String l : out) {
            Matcher m = SP.matcher(l);
            if (m.find() && m.group(1).equals("ThreadDump")) {
                reach.add(Double.parseDouble(m.group(2)));
                at.add(Double.parseDouble(m.group(4)));
                total.add(Double.parseDouble(m.group(5)));
            } else if (l.startsWith("FELT pause_ns")) {
                felt.add(kv(l).get("pause_ns"));
            } else if (l.startsWith("FELT_MATCHED")) matched = l;
        }
        System.out.println("    " + matched);
        double r = median(reach);
        put("reaching_running", "", "ns", "Reaching safepoint with one thread running poll-dense code (median)", r);
        Map<String, Double> bo = kv(last(child(List.of(), "backoff", "2000"), "BACKOFF"));
        put("backoff_10us", "safepoint.sync_recheck", "ns", "a 10 us timed wait (LockSupport.parkNanos; HotSpot's back-off is nanosleep(10 us)), mean of 2000", bo.get("mean_ns"));
        put("backoff_1ms", "safepoint.sync_recheck_late", "ns", "a 1 ms timed wait (HotSpot's back-off past the first millisecond), mean of 200", bo.get("late_mean_ns"));
        List<Double> fracLong = new ArrayList<>();
        for (double x : reach) fracLong.add(x > 10_000 ? 1.0 : 0.0);
        put("reaching_over_10us", "", "share", "share of those safepoints whose Reaching phase took > 10 us", fracLong.stream().mapToDouble(d -> d).average().orElse(Double.NaN));
        put("total_running", "", "ns", "Total (begin to end) of those safepoints (median)", median(total));
        put("pause_felt", "", "ns", "pause the running thread measured itself (median)", median(felt));
        put("pause_beyond", "safepoint.operation_overhead", "ns", "felt pause less Reaching and At safepoint: cleanup and waking the thread (difference of the medians)", median(felt) - median(reach) - median(at));
    }

    /** JFR's sampling period in the runs below (writeJfc). */
    static final long JFR_PERIOD_NS = 10_000_000;
    static final int JFR_DEPTH = 4;

    static void measureJFR(Path outDir, double perFrame) throws Exception {
        Path rec = outDir.resolve("jfr.jfr");
        List<String> out = child(List.of("-XX:StartFlightRecording=filename=" + rec + ",settings=" + outDir.resolve("p10.jfc"),
                "-XX:CompileCommand=quiet", "-XX:CompileCommand=dontinline,Calibrate::tiny"),
                "jfrspin", "" + JFR_DEPTH, "15");
        List<Double> g = new ArrayList<>();
        double cpuNs = 0, wallNs = 0;
        for (String l : out) {
            if (l.startsWith("GAP ")) {
                double v = Double.parseDouble(l.split(" ")[2]);
                if (v < 1_000_000) g.add(v);
            } else if (l.startsWith("SAMPLER")) {
                cpuNs = kv(l).get("cpu_ns");
                wallNs = kv(l).get("wall_ns");
            }
        }
        // JFR suspends the one running thread once a round, whether or not
        // the walk then succeeds (a pc outside Java code fails it, and the
        // round records no sample): the spinner's longest gaps, as many as
        // there were rounds, are the suspensions. Its other gaps (this
        // machine's interrupts, ~2000 a second of 5-100 us) are shorter.
        int rounds = (int) Math.round(wallNs / JFR_PERIOD_NS);
        int samples = countSamples(rec);
        Collections.sort(g, Collections.reverseOrder());
        List<Double> top = g.subList(0, Math.min(rounds, g.size()));
        double med = median(top);
        int frames = JFR_DEPTH + 2; // spinRec's frames, the lambda's and Thread.run
        System.out.printf(Locale.ROOT, "    jfr: %d rounds, %d samples of the spinner, %d gaps > 2 us, suspension median %.0f ns (shortest counted %.0f)%n",
                rounds, samples, g.size(), med, top.get(top.size() - 1));
        put("jfr_stop", "", "ns", "how long a JFR sample stops the sampled thread (median of the longest gaps, one per round)", med);
        put("jfr_suspend", "sampler:jfr.suspend_cost", "ns", "jfr_stop less the walk of its frames at jvmti_walk_per_frame", med - frames * perFrame);
        put("jfr_sampler_cpu", "", "ns", "JFR sampler thread's CPU per round (schedstat)", cpuNs / rounds);
        put("jfr_samples_per_round", "", "share", "rounds that recorded a sample of the spinner", samples / (double) rounds);
    }

    static int countSamples(Path rec) throws Exception {
        try (var f = new jdk.jfr.consumer.RecordingFile(rec)) {
            int n = 0;
            while (f.hasMoreEvents()) {
                var e = f.readEvent();
                if (e.getEventType().getName().equals("jdk.ExecutionSample")
                        && e.getThread("sampledThread") != null
                        && "spinner".equals(e.getThread("sampledThread").getJavaName())) n++;
            }
            return n;
        }
    }

    static void measureInterp() throws Exception {
        List<Double> ratios = new ArrayList<>();
        for (String k : new String[] {"intmix", "longmix", "field", "array"}) {
            double c = kv(last(child(List.of(), "kernel", k, "300000000"), "KERNEL")).get("ns_per_iter");
            double i = kv(last(child(List.of("-Xint"), "kernel", k, "300000000"), "KERNEL")).get("ns_per_iter");
            System.out.printf(Locale.ROOT, "    kernel %-8s compiled %.2f ns/iter, -Xint %.1f ns/iter: %.1fx%n", k, c, i, i / c);
            ratios.add(i / c);
        }
        double g = Math.exp(ratios.stream().mapToDouble(Math::log).average().orElse(Double.NaN));
        put("interp_factor", "sim.cost.interp_factor", "x", "-Xint ns/iteration over C2's, geometric mean of 4 kernels", g);
    }

    static void measureCompile(Path src) throws Exception {
        // Compiler threads stay alive (not removed when idle) so that their
        // CPU time can be read at the end.
        List<String> out = child(List.of("-XX:+CITime", "-XX:-UseDynamicNumberOfCompilerThreads"), "javac", src.toString(), "20");
        Pattern t4 = Pattern.compile("Tier4 \\{speed:\\s*([0-9.]+) bytes/s; standard:\\s*([0-9.]+) s, (\\d+) bytes, (\\d+) methods; osr:\\s*([0-9.]+) s, (\\d+) bytes, (\\d+) methods");
        double bytes = -1, wall = -1, cpu = -1;
        for (String l : out) {
            Matcher m = t4.matcher(l);
            if (m.find()) {
                bytes = Double.parseDouble(m.group(3)) + Double.parseDouble(m.group(6));
                wall = Double.parseDouble(m.group(2)) + Double.parseDouble(m.group(5));
                System.out.printf(Locale.ROOT, "    C2 (Tier4): %s + %s methods, %.0f bytes in %.3f s%n", m.group(4), m.group(7), bytes, wall);
            } else if (l.startsWith("C2CPU")) cpu = kv(l).get("ns");
        }
        if (bytes <= 0 || cpu <= 0) throw new IllegalStateException("no Tier4 line or C2 CPU time in the javac child's output");
        put("c2_ns_per_bytecode", "jit.compile_nanos_per_bytecode", "ns", "C2 compiler threads' CPU per bytecode compiled, inlined ones included (-XX:+CITime Tier4 bytes, javac compiling Calibrate.java)", cpu / bytes);
        put("c2_wall_ns_per_bytecode", "", "ns", "C2 elapsed time per bytecode (-XX:+CITime Tier4 speed)", wall * 1e9 / bytes);
    }

    /** THROW_DEPTHS are the depths (frames below the constructing method) measureThrow fits over. */
    static final int[] THROW_DEPTHS = {4, 32, 128, 512};

    /**
     * measureThrow fits the stack walk of a throwable's construction
     * (JVM_FillInStackTrace, in the VM): best ns per construction that
     * walks less one whose fillInStackTrace is overridden, over the frames
     * the walk passes (those it records plus the two fillInStackTrace
     * frames it skips), at each of THROW_DEPTHS.
     */
    static void measureThrow() throws Exception {
        List<double[]> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        for (int d : THROW_DEPTHS) {
            Map<String, Double> m = kv(last(child(List.of("-Xss16m"), "throwcost", "" + d, "3000"), "THROW"));
            double frames = m.get("frames") + 2, walk = m.get("walked") - m.get("unwalked");
            System.out.printf(Locale.ROOT, "    throw depth=%d frames=%.0f: walked %.0f ns, unwalked %.0f ns, walk %.0f ns%n", d, frames, m.get("walked"), m.get("unwalked"), walk);
            xs.add(new double[] {frames});
            ys.add(walk);
        }
        double[] b = fit(xs, ys, 1);
        put("throw_walk_fixed", "import:throw_walk_fixed", "ns", "intercept of a throwable's stack walk (construction with the walk less one without, fit over depth)", b[0]);
        put("throw_walk_per_frame", "import:throw_walk_per_frame", "ns", "a throwable's stack walk per frame walked (JVM_FillInStackTrace; fit over depth)", b[1]);
    }

    static String last(List<String> lines, String prefix) {
        String r = null;
        for (String l : lines) if (l.startsWith(prefix)) r = l;
        if (r == null) throw new IllegalStateException("no " + prefix + " line");
        return r;
    }

    static void all(Path outDir, int reps, Path src) throws Exception {
        java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        cp = System.getProperty("java.class.path");
        Files.createDirectories(outDir);
        writeJfc(outDir.resolve("p10.jfc"));
        // calibrate.only: the measurements to run, comma-separated (all when empty).
        Set<String> only = new HashSet<>();
        for (String o : System.getProperty("calibrate.only", "").split(",")) if (!o.isBlank()) only.add(o.trim());
        Set<String> known = Set.of("dump", "jvmti", "felt", "jfr", "interp", "compile", "throw");
        for (String o : only) if (!known.contains(o)) throw new IllegalArgumentException("calibrate.only: unknown measurement " + o + " (known: " + known + ")");
        for (int r = 1; r <= reps; r++) {
            System.out.println("## repetition " + r + " of " + reps);
            double perFrame = threadDumpPerFrame;
            if (only.isEmpty() || only.contains("dump")) measureDump();
            if (only.isEmpty() || only.contains("jvmti")) perFrame = measureJVMTI();
            if (only.isEmpty() || only.contains("felt")) measureFelt();
            if (only.isEmpty() || only.contains("jfr")) {
                if (!(perFrame > 0)) throw new IllegalArgumentException("calibrate.only: jfr needs jvmti or dump (its walk is costed per frame from them)");
                measureJFR(outDir, perFrame);
            }
            if (only.isEmpty() || only.contains("interp")) measureInterp();
            if (only.isEmpty() || only.contains("compile")) measureCompile(src);
            if (only.isEmpty() || only.contains("throw")) measureThrow();
        }
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(outDir.resolve("calibration.csv")))) {
            w.println("quantity,model_key,median,min,max,reps,unit,how");
            for (Q q : qs.values()) {
                List<Double> s = new ArrayList<>(q.reps);
                Collections.sort(s);
                w.printf(Locale.ROOT, "%s,%s,%.1f,%.1f,%.1f,%d,%s,\"%s\"%n", q.name, q.key, median(s), s.get(0), s.get(s.size() - 1), s.size(), q.unit, q.how);
            }
        }
        System.out.println("## wrote " + outDir.resolve("calibration.csv"));
    }

    /** The JDK's default.jfc with jdk.ExecutionSample every 10 ms and native sampling off. */
    static void writeJfc(Path to) throws Exception {
        Path def = Paths.get(System.getProperty("java.home"), "lib", "jfr", "default.jfc");
        String s = Files.readString(def);
        s = s.replaceAll("(control=\"method-sampling-java-interval\">)[^<]*<", "$110 ms<");
        s = s.replaceAll("(<event name=\"jdk.NativeMethodSample\">\\s*<setting name=\"enabled\"[^>]*>)true<", "$1false<");
        if (!s.contains(">10 ms<")) throw new IllegalStateException("could not set the sampling period in " + def);
        Files.writeString(to, s);
    }

    public static void main(String[] a) throws Exception {
        switch (a.length == 0 ? "" : a[0]) {
            case "hold": hold(Integer.parseInt(a[1]), Integer.parseInt(a[2]), Integer.parseInt(a[3])); break;
            case "dump": dump(Integer.parseInt(a[1]), Integer.parseInt(a[2]), Integer.parseInt(a[3])); break;
            case "felt": felt(Integer.parseInt(a[1])); break;
            case "jfrspin": jfrspin(Integer.parseInt(a[1]), Integer.parseInt(a[2])); break;
            case "backoff": backoff(Integer.parseInt(a[1])); break;
            case "kernel": kernel(a[1], Long.parseLong(a[2])); break;
            case "javac": javac(a[1], Integer.parseInt(a[2])); break;
            case "throwcost": throwcost(Integer.parseInt(a[1]), Integer.parseInt(a[2])); break;
            case "throwchain": throwchain(Integer.parseInt(a[1]), Integer.parseInt(a[2])); break;
            case "jfrstub": jfrstub(a[1], Integer.parseInt(a[2])); break;
            case "all": all(Paths.get(a[1]), a.length > 2 ? Integer.parseInt(a[2]) : 3, Paths.get(a.length > 3 ? a[3] : "Calibrate.java")); break;
            default:
                System.err.println("usage: java Calibrate all OUTDIR [REPS [SRC.java]] | dump T D N | hold T D MS | felt N | jfrspin D SECS | backoff N | kernel NAME NS | javac SRC SECS | throwcost D MS | throwchain D MS | jfrstub KERNEL SECS");
                System.exit(2);
        }
    }
}
