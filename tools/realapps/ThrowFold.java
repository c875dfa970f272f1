import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * ThrowFold prints a recording's jdk.JavaExceptionThrow events as the JSON
 * document `jfr print --json` would, but folded: events of one thread, one
 * thrown class and one stack become one event, the first of them, with a
 * "count" value (the one field jfr print does not write; profsim's jfrjson
 * reads it, 1 when absent). An exception-heavy program throws tens of
 * thousands of throwables a second, each with a stack of a hundred frames:
 * printed one by one they are tens of gigabytes of JSON, while the
 * recording itself stores each stack once.
 *
 *   java tools/realapps/ThrowFold.java REC.jfr > throws.json
 *
 * record.sh appends the output to the recording's JSON; profsim import
 * reads the two documents one after the other.
 */
public class ThrowFold {
    static final class Folded {
        final RecordedEvent first;
        long count;
        Folded(RecordedEvent e) { first = e; }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: java ThrowFold.java REC.jfr");
            System.exit(2);
        }
        Map<String, Folded> folded = new LinkedHashMap<>();
        long events = 0;
        StringBuilder key = new StringBuilder();
        try (RecordingFile rf = new RecordingFile(Path.of(args[0]))) {
            while (rf.hasMoreEvents()) {
                RecordedEvent e = rf.readEvent();
                if (!e.getEventType().getName().equals("jdk.JavaExceptionThrow")) continue;
                events++;
                key.setLength(0);
                RecordedThread t = e.getThread();
                key.append(t == null ? "" : t.getJavaName()).append(' ').append(t == null ? -1 : t.getJavaThreadId())
                        .append(' ').append(t == null ? -1 : t.getOSThreadId());
                key.append(' ').append(e.getClass("thrownClass") == null ? "" : e.getClass("thrownClass").getName());
                RecordedStackTrace st = e.getStackTrace();
                if (st != null) {
                    key.append(st.isTruncated() ? " T" : " F");
                    for (RecordedFrame f : st.getFrames()) {
                        key.append(';').append(f.getMethod().getType().getName()).append('.').append(f.getMethod().getName())
                                .append(f.getMethod().getDescriptor()).append('@').append(f.getBytecodeIndex()).append(':').append(f.getType());
                    }
                }
                folded.computeIfAbsent(key.toString(), k -> new Folded(e)).count++;
            }
        }
        PrintStream out = new PrintStream(new java.io.BufferedOutputStream(System.out, 1 << 16), false, "UTF-8");
        out.print("{\"recording\": {\"events\": [");
        boolean firstOut = true;
        for (Folded f : folded.values()) {
            out.print(firstOut ? "\n" : ",\n");
            firstOut = false;
            write(out, f.first, f.count);
        }
        out.print("\n]}}\n");
        out.flush();
        System.err.printf("ThrowFold: %d jdk.JavaExceptionThrow events, %d distinct (thread, class, stack)%n", events, folded.size());
    }

    static void write(PrintStream out, RecordedEvent e, long count) {
        out.print("{\"type\": \"jdk.JavaExceptionThrow\", \"values\": {\"startTime\": ");
        str(out, e.getStartTime().toString());
        RecordedThread t = e.getThread();
        if (t != null) {
            out.print(", \"eventThread\": {\"osName\": ");
            str(out, t.getOSName() == null ? "" : t.getOSName());
            out.print(", \"osThreadId\": " + t.getOSThreadId());
            if (t.getJavaName() != null) {
                out.print(", \"javaName\": ");
                str(out, t.getJavaName());
                out.print(", \"javaThreadId\": " + t.getJavaThreadId());
            }
            out.print("}");
        }
        out.print(", \"thrownClass\": {\"name\": ");
        str(out, e.getClass("thrownClass") == null ? "" : internal(e.getClass("thrownClass").getName()));
        out.print("}");
        RecordedStackTrace st = e.getStackTrace();
        if (st != null) {
            out.print(", \"stackTrace\": {\"truncated\": " + st.isTruncated() + ", \"frames\": [");
            List<RecordedFrame> frames = st.getFrames();
            for (int i = 0; i < frames.size(); i++) {
                RecordedFrame f = frames.get(i);
                if (i > 0) out.print(", ");
                out.print("{\"method\": {\"type\": {\"name\": ");
                str(out, internal(f.getMethod().getType().getName()));
                out.print("}, \"name\": ");
                str(out, f.getMethod().getName());
                out.print(", \"descriptor\": ");
                str(out, f.getMethod().getDescriptor());
                out.print(", \"hidden\": " + f.getMethod().isHidden() + "}, \"lineNumber\": " + f.getLineNumber()
                        + ", \"bytecodeIndex\": " + f.getBytecodeIndex() + ", \"type\": ");
                str(out, f.getType());
                out.print("}");
            }
            out.print("]}");
        }
        out.print(", \"count\": " + count + "}}");
    }

    /** internal is a class's name as jfr print writes it: '/' between packages. */
    static String internal(String binaryName) { return binaryName.replace('.', '/'); }

    static void str(PrintStream out, String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                default:
                    if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
            }
        }
        out.print(b.append('"'));
    }
}
