// Fidelity.java: the micro-programs of the fidelity harness (README.md).
// One class a mode, each with its own main; run as `java -cp DIR CLASS`.
// Every program runs until it is ended (run.sh ends the JVM once the
// profile is written). Each has a twin in workloads/fidelity/ with the
// same classes, methods, threads and structure; keep them in step.
// A "unit" of work is 16 steps of x = (x ^ (x << 13) ^ k) * C: a
// dependent chain that C2 cannot fold into fewer operations, as it folds
// a chain of multiply-adds by constants into one.

// Mytkowicz, Diwan, Hauswirth and Sweeney, PLDI 2010, Listing 1, verbatim
// but for main, which the listing leaves out: cold() again and again.
class HotCold {
    static int[] array = new int[1024];
    public static void hot (int i) {
        int ii = (i + 10 * 100) % array.length;
        int jj = (ii + i / 33) % array.length;
        if (ii < 0) ii = -ii;
        if (jj < 0) jj = -jj;
        array[ii] = array[jj] + 1;
    }
    public static void cold () {
        for (int i = 0; i < Integer.MAX_VALUE; i++)
            hot(i);
    }
    public static void main(String[] args) {
        while (true)
            cold();
    }
}

// Arnold and Grove, CGO 2005, Figure 1 (workloads' callpair): each
// iteration of M runs a long stretch of its own arithmetic with no call or
// poll, then calls call_1 and call_2, which the JIT inlines. M's stretch
// is eight units, each callee one unit of the same code: 80/10/10 by
// construction.
class CallEdges {
    static long sink;
    static long call_1(long x) {
        for (int k = 0; k < 16; k++) x = (x ^ (x << 13) ^ k) * 0x9E3779B97F4A7C15L;
        return x;
    }
    static long call_2(long x) {
        for (int k = 0; k < 16; k++) x = (x ^ (x << 13) ^ k) * 0x9E3779B97F4A7C15L;
        return x;
    }
    static void M() {
        long x = 1;
        for (long i = 0; ; i++) {
            for (int k = 0; k < 128; k++) x = (x ^ (x << 13) ^ k) * 0x9E3779B97F4A7C15L; // eight units
            x = call_1(x);
            x = call_2(x);
            if ((i & 0xFFFF) == 0) sink = x;
        }
    }
    public static void main(String[] args) {
        M();
    }
}

// A thread that blocks half the time: main sleeps 5 ms in pause(), then
// computes 5 ms in compute() (until System.nanoTime, read every 1000
// steps, says so), again and again; thread spinner computes all the
// time. CPU-time samplers should
// give main a third of the samples, wall-clock ones half, with half of
// main's in pause().
class BlockHalf {
    static volatile long sink;
    static void pause() throws InterruptedException {
        Thread.sleep(5);
    }
    static void compute(long nanos) {
        long end = System.nanoTime() + nanos;
        long x = 1;
        while (System.nanoTime() < end)
            for (int k = 0; k < 1000; k++) x = (x ^ (x << 13) ^ k) * 0x9E3779B97F4A7C15L;
        sink = x;
    }
    static void spin() {
        while (true) compute(5_000_000L);
    }
    public static void main(String[] args) throws InterruptedException {
        Thread s = new Thread(BlockHalf::spin, "spinner");
        s.start();
        while (true) {
            pause();
            compute(5_000_000L);
        }
    }
}

// Many more busy threads than CPUs: six threads a-0 … a-5 run spinA
// (10 000 steps a call) and two, b-0 and b-1, spinB, all the time; main
// starts them and ends. On 2 CPUs each thread gets an eighth of the CPU:
// spinA three quarters of it, spinB a quarter.
class Oversub {
    static volatile long sink;
    static long spinA(long x) {
        for (int k = 0; k < 10000; k++) x = (x ^ (x << 13) ^ k) * 0x9E3779B97F4A7C15L;
        return x;
    }
    static long spinB(long x) {
        for (int k = 0; k < 10000; k++) x = (x ^ (x << 13) ^ k) * 0x9E3779B97F4A7C15L;
        return x;
    }
    static void runA() {
        long x = 1;
        while (true) { x = spinA(x); sink = x; }
    }
    static void runB() {
        long x = 1;
        while (true) { x = spinB(x); sink = x; }
    }
    public static void main(String[] args) {
        for (int i = 0; i < 6; i++) new Thread(Oversub::runA, "a-" + i).start();
        for (int i = 0; i < 2; i++) new Thread(Oversub::runB, "b-" + i).start();
    }
}

// A method that returns between a sampler's request and the next poll:
// caller() loops (a long induction variable: not a counted loop, so the
// loop keeps its poll) over a unit of its own arithmetic and a call of
// callee(), a unit of the same arithmetic that is not inlined
// (-XX:CompileCommand=dontinline,ReturnPoll::callee, run.sh) and has no
// poll but its return. Half and half by construction.
class ReturnPoll {
    static volatile long sink;
    static long callee(long x) {
        for (int k = 0; k < 16; k++) x = (x ^ (x << 13) ^ k) * 0x9E3779B97F4A7C15L;
        return x;
    }
    static void caller() {
        long x = 1;
        for (long i = 0; ; i++) {
            for (int k = 0; k < 16; k++) x = (x ^ (x << 13) ^ k) * 0x9E3779B97F4A7C15L;
            x = callee(x);
            if ((i & 0xFFFF) == 0) sink = x;
        }
    }
    public static void main(String[] args) {
        caller();
    }
}

// loop() runs a unit of arithmetic and calls copy(), not inlined
// (-XX:CompileCommand=dontinline,StubCopy::copy, run.sh), which stores
// one element and copies 512 ints with System.arraycopy: C2 calls
// StubRoutines' arraycopy stub for it, where the thread has no Java frame.
// On this project's machine a unit took 29.4 ns and a copy() 26.2 ns
// (StubCopy's timing mode: java StubCopy time), so copy() holds 47 % of
// the time, nearly all of it in the stub.
class StubCopy {
    static final int N = 512;
    static final int[] a = new int[N], b = new int[N];
    static volatile long sink;
    static long unit(long x) {
        for (int k = 0; k < 16; k++) x = (x ^ (x << 13) ^ k) * 0x9E3779B97F4A7C15L;
        return x;
    }
    static long copy(long x) {
        a[(int) x & (N - 1)] = (int) x;
        System.arraycopy(a, 0, b, 0, N);
        return x + b[(int) (x >>> 7) & (N - 1)];
    }
    static void loop() {
        long x = 1;
        for (long i = 0; ; i++) {
            for (int k = 0; k < 16; k++) x = (x ^ (x << 13) ^ k) * 0x9E3779B97F4A7C15L;
            x = copy(x);
            if ((i & 0xFFFF) == 0) sink = x;
        }
    }
    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("time")) {
            // 20 million units, then 20 million copies, five times: the
            // last round's ns each.
            for (int rep = 0; rep < 5; rep++) {
                long x = 1, t0 = System.nanoTime();
                for (int i = 0; i < 20_000_000; i++) x = unit(x);
                long t1 = System.nanoTime();
                for (int i = 0; i < 20_000_000; i++) x = copy(x);
                long t2 = System.nanoTime();
                sink = x;
                if (rep == 4) System.out.printf("unit %.1f ns, copy %.1f ns%n", (t1 - t0) / 2e7, (t2 - t1) / 2e7);
            }
            return;
        }
        loop();
    }
}

// Deep recursion: recurse(3000) does the same work (256 steps) at every
// level on the way down, so the samples spread evenly over depths 1-3000,
// beyond async-profiler's default jstackdepth (2048) for a third of them
// and JFR's default stackdepth (64) for nearly all.
class DeepRec {
    static final int DEPTH = 3000;
    static volatile long sink;
    static long recurse(int d, long x) {
        for (int k = 0; k < 256; k++) x = (x ^ (x << 13) ^ k) * 0x9E3779B97F4A7C15L;
        if (d > 1) x = recurse(d - 1, x);
        return x;
    }
    public static void main(String[] args) {
        long x = 1;
        while (true) { x = recurse(DEPTH, x); sink = x; }
    }
}
