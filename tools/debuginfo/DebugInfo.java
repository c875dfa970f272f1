// DebugInfo: where do JFR's execution samples land in C2-compiled code, with
// and without -XX:+DebugNonSafepoints? Each mode spins in one method for the
// given seconds; run.sh records it with JFR and counts the top frames
// (method and line). Line numbers below are part of the experiment: run.sh's
// README table refers to them.
public class DebugInfo {
    static long a, b, c, d, e, f, g, h;
    static volatile long sink;

    // leaf: hot() is a poll-free leaf (arithmetic only), inlined into the
    // counted loop of leafLoop().
    static long hot(long x) {
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >>> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >>> 31;
        return x;
    }

    static long leafLoop(int n, long s) {
        sink = s;
        for (int i = 0; i < n; i++) {
            s += hot(s + i);
        }
        sink = s;
        return s;
    }

    // fields: a long run of static field updates, then a call that is not
    // inlined (-XX:CompileCommand=dontinline,DebugInfo::callee).
    static void callee() { sink = a; }

    static void fields(long x) {
        a = a * 31 + x;
        b = b * 31 + a;
        c = c * 31 + b;
        d = d * 31 + c;
        e = e * 31 + d;
        f = f * 31 + e;
        g = g * 31 + f;
        h = h * 31 + g;
        a ^= h >>> 7; b ^= a >>> 7; c ^= b >>> 7; d ^= c >>> 7;
        e ^= d >>> 7; f ^= e >>> 7; g ^= f >>> 7; h ^= g >>> 7;
        callee();
    }

    // counted: a counted loop of arithmetic, polled (strip mined) or not
    // (-XX:-UseCountedLoopSafepoints), between two not-inlined calls.
    static long counted(int n, long s) {
        callee();
        for (int i = 0; i < n; i++) {
            s = s * 6364136223846793005L + i;
            s ^= s >>> 29;
        }
        callee();
        return s;
    }

    // loopOnly: a counted loop alone in a method that is not inlined
    // (-XX:CompileCommand=dontinline,DebugInfo::loopOnly): with
    // -XX:-UseCountedLoopSafepoints nothing in line records a PcDesc.
    static long loopOnly(int n, long s) {
        for (int i = 0; i < n; i++) {
            s = s * 6364136223846793005L + i;
            s ^= s >>> 29;
        }
        return s;
    }

    // standalone: hot() compiled on its own (-XX:CompileCommand=dontinline,
    // DebugInfo::hot), called from main's loop: a method without a safepoint
    // or a call, so without a single PcDesc.

    public static void main(String[] args) {
        String mode = args[0];
        long until = System.nanoTime() + (long) (Double.parseDouble(args[1]) * 1e9);
        long s = 1;
        while (System.nanoTime() < until) {
            switch (mode) {
                case "leaf": s = leafLoop(1_000_000, s); break;
                case "fields": for (int i = 0; i < 100_000; i++) fields(i); break;
                case "counted": s = counted(1_000_000, s); break;
                case "loopOnly": s = loopOnly(1_000_000, s); break;
                case "standalone": for (int i = 0; i < 1_000_000; i++) s = hot(s + i); break;
                case "alloc": for (int i = 0; i < 100_000; i++) s = two(s); break;
                case "allocTrap": for (int i = 0; i < 100_000; i++) s = allocTrap(s, i & 63); break;
                case "trapRoot": for (int i = 0; i < 100_000; i++) s = trapRoot(s, i & 31); break;
                case "trapCallee": for (int i = 0; i < 100_000; i++) s = trapCallee(s, i & 31); break;
                default: throw new IllegalArgumentException(mode);
            }
        }
        sink = s;
    }

    // alloc: two allocations that escape, then callee() (not inlined), then
    // arithmetic past that last call (-XX:CompileCommand=dontinline,
    // DebugInfo::two). C2 lays the allocations' slow paths out of line after
    // the return, in their order.
    static final class Box { long v; Box(long v) { this.v = v; } }
    static final class Pair { long a, b; Pair(long a, long b) { this.a = a; this.b = b; } }
    static volatile Object box, pair;

    static long two(long x) {
        x = hot(x);
        box = new Box(x);
        x = hot(x);
        pair = new Pair(x, x + 1);
        callee();
        for (int k = 0; k < 4; k++) x = hot(x);
        return x;
    }

    // allocTrap: a range-checked array load (an uncommon trap) before an
    // allocation, then callee() and arithmetic past it (-XX:CompileCommand=
    // dontinline,DebugInfo::allocTrap): the allocation's slow path comes
    // before the trap after the return.
    static int[] table = new int[64];

    static long allocTrap(long x, int i) {
        x += table[i];
        x = hot(x);
        box = new Box(x);
        callee();
        for (int k = 0; k < 4; k++) x = hot(x);
        return x;
    }

    // trapRoot and trapCallee: a range check of the method's own and one
    // in get(), inlined, in either order, then callee() and arithmetic
    // past it (-XX:CompileCommand=dontinline,DebugInfo::trapRoot and
    // ::trapCallee). C2 lays the traps out after the return in code order.
    static int get(int i) {
        return table[i];
    }

    static long trapRoot(long x, int i) {
        x += table[(i + 1) & 63 | i];
        x = hot(x);
        x += get(i);
        callee();
        for (int k = 0; k < 4; k++) x = hot(x);
        return x;
    }

    static long trapCallee(long x, int i) {
        x += get(i);
        x = hot(x);
        x += table[(i + 1) & 63 | i];
        callee();
        for (int k = 0; k < 4; k++) x = hot(x);
        return x;
    }
}
