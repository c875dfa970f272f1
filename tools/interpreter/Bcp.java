public class Bcp {
    static long sink;

    static long loop(long n) {
        long x = 1;
        for (long i = 0; i < n; i++) {
            x = x * 31 + i;
            x ^= x >>> 7;
            x += i & 3;
        }
        return x;
    }

    static int f(int k) { return k + 1; }

    static long withCall(long n) {
        long x = 1;
        for (long i = 0; i < n; i++) {
            x = x * 31 + i;
            x ^= x >>> 7;
            x += f((int) i);
            x += i & 3;
        }
        return x;
    }

    public static void main(String[] a) throws Exception {
        long end = System.nanoTime() + 4_000_000_000L;
        while (System.nanoTime() < end) sink += loop(1_000_000);
        end = System.nanoTime() + 4_000_000_000L;
        while (System.nanoTime() < end) sink += withCall(1_000_000);
        System.out.println(sink);
    }
}
