// KeptLocals: what an agent holding can_access_local_variables costs a
// call from compiled code when the caller has locals that are dead across
// it, which C2 then keeps live (ciMethod::liveness_at_bci). work16 makes
// 16 longs, uses them once, then calls callee (not inlined:
// -XX:CompileCommand=dontinline,KeptLocals::callee) 1000 times in a loop;
// work0 is the same loop without them. Prints the best ns per call over
// batches of 1000 loops for the given seconds.
//
//   java -agentpath:libcaps.so=SET -XX:CompileCommand=dontinline,KeptLocals::callee KeptLocals 0|16 SECONDS
public class KeptLocals {
    static volatile long sink;
    static long callee(long x) { return x * 31 + 7; }

    // L values computed first and used only at the start: dead across the
    // loop's calls unless an agent holds can_access_local_variables.
    static long work16(long s, int n) {
        long a = s + 1, b = a * 3, c = b ^ 5, d = c + 7, e = d * 11, f = e ^ 13, g = f + 17, h = g * 19;
        long i = h ^ 23, j = i + 29, k = j * 31, l = k ^ 37, m = l + 41, o = m * 43, p = o ^ 47, q = p + 53;
        long acc = a + b + c + d + e + f + g + h + i + j + k + l + m + o + p + q;
        for (int t = 0; t < n; t++) acc = callee(acc + t);
        return acc;
    }

    static long work0(long s, int n) {
        long acc = s;
        for (int t = 0; t < n; t++) acc = callee(acc + t);
        return acc;
    }

    public static void main(String[] args) {
        boolean many = args[0].equals("16");
        long until = System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L;
        long s = 1, calls = 0, best = Long.MAX_VALUE;
        while (System.nanoTime() < until) {
            long t0 = System.nanoTime();
            for (int r = 0; r < 1000; r++) s = many ? work16(s, 1000) : work0(s, 1000);
            long dt = System.nanoTime() - t0;
            best = Math.min(best, dt);
        }
        sink = s;
        System.out.printf("L=%s best %.3f ns/call%n", args[0], best / 1e6);
    }
}
