import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * SPECjvm98-like javac work: the JDK's own compiler (jdk.compiler, in
 * process through javax.tools) compiles a generated program of CLASSES
 * classes over and over, until the JVM is ended or for the seconds given.
 * Each class has fields, a constructor, methods with loops, conditionals,
 * string building, generic collections and calls into the other classes,
 * so that parsing, attribution, flow analysis and code generation all
 * have work to do.
 */
public class JavacDriver {
    static final int CLASSES = 40;
    static final int METHODS = 12;

    static String source(int c) {
        StringBuilder s = new StringBuilder();
        s.append("package gen;\nimport java.util.*;\n");
        s.append("public class C").append(c).append(" implements Comparable<C").append(c).append("> {\n");
        s.append("  private final int id; private final List<String> names = new ArrayList<>();\n");
        s.append("  private final Map<String, Integer> counts = new HashMap<>();\n");
        s.append("  public C").append(c).append("(int id) { this.id = id; }\n");
        for (int m = 0; m < METHODS; m++) {
            int other = (c * 7 + m * 3 + 1) % CLASSES;
            s.append("  public int m").append(m).append("(int n, String tag) {\n");
            s.append("    int acc = ").append(m).append(";\n");
            s.append("    for (int i = 0; i < n; i++) {\n");
            s.append("      if ((i ^ id) % ").append(m + 2).append(" == 0) { acc += i * ").append(m + 1).append("; }\n");
            s.append("      else if (tag.length() > i % 7) { acc -= tag.charAt(i % tag.length()); }\n");
            s.append("      else { names.add(tag + i); counts.merge(tag, 1, Integer::sum); }\n");
            s.append("    }\n");
            s.append("    StringBuilder b = new StringBuilder(tag);\n");
            s.append("    for (String x : names) { if (x.hashCode() % 3 == 0) b.append(x).append(','); }\n");
            if (m % 3 == 0) {
                s.append("    acc += new C").append(other).append("(acc).m").append((m + 1) % METHODS).append("(n / 2, b.toString());\n");
            }
            s.append("    switch (acc & 3) { case 0: return acc; case 1: return acc + counts.size(); default: return acc - b.length(); }\n");
            s.append("  }\n");
        }
        s.append("  @Override public int compareTo(C").append(c).append(" o) { return Integer.compare(id, o.id); }\n");
        s.append("  @Override public String toString() { return \"C").append(c).append("#\" + id + names; }\n");
        s.append("}\n");
        return s.toString();
    }

    public static void main(String[] args) throws IOException {
        Path dir = Files.createTempDirectory("javac-driver");
        Path src = dir.resolve("src/gen");
        Files.createDirectories(src);
        List<String> files = new ArrayList<>();
        for (int c = 0; c < CLASSES; c++) {
            Path f = src.resolve("C" + c + ".java");
            Files.writeString(f, source(c));
            files.add(f.toString());
        }
        Path out = dir.resolve("classes");
        Files.createDirectories(out);
        List<String> argv = new ArrayList<>(List.of("-d", out.toString(), "-nowarn"));
        argv.addAll(files);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        long runs = 0;
        long until = args.length > 0 ? System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L : Long.MAX_VALUE;
        while (System.nanoTime() < until) {
            int rc = javac.run(null, null, null, argv.toArray(new String[0]));
            if (rc != 0) {
                throw new IllegalStateException("javac failed: " + rc);
            }
            runs++;
        }
        System.out.println("runs " + runs);
    }
}
