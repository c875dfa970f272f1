// CompileCommands: a loop calling a small and a big static method, the
// Java twin of tools/compilecommand/commands.yaml. run.sh and
// compilecommand_test.go run it under -XX:CompileCommand=... and read
// C2's inlining decisions from -XX:+PrintInlining.
public class CompileCommands {
    static int sink;

    // 10 bytecodes or so: below MaxInlineSize (35), inlined anywhere.
    static int small(int x) {
        return x * 3 + 1;
    }

    // Over FreqInlineSize (325 bytecodes): C2 does not inline it.
    static int big(int x) {
        x = x * 31 + 0;
        x = x * 31 + 1;
        x = x * 31 + 2;
        x = x * 31 + 3;
        x = x * 31 + 4;
        x = x * 31 + 5;
        x = x * 31 + 6;
        x = x * 31 + 7;
        x = x * 31 + 8;
        x = x * 31 + 9;
        x = x * 31 + 10;
        x = x * 31 + 11;
        x = x * 31 + 12;
        x = x * 31 + 13;
        x = x * 31 + 14;
        x = x * 31 + 15;
        x = x * 31 + 16;
        x = x * 31 + 17;
        x = x * 31 + 18;
        x = x * 31 + 19;
        x = x * 31 + 20;
        x = x * 31 + 21;
        x = x * 31 + 22;
        x = x * 31 + 23;
        x = x * 31 + 24;
        x = x * 31 + 25;
        x = x * 31 + 26;
        x = x * 31 + 27;
        x = x * 31 + 28;
        x = x * 31 + 29;
        x = x * 31 + 30;
        x = x * 31 + 31;
        x = x * 31 + 32;
        x = x * 31 + 33;
        x = x * 31 + 34;
        x = x * 31 + 35;
        x = x * 31 + 36;
        x = x * 31 + 37;
        x = x * 31 + 38;
        x = x * 31 + 39;
        x = x * 31 + 40;
        x = x * 31 + 41;
        x = x * 31 + 42;
        x = x * 31 + 43;
        x = x * 31 + 44;
        x = x * 31 + 45;
        x = x * 31 + 46;
        x = x * 31 + 47;
        x = x * 31 + 48;
        x = x * 31 + 49;
        x = x * 31 + 50;
        x = x * 31 + 51;
        x = x * 31 + 52;
        x = x * 31 + 53;
        x = x * 31 + 54;
        x = x * 31 + 55;
        x = x * 31 + 56;
        x = x * 31 + 57;
        x = x * 31 + 58;
        x = x * 31 + 59;
        return x;
    }

    static int work(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += small(i);
            s += big(i);
        }
        return s;
    }

    public static void main(String[] args) {
        for (int r = 0; r < 20000; r++) {
            sink += work(100);
        }
        System.out.println(sink);
    }
}
