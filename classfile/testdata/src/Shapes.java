// Shapes exercises the class-file features the reader decodes: virtual,
// interface, static, special and dynamic (lambda) calls; nested, do-while
// and labelled loops; table and lookup switches; exception handlers;
// wide local indices; long, double and non-ASCII constants; recursion.
import java.util.function.IntUnaryOperator;

public class Shapes {
    interface Shape { double area(); }

    static final class Square implements Shape {
        final double side;
        Square(double side) { this.side = side; }
        public double area() { return side * side; }
    }

    static final class Circle implements Shape {
        final double r;
        Circle(double r) { this.r = r; }
        public double area() { return Math.PI * r * r; }
    }

    static final String NAME = "Fläche \uD83D\uDE00 \u0000";
    static final long BIG = 1L << 40;
    static final double HALF = 0.5;

    static double total(Shape[] shapes, int rounds) {
        double sum = 0;
        for (int r = 0; r < rounds; r++) {
            for (Shape s : shapes) {
                sum += s.area();
            }
        }
        return sum;
    }

    static int classify(int x) {
        switch (x) {
            case 0: return 10;
            case 1: return 11;
            case 2: return 12;
            case 3: return 13;
            default: break;
        }
        switch (x) {
            case 100: return 1;
            case 10000: return 2;
            case -7: return 3;
            default: return 0;
        }
    }

    static int collatz(long n) {
        int steps = 0;
        do {
            n = (n % 2 == 0) ? n / 2 : 3 * n + 1;
            steps++;
        } while (n != 1);
        return steps;
    }

    static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

    static int guarded(int[] a, int i) {
        try {
            return a[i];
        } catch (ArrayIndexOutOfBoundsException e) {
            return -1;
        } finally {
            a[0]++;
        }
    }

    static int search(int[][] grid, int want) {
        outer:
        for (int i = 0; i < grid.length; i++) {
            for (int j = 0; j < grid[i].length; j++) {
                if (grid[i][j] == want) break outer;
                if (grid[i][j] < 0) continue outer;
            }
        }
        return 0;
    }

    static int manyLocals(int a) {
        int v0 = a, v1 = a + 1, v2 = a + 2, v3 = a + 3, v4 = a + 4, v5 = a + 5, v6 = a + 6, v7 = a + 7;
        long w0 = v0, w1 = v1, w2 = v2, w3 = v3, w4 = v4, w5 = v5, w6 = v6, w7 = v7;
        double d0 = w0, d1 = w1, d2 = w2, d3 = w3, d4 = w4, d5 = w5, d6 = w6, d7 = w7;
        long x0 = w0 * 2, x1 = w1 * 2, x2 = w2 * 2, x3 = w3 * 2, x4 = w4 * 2, x5 = w5 * 2, x6 = w6 * 2, x7 = w7 * 2;
        double y0 = d0 * 2, y1 = d1 * 2, y2 = d2 * 2, y3 = d3 * 2, y4 = d4 * 2, y5 = d5 * 2, y6 = d6 * 2, y7 = d7 * 2;
        long z0 = x0 + x1, z1 = x2 + x3, z2 = x4 + x5, z3 = x6 + x7, z4 = z0 + z1, z5 = z2 + z3, z6 = z4 + z5, z7 = z6 * 3;
        double q0 = y0 + y1, q1 = y2 + y3, q2 = y4 + y5, q3 = y6 + y7, q4 = q0 + q1, q5 = q2 + q3, q6 = q4 + q5, q7 = q6 * 3;
        long e0 = z7 + 1, e1 = e0 + 1, e2 = e1 + 1, e3 = e2 + 1, e4 = e3 + 1, e5 = e4 + 1, e6 = e5 + 1, e7 = e6 + 1;
        double f0 = q7 + 1, f1 = f0 + 1, f2 = f1 + 1, f3 = f2 + 1, f4 = f3 + 1, f5 = f4 + 1, f6 = f5 + 1, f7 = f6 + 1;
        long g0 = e7 + 1, g1 = g0 + 1, g2 = g1 + 1, g3 = g2 + 1, g4 = g3 + 1, g5 = g4 + 1, g6 = g5 + 1, g7 = g6 + 1;
        double h0 = f7 + 1, h1 = h0 + 1, h2 = h1 + 1, h3 = h2 + 1, h4 = h3 + 1, h5 = h4 + 1, h6 = h5 + 1, h7 = h6 + 1;
        long k0 = g7 + 1, k1 = k0 + 1, k2 = k1 + 1, k3 = k2 + 1, k4 = k3 + 1, k5 = k4 + 1, k6 = k5 + 1, k7 = k6 + 1;
        double m0 = h7 + 1, m1 = m0 + 1, m2 = m1 + 1, m3 = m2 + 1, m4 = m3 + 1, m5 = m4 + 1, m6 = m5 + 1, m7 = m6 + 1;
        long n0 = k7 + 1, n1 = n0 + 1, n2 = n1 + 1, n3 = n2 + 1, n4 = n3 + 1, n5 = n4 + 1, n6 = n5 + 1, n7 = n6 + 1;
        double o0 = m7 + 1, o1 = o0 + 1, o2 = o1 + 1, o3 = o2 + 1, o4 = o3 + 1, o5 = o4 + 1, o6 = o5 + 1, o7 = o6 + 1;
        long p0 = n7 + 1, p1 = p0 + 1, p2 = p1 + 1, p3 = p2 + 1, p4 = p3 + 1, p5 = p4 + 1, p6 = p5 + 1, p7 = p6 + 1;
        double r0 = o7 + 1, r1 = r0 + 1, r2 = r1 + 1, r3 = r2 + 1, r4 = r3 + 1, r5 = r4 + 1, r6 = r5 + 1, r7 = r6 + 1;
        long s0 = p7 + 1, s1 = s0 + 1, s2 = s1 + 1, s3 = s2 + 1, s4 = s3 + 1, s5 = s4 + 1, s6 = s5 + 1, s7 = s6 + 1;
        double t0 = r7 + 1, t1 = t0 + 1, t2 = t1 + 1, t3 = t2 + 1, t4 = t3 + 1, t5 = t4 + 1, t6 = t5 + 1, t7 = t6 + 1;
        long u0 = s7 + 1, u1 = u0 + 1, u2 = u1 + 1, u3 = u2 + 1, u4 = u3 + 1, u5 = u4 + 1, u6 = u5 + 1, u7 = u6 + 1;
        double vv0 = t7 + 1, vv1 = vv0 + 1, vv2 = vv1 + 1, vv3 = vv2 + 1, vv4 = vv3 + 1, vv5 = vv4 + 1, vv6 = vv5 + 1, vv7 = vv6 + 1;
        long aa0 = u7 + 1, aa1 = aa0 + 1, aa2 = aa1 + 1, aa3 = aa2 + 1, aa4 = aa3 + 1, aa5 = aa4 + 1, aa6 = aa5 + 1, aa7 = aa6 + 1;
        double ab0 = vv7 + 1, ab1 = ab0 + 1, ab2 = ab1 + 1, ab3 = ab2 + 1, ab4 = ab3 + 1, ab5 = ab4 + 1, ab6 = ab5 + 1, ab7 = ab6 + 1;
        long ac0 = aa7 + 1, ac1 = ac0 + 1, ac2 = ac1 + 1, ac3 = ac2 + 1, ac4 = ac3 + 1, ac5 = ac4 + 1, ac6 = ac5 + 1, ac7 = ac6 + 1;
        double ad0 = ab7 + 1, ad1 = ad0 + 1, ad2 = ad1 + 1, ad3 = ad2 + 1, ad4 = ad3 + 1, ad5 = ad4 + 1, ad6 = ad5 + 1, ad7 = ad6 + 1;
        long ae0 = ac7 + 1, ae1 = ae0 + 1, ae2 = ae1 + 1, ae3 = ae2 + 1, ae4 = ae3 + 1, ae5 = ae4 + 1, ae6 = ae5 + 1, ae7 = ae6 + 1;
        double af0 = ad7 + 1, af1 = af0 + 1, af2 = af1 + 1, af3 = af2 + 1, af4 = af3 + 1, af5 = af4 + 1, af6 = af5 + 1, af7 = af6 + 1;
        for (int i = 0; i < 3; i++) { ae7 += i; af7 += i; }
        return (int) (ae7 + af7);
    }

    public static void main(String[] args) {
        Shape[] shapes = { new Square(2), new Circle(1) };
        IntUnaryOperator twice = x -> 2 * x;
        System.out.println(NAME + total(shapes, 3) + classify(2) + collatz(27) + fib(10)
                + guarded(new int[3], 5) + search(new int[][] {{1, 2}, {3}}, 3) + manyLocals(1)
                + twice.applyAsInt(BIG > 0 ? 4 : 5) + HALF);
    }
}
