import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.StringReader;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.sax.SAXResult;
import javax.xml.transform.stream.StreamSource;
import org.apache.fop.apps.Fop;
import org.apache.fop.apps.FopFactory;
import org.apache.xmlgraphics.util.MimeConstants;

/**
 * DaCapo-like fop work on Apache FOP 2.8 (Debian's libfop-java): lays out a
 * generated XSL-FO document (a catalogue: headings, paragraphs, a table)
 * and renders it to PDF in memory, over and over, until the JVM is ended
 * or for the seconds given (DaCapo 2006's fop rendered an XSL-FO file to
 * PDF).
 */
public class FopDriver {
    static String document() {
        StringBuilder b = new StringBuilder();
        b.append("<?xml version=\"1.0\"?>\n<fo:root xmlns:fo=\"http://www.w3.org/1999/XSL/Format\">");
        b.append("<fo:layout-master-set><fo:simple-page-master master-name=\"A4\" page-height=\"29.7cm\" page-width=\"21cm\" margin=\"2cm\">");
        b.append("<fo:region-body/></fo:simple-page-master></fo:layout-master-set>");
        b.append("<fo:page-sequence master-reference=\"A4\"><fo:flow flow-name=\"xsl-region-body\">");
        for (int s = 0; s < 8; s++) {
            b.append("<fo:block font-size=\"16pt\" font-weight=\"bold\" space-before=\"12pt\">Section ").append(s).append("</fo:block>");
            for (int p = 0; p < 6; p++) {
                b.append("<fo:block text-align=\"justify\" space-before=\"6pt\">");
                for (int w = 0; w < 60; w++) {
                    b.append("word").append((s * 31 + p * 7 + w) % 97).append(' ');
                }
                b.append("</fo:block>");
            }
            b.append("<fo:table table-layout=\"fixed\" width=\"100%\"><fo:table-body>");
            for (int r = 0; r < 10; r++) {
                b.append("<fo:table-row>");
                for (int c = 0; c < 4; c++) {
                    b.append("<fo:table-cell border=\"0.5pt solid black\"><fo:block>item ").append(s * 1000 + r * 10 + c).append("</fo:block></fo:table-cell>");
                }
                b.append("</fo:table-row>");
            }
            b.append("</fo:table-body></fo:table>");
        }
        b.append("</fo:flow></fo:page-sequence></fo:root>");
        return b.toString();
    }

    public static void main(String[] args) throws Exception {
        // FOP logs every rendered page through commons-logging: off.
        System.setProperty("org.apache.commons.logging.Log", "org.apache.commons.logging.impl.NoOpLog");
        long until = args.length > 0 ? System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L : Long.MAX_VALUE;
        String fo = document();
        FopFactory factory = FopFactory.newInstance(new File(".").toURI());
        TransformerFactory tf = TransformerFactory.newInstance();
        long runs = 0, bytes = 0;
        while (System.nanoTime() < until) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            Fop fop = factory.newFop(MimeConstants.MIME_PDF, out);
            Transformer t = tf.newTransformer();
            t.transform(new StreamSource(new StringReader(fo)), new SAXResult(fop.getDefaultHandler()));
            bytes += out.size();
            runs++;
        }
        System.out.println("runs " + runs + " bytes " + bytes);
    }
}
