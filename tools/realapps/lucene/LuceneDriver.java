import java.util.Random;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.RAMDirectory;
import org.apache.lucene.util.Version;

/**
 * DaCapo-like lucene work on Debian's Lucene 4.10: "luindex" indexes DOCS
 * generated documents (a Zipf-like vocabulary) into an in-memory index,
 * "lusearch" runs QUERIES generated queries (terms, phrases, boolean
 * combinations) against it; both over and over, until the JVM is ended
 * or for the seconds given. The first argument chooses: luindex or
 * lusearch (which indexes once, then only searches).
 */
public class LuceneDriver {
    static final int DOCS = 2000;
    static final int WORDS = 300;
    static final int VOCAB = 5000;
    static final int QUERIES = 200;

    static String word(Random r) {
        // Zipf-like: small ranks are frequent.
        int rank = (int) Math.floor(Math.pow(VOCAB, r.nextDouble()));
        return "w" + Integer.toString(rank, 36);
    }

    static RAMDirectory index(Analyzer a, Random r) throws Exception {
        RAMDirectory dir = new RAMDirectory();
        try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig(Version.LUCENE_4_10_4, a))) {
            StringBuilder b = new StringBuilder();
            for (int d = 0; d < DOCS; d++) {
                b.setLength(0);
                for (int i = 0; i < WORDS; i++) {
                    b.append(word(r)).append(i % 17 == 16 ? ". " : " ");
                }
                Document doc = new Document();
                doc.add(new StringField("id", Integer.toString(d), Field.Store.YES));
                doc.add(new TextField("body", b.toString(), Field.Store.NO));
                w.addDocument(doc);
            }
        }
        return dir;
    }

    static long search(RAMDirectory dir, Analyzer a, Random r) throws Exception {
        long hits = 0;
        try (DirectoryReader reader = DirectoryReader.open(dir)) {
            IndexSearcher s = new IndexSearcher(reader);
            QueryParser qp = new QueryParser("body", a);
            for (int q = 0; q < QUERIES; q++) {
                String text;
                switch (q % 4) {
                    case 0: text = word(r); break;
                    case 1: text = "\"" + word(r) + " " + word(r) + "\""; break;
                    case 2: text = word(r) + " AND " + word(r); break;
                    default: text = word(r) + " OR " + word(r) + " -" + word(r); break;
                }
                TopDocs top = s.search(qp.parse(text), 10);
                hits += top.totalHits;
            }
        }
        return hits;
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "luindex";
        long until = args.length > 1 ? System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L : Long.MAX_VALUE;
        Analyzer a = new StandardAnalyzer();
        Random r = new Random(42);
        RAMDirectory dir = mode.equals("lusearch") ? index(a, r) : null;
        long runs = 0, hits = 0;
        while (System.nanoTime() < until) {
            if (mode.equals("lusearch")) {
                hits += search(dir, a, r);
            } else {
                index(a, r).close();
            }
            runs++;
        }
        System.out.println(mode + " runs " + runs + " hits " + hits);
    }
}
