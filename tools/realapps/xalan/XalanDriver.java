// XalanDriver: DaCapo-like work for Apache Xalan-J's interpretive XSLT
// processor (Debian's libxalan2-java): it generates an XML catalogue and a
// stylesheet that selects, sorts, groups and formats it, and transforms the
// catalogue over and over until the JVM is ended (tools/realapps/README.md).
import java.io.StringReader;
import java.io.Writer;
import java.util.Random;
import javax.xml.transform.Templates;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.stream.StreamResult;
import javax.xml.transform.stream.StreamSource;

public class XalanDriver {
    static String catalogue(int items, long seed) {
        Random r = new Random(seed);
        String[] cats = {"books", "music", "tools", "garden", "toys", "food", "sport", "office"};
        StringBuilder sb = new StringBuilder("<?xml version=\"1.0\"?>\n<catalogue>\n");
        for (int i = 0; i < items; i++) {
            sb.append("  <item id=\"i").append(i).append("\" category=\"").append(cats[r.nextInt(cats.length)])
              .append("\" price=\"").append(r.nextInt(10000) / 100.0).append("\" stock=\"").append(r.nextInt(50)).append("\">\n");
            sb.append("    <name>Item ").append(Integer.toHexString(r.nextInt())).append("</name>\n");
            sb.append("    <description>");
            int words = 5 + r.nextInt(30);
            for (int w = 0; w < words; w++) {
                sb.append(w == 0 ? "" : " ").append("word").append(r.nextInt(500));
            }
            sb.append("</description>\n");
            int reviews = r.nextInt(4);
            for (int k = 0; k < reviews; k++) {
                sb.append("    <review stars=\"").append(1 + r.nextInt(5)).append("\">fine ").append(k).append("</review>\n");
            }
            sb.append("  </item>\n");
        }
        return sb.append("</catalogue>\n").toString();
    }

    static final String STYLESHEET =
        "<xsl:stylesheet version=\"1.0\" xmlns:xsl=\"http://www.w3.org/1999/XSL/Transform\">\n" +
        "  <xsl:output method=\"html\" indent=\"yes\"/>\n" +
        "  <xsl:key name=\"by-category\" match=\"item\" use=\"@category\"/>\n" +
        "  <xsl:template match=\"/\">\n" +
        "    <html><body>\n" +
        "      <xsl:for-each select=\"catalogue/item[generate-id() = generate-id(key('by-category', @category)[1])]\">\n" +
        "        <xsl:sort select=\"@category\"/>\n" +
        "        <h2><xsl:value-of select=\"@category\"/> (<xsl:value-of select=\"count(key('by-category', @category))\"/>)</h2>\n" +
        "        <table>\n" +
        "          <xsl:apply-templates select=\"key('by-category', @category)[@stock &gt; 0]\">\n" +
        "            <xsl:sort select=\"@price\" data-type=\"number\" order=\"descending\"/>\n" +
        "          </xsl:apply-templates>\n" +
        "        </table>\n" +
        "      </xsl:for-each>\n" +
        "      <p>Total value: <xsl:value-of select=\"format-number(sum(catalogue/item/@price), '#,##0.00')\"/></p>\n" +
        "    </body></html>\n" +
        "  </xsl:template>\n" +
        "  <xsl:template match=\"item\">\n" +
        "    <tr>\n" +
        "      <td><xsl:value-of select=\"translate(name, 'abcdef', 'ABCDEF')\"/></td>\n" +
        "      <td><xsl:value-of select=\"format-number(@price, '0.00')\"/></td>\n" +
        "      <td><xsl:value-of select=\"substring(description, 1, 40)\"/></td>\n" +
        "      <td><xsl:value-of select=\"string-length(normalize-space(description))\"/></td>\n" +
        "      <td><xsl:if test=\"review\"><xsl:value-of select=\"sum(review/@stars) div count(review)\"/></xsl:if></td>\n" +
        "    </tr>\n" +
        "  </xsl:template>\n" +
        "</xsl:stylesheet>\n";

    public static void main(String[] args) throws Exception {
        int items = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        String xml = catalogue(items, 42);
        // Xalan's interpretive processor, not the JDK's XSLTC.
        TransformerFactory tf = new org.apache.xalan.processor.TransformerFactoryImpl();
        Templates templates = tf.newTemplates(new StreamSource(new StringReader(STYLESHEET)));
        Writer sink = Writer.nullWriter();
        for (long n = 0; ; n++) {
            Transformer t = templates.newTransformer();
            t.transform(new StreamSource(new StringReader(xml)), new StreamResult(sink));
            if (n == 0) {
                System.err.println("XalanDriver: first transform done");
            }
        }
    }
}
