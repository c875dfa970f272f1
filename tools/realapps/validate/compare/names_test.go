package main

import "testing"

func TestNormalizeMethod(t *testing.T) {
	cases := []struct{ in, want string }{
		{"org.apache.lucene.search.ExactPhraseScorer.phraseFreq", "org.apache.lucene.search.ExactPhraseScorer.phraseFreq"},
		{"LuceneDriver.search(Lorg/apache/lucene/store/RAMDirectory;Ljava/util/Random;)J", "LuceneDriver.search"},
		{"java.lang.String.<init>([BB)V", "java.lang.String.<init>"},
		{"java.util.stream.MatchOps$$Lambda$184+0x00007fe6d8146ba8.1636050357.apply(Ljava/lang/Object;)Ljava/lang/Object;", "java.util.stream.MatchOps$$Lambda.apply"},
		{"com.sun.tools.javac.util.List$$Lambda$238/0x0000000800c3a000.test", "com.sun.tools.javac.util.List$$Lambda.test"},
		{"com.sun.tools.javac.util.List$$Lambda.test", "com.sun.tools.javac.util.List$$Lambda.test"},
		{"java.lang.invoke.LambdaForm$MH+0x00007f182c11e000.1696263571.invoke", "java.lang.invoke.LambdaForm$MH.invoke"},
		{"java.lang.invoke.LambdaForm$MH/0x0000000800c0c400.invoke", "java.lang.invoke.LambdaForm$MH.invoke"},
		{"java/lang/Throwable.fillInStackTrace", "java.lang.Throwable.fillInStackTrace"},
		{"com.sun.tools.javac.comp.LambdaToMethod$LambdaAnalyzerPreprocessor.visitLambda", "com.sun.tools.javac.comp.LambdaToMethod$LambdaAnalyzerPreprocessor.visitLambda"},
		{"noclass", "noclass"},
	}
	for _, c := range cases {
		if got := normalizeMethod(c.in); got != c.want {
			t.Errorf("normalizeMethod(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := normalizeMethod(normalizeMethod(c.in)); got != c.want {
			t.Errorf("normalizeMethod not idempotent on %q: %q", c.in, got)
		}
	}
}

func TestModelMethodName(t *testing.T) {
	got := modelMethodName("java.util.stream.MatchOps$$Lambda$184+0x00007fe6d8146ba8.1636050357", "apply",
		"java.util.stream.MatchOps$$Lambda$184+0x00007fe6d8146ba8.1636050357.apply(Ljava/lang/Object;)Z")
	if want := "java.util.stream.MatchOps$$Lambda.apply"; got != want {
		t.Errorf("modelMethodName = %q, want %q", got, want)
	}
	if got := modelMethodName("", "", "a.B.c(I)V"); got != "a.B.c" {
		t.Errorf("modelMethodName without class = %q, want a.B.c", got)
	}
}
