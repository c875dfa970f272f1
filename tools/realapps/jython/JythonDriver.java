import org.python.util.PythonInterpreter;

/**
 * DaCapo-like jython work on Jython 2.7 (Debian's jython): the interpreter
 * runs a pybench-like Python script — function calls, recursion, classes
 * and method calls, dicts, lists, string building and formatting — over
 * and over, until the JVM is ended or for the seconds given.
 */
public class JythonDriver {
    static final String SCRIPT = String.join("\n",
        "def fib(n):",
        "    return n if n < 2 else fib(n - 1) + fib(n - 2)",
        "class Point(object):",
        "    def __init__(self, x, y):",
        "        self.x, self.y = x, y",
        "    def add(self, o):",
        "        return Point(self.x + o.x, self.y + o.y)",
        "    def norm2(self):",
        "        return self.x * self.x + self.y * self.y",
        "def shapes(n):",
        "    p = Point(0, 0)",
        "    for i in range(n):",
        "        p = p.add(Point(i % 7, -(i % 5)))",
        "    return p.norm2()",
        "def words(n):",
        "    counts = {}",
        "    for i in range(n):",
        "        w = 'w%d' % (i * 7919 % 97)",
        "        counts[w] = counts.get(w, 0) + 1",
        "    return sorted(counts.items(), key=lambda kv: -kv[1])[:5]",
        "def text(n):",
        "    parts = []",
        "    for i in range(n):",
        "        parts.append('%s-%05d' % ('item', i))",
        "    s = ','.join(parts)",
        "    return len(s.split(',')) + s.count('-0')",
        "def run():",
        "    return fib(18) + shapes(3000) + len(words(5000)) + text(3000)",
        "");

    public static void main(String[] args) {
        long until = args.length > 0 ? System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L : Long.MAX_VALUE;
        PythonInterpreter py = new PythonInterpreter();
        py.exec(SCRIPT);
        long runs = 0, sum = 0;
        while (System.nanoTime() < until) {
            sum += py.eval("run()").asLong();
            runs++;
        }
        System.out.println("runs " + runs + " checksum " + sum);
    }
}
