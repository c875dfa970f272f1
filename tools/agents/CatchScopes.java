import java.util.Locale;

/**
 * CatchScopes MS: what one exception caught by a compiled catcher costs
 * as a function of the scopes inlined into the catcher's frame at the
 * call it enters through — the interpreter frames a deoptimization of
 * that frame unpacks (Deoptimization::fetch_unroll_info, unpack_frames),
 * and the interpreted frames the exception then unwinds. catchK calls
 * aK, which calls a(K-1), ... a0, which calls thrower: the a's are
 * inlined into catchK (-XX:CompileCommand=inline,CatchScopes::a*),
 * catchK and thrower are not (dontinline), so each throw leaves
 * thrower's compiled frame and enters catchK's at a0's call, K + 2
 * scopes deep (catchK, aK ... a0). run.sh runs it under each capability
 * set beside CatchCost. Prints, for K = 0, 2, 4, 8 and 12, the best ns
 * per thrown and unthrown call over batches for MS ms each, after a
 * warm-up that compiles every path.
 */
public final class CatchScopes {
    static final class Fast extends RuntimeException {
        Fast() { super(null, null, false, false); }
    }

    static final Fast EXCEPTION = new Fast();
    static int sink;

    static int thrower(int i, boolean raise) {
        if (raise) throw EXCEPTION;
        return i;
    }

    static int a0(int i, boolean r) { return thrower(i, r) + 1; }
    static int a1(int i, boolean r) { return a0(i, r) + 1; }
    static int a2(int i, boolean r) { return a1(i, r) + 1; }
    static int a3(int i, boolean r) { return a2(i, r) + 1; }
    static int a4(int i, boolean r) { return a3(i, r) + 1; }
    static int a5(int i, boolean r) { return a4(i, r) + 1; }
    static int a6(int i, boolean r) { return a5(i, r) + 1; }
    static int a7(int i, boolean r) { return a6(i, r) + 1; }
    static int a8(int i, boolean r) { return a7(i, r) + 1; }
    static int a9(int i, boolean r) { return a8(i, r) + 1; }
    static int a10(int i, boolean r) { return a9(i, r) + 1; }
    static int a11(int i, boolean r) { return a10(i, r) + 1; }
    static int a12(int i, boolean r) { return a11(i, r) + 1; }

    static int catch0(int i, boolean r) { try { return a0(i, r); } catch (Fast e) { return -i; } }
    static int catch2(int i, boolean r) { try { return a2(i, r); } catch (Fast e) { return -i; } }
    static int catch4(int i, boolean r) { try { return a4(i, r); } catch (Fast e) { return -i; } }
    static int catch8(int i, boolean r) { try { return a8(i, r); } catch (Fast e) { return -i; } }
    static int catch12(int i, boolean r) { try { return a12(i, r); } catch (Fast e) { return -i; } }

    static int call(int k, int i, boolean r) {
        switch (k) {
            case 0: return catch0(i, r);
            case 2: return catch2(i, r);
            case 4: return catch4(i, r);
            case 8: return catch8(i, r);
            default: return catch12(i, r);
        }
    }

    static long batch(int k, int n, boolean raise) {
        long t0 = System.nanoTime();
        int s = 0;
        for (int i = 0; i < n; i++) s += call(k, i, raise);
        sink += s;
        return System.nanoTime() - t0;
    }

    public static void main(String[] args) {
        int ms = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int n = 10_000;
        int[] ks = {0, 2, 4, 8, 12};
        for (int w = 0; w < 50; w++) {
            for (int k : ks) { batch(k, n, true); batch(k, n, false); }
        }
        for (int k : ks) {
            double thrown = Double.MAX_VALUE, plain = Double.MAX_VALUE;
            long end = System.nanoTime() + ms * 1_000_000L;
            while (System.nanoTime() < end) {
                thrown = Math.min(thrown, batch(k, n, true) / (double) n);
                plain = Math.min(plain, batch(k, n, false) / (double) n);
            }
            System.out.printf(Locale.ROOT, "SCOPES k=%d scopes=%d thrown=%.1f plain=%.1f per_catch=%.1f%n", k, k + 2, thrown, plain, thrown - plain);
        }
    }
}
