// TimerJitter: measures how far real periodic "ticks" land from a nominal
// fixed-interval grid. See README.md in this directory; driven by run.sh.
//
// Sub-commands:
//   spin  <threads> <seconds>
//         CPU-bound workload (threads spinning through small methods) to be
//         sampled by JFR's method sampler.
//   sleep <sleep|park> <periodMs> <iters> <busyThreads> <label>
//         A Java thread looping Thread.sleep(periodMs) or
//         LockSupport.parkNanos(periodMs*1e6), recording System.nanoTime()
//         after every wake-up, while <busyThreads> other threads spin.
//   jfr   <recording.jfr> <periodMs> <label>
//         Reads jdk.ExecutionSample events (jdk.jfr.consumer API, same data as
//         `jfr print --json --events jdk.ExecutionSample`), groups them into
//         sampling rounds and reports the round-to-round intervals.
//   ts    <file> <column> <periodUs> <label>
//         Analyses a file of timestamps in ns, one tick per line, taking the
//         given 0-based column (itimer.c writes "monotonic_ns cpu_ns").
//
// Every analysis prints one block of statistics (all in microseconds):
//   interval      mean interval between consecutive ticks
//   dev           interval - nominal period: mean, sd, p1 p5 p50 p95 p99, min, max
//   gaps          intervals > 1.5 periods (missed ticks), excluded from dev
//   drift         slope of (t_i - t_0 - k_i*P) against k_i, us per tick.
//                 ~= mean dev for a sleep loop (errors accumulate);
//                 ~= 0 for a timer re-armed on a grid.
//   grid-lateness for grid timers: (t_i - t_0 - k_i*P) - min over i: mean, sd,
//                 quantiles (how late each tick is beyond the earliest one)
//   lateness      for the monotonic timer, whose file gives start_ns (when it was
//                 armed): t_i - start - k*P, each tick's time past its due
//                 instant: mean, sd, quantiles
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

public class TimerJitter {
    static volatile long sink;
    static volatile boolean stop;

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "spin": spin(Integer.parseInt(args[1]), Integer.parseInt(args[2])); break;
            case "sleep": sleep(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                    Integer.parseInt(args[4]), args[5]); break;
            case "jfr": jfr(Path.of(args[1]), Integer.parseInt(args[2]), args[3]); break;
            case "ts": ts(Path.of(args[1]), Integer.parseInt(args[2]), Double.parseDouble(args[3]), args[4]); break;
            default: throw new IllegalArgumentException(args[0]);
        }
    }

    // ---- workloads -------------------------------------------------------

    static long leaf(long x) { return x * 6364136223846793005L + 1442695040888963407L; }
    static long mid(long x) { return leaf(x) ^ (leaf(x >>> 7) >>> 3); }
    static long top(long x) { for (int i = 0; i < 64; i++) x = mid(x); return x; }

    static Thread[] startSpinners(int n) {
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            final long seed = i + 1;
            ts[i] = new Thread(() -> {
                long x = seed;
                while (!stop) x = top(x);
                sink += x;
            }, "spinner-" + i);
            ts[i].setDaemon(true);
            ts[i].start();
        }
        return ts;
    }

    static void spin(int threads, int seconds) throws InterruptedException {
        Thread[] ts = startSpinners(threads);
        Thread.sleep(seconds * 1000L);
        stop = true;
        for (Thread t : ts) t.join();
    }

    static void sleep(String how, int periodMs, int iters, int busy, String label) throws Exception {
        Thread[] spinners = startSpinners(busy);
        Thread.sleep(500); // let spinners get JIT-compiled and running
        long[] t = new long[iters + 1];
        long periodNs = periodMs * 1_000_000L;
        t[0] = System.nanoTime();
        for (int i = 1; i <= iters; i++) {
            if (how.equals("sleep")) Thread.sleep(periodMs);
            else LockSupport.parkNanos(periodNs);
            t[i] = System.nanoTime();
        }
        stop = true;
        for (Thread s : spinners) s.join();
        analyse(label, t, periodNs / 1000.0);
    }

    // ---- JFR -------------------------------------------------------------

    static void jfr(Path file, int periodMs, String label) throws IOException {
        List<Long> starts = new ArrayList<>();
        try (RecordingFile rf = new RecordingFile(file)) {
            while (rf.hasMoreEvents()) {
                RecordedEvent e = rf.readEvent();
                if (!e.getEventType().getName().equals("jdk.ExecutionSample")) continue;
                Instant s = e.getStartTime();
                starts.add(s.getEpochSecond() * 1_000_000_000L + s.getNano());
            }
        }
        long[] all = starts.stream().mapToLong(Long::longValue).sorted().toArray();
        // A sampling round suspends up to 5 threads one after another within
        // microseconds; samples closer than period/4 to the round's first
        // sample belong to the same round. The round's time is its first sample.
        long periodNs = periodMs * 1_000_000L;
        List<Long> rounds = new ArrayList<>();
        List<Long> roundSpan = new ArrayList<>();
        long roundStart = Long.MIN_VALUE, last = 0;
        int multi = 0;
        for (long s : all) {
            if (roundStart != Long.MIN_VALUE && s - roundStart < periodNs / 4) { last = s; continue; }
            if (roundStart != Long.MIN_VALUE && last > roundStart) { roundSpan.add(last - roundStart); multi++; }
            rounds.add(s);
            roundStart = s;
            last = s;
        }
        System.out.printf("%s: %d ExecutionSample events in %d rounds%n", label, all.length, rounds.size());
        if (!roundSpan.isEmpty()) {
            double[] sp = roundSpan.stream().mapToDouble(v -> v / 1000.0).sorted().toArray();
            System.out.printf("  within-round spread first->last sample (%d multi-sample rounds): p50 %.1f  p95 %.1f  max %.1f us%n",
                    multi, q(sp, .5), q(sp, .95), sp[sp.length - 1]);
        }
        // Drop the first and last second (recording start/stop, JIT warm-up).
        long[] r = rounds.stream().mapToLong(Long::longValue).toArray();
        int from = 0, to = r.length;
        while (from < r.length && r[from] - r[0] < 1_000_000_000L) from++;
        while (to > from && r[r.length - 1] - r[to - 1] < 1_000_000_000L) to--;
        analyse(label, Arrays.copyOfRange(r, from, to), periodNs / 1000.0);
    }

    // ---- raw timestamps (from itimer.c) ----------------------------------

    static void ts(Path file, int col, double periodUs, String label) throws IOException {
        List<Long> v = new ArrayList<>();
        long start = -1;
        try (BufferedReader br = Files.newBufferedReader(file)) {
            for (String line; (line = br.readLine()) != null; ) {
                line = line.trim();
                if (line.startsWith("#")) {
                    for (String f : line.split("\\s+")) {
                        if (f.startsWith("start_ns=")) start = Long.parseLong(f.substring(9));
                    }
                } else if (!line.isEmpty()) {
                    v.add(Long.parseLong(line.split("\\s+")[col]));
                }
            }
        }
        long[] t = v.stream().mapToLong(Long::longValue).toArray();
        analyse(label, t, periodUs);
        if (start >= 0 && col == 0 && label.contains("monotonic")) lateness(t, start, periodUs);
    }

    // lateness: a wall-clock timer armed at start is due at start + k*P; each
    // tick's lateness is its time past the last due instant (a tick later than
    // a whole period is an overrun: the kernel folds it into the next one).
    static void lateness(long[] t, long start, double periodUs) {
        double[] late = new double[t.length];
        for (int i = 0; i < t.length; i++) {
            double us = (t[i] - start) / 1000.0;
            late[i] = us - Math.floor(us / periodUs) * periodUs;
        }
        double mean = Arrays.stream(late).average().orElse(Double.NaN);
        double sd = Math.sqrt(Arrays.stream(late).map(d -> (d - mean) * (d - mean)).sum() / Math.max(1, late.length - 1));
        double[] s = late.clone();
        Arrays.sort(s);
        System.out.printf("  lateness us (t - start - k*P): mean %.1f sd %.1f | p1 %.1f p5 %.1f p50 %.1f p95 %.1f p99 %.1f | min %.1f max %.1f%n%n",
                mean, sd, q(s, .01), q(s, .05), q(s, .5), q(s, .95), q(s, .99), s[0], s[s.length - 1]);
    }

    // ---- statistics --------------------------------------------------------

    static double q(double[] sorted, double p) {
        if (sorted.length == 0) return Double.NaN;
        double pos = p * (sorted.length - 1);
        int i = (int) Math.floor(pos);
        int j = Math.min(i + 1, sorted.length - 1);
        return sorted[i] + (pos - i) * (sorted[j] - sorted[i]);
    }

    static void analyse(String label, long[] t, double periodUs) {
        int n = t.length - 1;
        double[] dev = new double[n];
        int m = 0, gaps = 0;
        long[] k = new long[t.length];
        double sumIv = 0;
        for (int i = 1; i < t.length; i++) {
            double iv = (t[i] - t[i - 1]) / 1000.0;
            long steps = Math.max(1, Math.round(iv / periodUs));
            k[i] = k[i - 1] + steps;
            if (iv > 1.5 * periodUs) { gaps++; continue; }
            dev[m++] = iv - periodUs;
            sumIv += iv;
        }
        dev = Arrays.copyOf(dev, m);
        double mean = Arrays.stream(dev).average().orElse(Double.NaN);
        double sd = Math.sqrt(Arrays.stream(dev).map(d -> (d - mean) * (d - mean)).sum() / Math.max(1, m - 1));
        double[] s = dev.clone();
        Arrays.sort(s);
        // phase relative to an ideal grid started at t0
        double[] ph = new double[t.length];
        double sk = 0, sp = 0, skk = 0, skp = 0;
        for (int i = 0; i < t.length; i++) {
            ph[i] = (t[i] - t[0]) / 1000.0 - k[i] * periodUs;
            sk += k[i]; sp += ph[i]; skk += (double) k[i] * k[i]; skp += k[i] * ph[i];
        }
        double N = t.length;
        double slope = (N * skp - sk * sp) / (N * skk - sk * sk);
        double minPh = Arrays.stream(ph).min().orElse(0);
        double[] late = Arrays.stream(ph).map(p -> p - minPh).sorted().toArray();
        System.out.printf("%s%n", label);
        System.out.printf("  ticks %d, intervals used %d, gaps(>1.5P) %d, mean interval %.1f us (nominal %.0f)%n",
                t.length, m, gaps, sumIv / m, periodUs);
        System.out.printf("  dev us: mean %.1f sd %.1f | p1 %.1f p5 %.1f p50 %.1f p95 %.1f p99 %.1f | min %.1f max %.1f%n",
                mean, sd, q(s, .01), q(s, .05), q(s, .5), q(s, .95), q(s, .99), s[0], s[m - 1]);
        System.out.printf("  drift %.2f us/tick (phase after %d periods: %.0f us)%n", slope, k[t.length - 1], ph[t.length - 1]);
        double lateMean = Arrays.stream(late).average().orElse(Double.NaN);
        double lateSd = Math.sqrt(Arrays.stream(late).map(d -> (d - lateMean) * (d - lateMean)).sum() / Math.max(1, late.length - 1));
        System.out.printf("  grid-lateness us (phase - min): mean %.1f sd %.1f | p1 %.1f p5 %.1f p50 %.1f p95 %.1f p99 %.1f max %.1f%n",
                lateMean, lateSd, q(late, .01), q(late, .05), q(late, .5), q(late, .95), q(late, .99), late[late.length - 1]);
        // distribution of the interval rounded to 0.5 ms, to expose tick quantisation
        java.util.TreeMap<Double, Integer> hist = new java.util.TreeMap<>();
        for (int i = 1; i < t.length; i++) {
            double ms = Math.round((t[i] - t[i - 1]) / 500_000.0) / 2.0;
            hist.merge(ms, 1, Integer::sum);
        }
        StringBuilder sb = new StringBuilder("  interval histogram (ms, 0.5 ms bins):");
        hist.forEach((ms, c) -> { if (c * 200 >= n) sb.append(String.format(" %.1f:%d", ms, c)); });
        System.out.println(sb);
        System.out.println();
    }
}
