import java.io.File;
import java.io.FileWriter;
import java.io.IOException;
import java.nio.file.Files;

/**
 * DaCapo-like antlr work: ANTLR 2.7.7 (Debian's antlr package) reads a
 * grammar and generates its parser and lexer, over and over, until the JVM
 * is ended (or for the seconds given). The grammar is generated: a
 * Java-like statement and expression language with RULES binary-operator
 * levels, two operators each, so that the tool's grammar analysis (LL(k)
 * lookahead) and code generation have work to do.
 */
public class AntlrDriver {
    static final int RULES = 9;

    static String grammar() {
        StringBuilder g = new StringBuilder();
        g.append("class GenParser extends Parser;\noptions { k=2; buildAST=false; }\n");
        g.append("program : (statement)* EOF ;\n");
        g.append("statement : block | \"if\" LPAREN expr0 RPAREN statement (options {greedy=true;} : \"else\" statement)?\n");
        g.append("  | \"while\" LPAREN expr0 RPAREN statement | \"return\" (expr0)? SEMI | ID ASSIGN expr0 SEMI | SEMI ;\n");
        g.append("block : LCURLY (statement)* RCURLY ;\n");
        String[] ops = {"OR", "AND", "BOR", "XOR", "BAND", "EQ", "NE", "LT", "GT", "LE", "GE", "SHL", "SHR", "PLUS", "MINUS", "STAR", "DIV", "MOD"};
        for (int i = 0; i < RULES; i++) {
            String op = ops[2 * i];
            String alt = ops[2 * i + 1];
            g.append("expr").append(i).append(" : expr").append(i + 1)
             .append(" ((").append(op).append("|").append(alt).append(") expr").append(i + 1).append(")* ;\n");
        }
        g.append("expr").append(RULES).append(" : ID (LPAREN (args)? RPAREN | LBRACK expr0 RBRACK)* | NUM | STR | LPAREN expr0 RPAREN | MINUS expr")
         .append(RULES).append(" | NOT expr").append(RULES).append(" ;\n");
        g.append("args : expr0 (COMMA expr0)* ;\n\n");
        g.append("class GenLexer extends Lexer;\noptions { k=3; charVocabulary='\\u0003'..'\\u7FFE'; testLiterals=false; }\n");
        g.append("WS : (' ' | '\\t' | '\\n' { newline(); } | '\\r')+ { $setType(Token.SKIP); } ;\n");
        g.append("ID options { testLiterals=true; } : ('a'..'z'|'A'..'Z'|'_') ('a'..'z'|'A'..'Z'|'_'|'0'..'9')* ;\n");
        g.append("NUM : ('0'..'9')+ ('.' ('0'..'9')+)? ;\n");
        g.append("STR : '\"' (~('\"'|'\\\\') | '\\\\' .)* '\"' ;\n");
        String[][] toks = {{"LPAREN", "'('"}, {"RPAREN", "')'"}, {"LCURLY", "'{'"}, {"RCURLY", "'}'"}, {"LBRACK", "'['"}, {"RBRACK", "']'"},
            {"SEMI", "';'"}, {"COMMA", "','"}, {"ASSIGN", "'='"}, {"EQ", "\"==\""}, {"NE", "\"!=\""}, {"NOT", "'!'"},
            {"LE", "\"<=\""}, {"GE", "\">=\""}, {"SHL", "\"<<\""}, {"SHR", "\">>\""}, {"LT", "'<'"}, {"GT", "'>'"},
            {"OR", "\"||\""}, {"AND", "\"&&\""}, {"BOR", "'|'"}, {"BAND", "'&'"}, {"XOR", "'^'"},
            {"PLUS", "'+'"}, {"MINUS", "'-'"}, {"STAR", "'*'"}, {"DIV", "'/'"}, {"MOD", "'%'"}};
        for (String[] t : toks) {
            g.append(t[0]).append(" : ").append(t[1]).append(" ;\n");
        }
        return g.toString();
    }

    public static void main(String[] args) throws IOException {
        File dir = Files.createTempDirectory("antlr-driver").toFile();
        File g = new File(dir, "Gen.g");
        try (FileWriter w = new FileWriter(g)) {
            w.write(grammar());
        }
        long runs = 0;
        long until = args.length > 0 ? System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L : Long.MAX_VALUE;
        while (System.nanoTime() < until) {
            antlr.Tool tool = new antlr.Tool();
            int rc = tool.doEverything(new String[] {"-o", dir.getPath(), g.getPath()});
            if (rc != 0) {
                throw new IllegalStateException("antlr failed: " + rc);
            }
            runs++;
        }
        System.out.println("runs " + runs);
    }
}
