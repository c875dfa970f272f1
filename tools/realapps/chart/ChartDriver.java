import java.awt.image.BufferedImage;
import java.util.Random;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * DaCapo-like chart work on JFreeChart 1.0.19 (Debian's libjfreechart-java):
 * builds line, XY and bar charts of generated data and renders each to an
 * 800 x 600 image, headless, over and over, until the JVM is ended or for
 * the seconds given (DaCapo 2006's chart rendered charts to PDF).
 */
public class ChartDriver {
    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        long until = args.length > 0 ? System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L : Long.MAX_VALUE;
        Random r = new Random(42);
        long runs = 0, sum = 0;
        while (System.nanoTime() < until) {
            XYSeriesCollection xy = new XYSeriesCollection();
            for (int s = 0; s < 4; s++) {
                XYSeries series = new XYSeries("series " + s);
                double v = 0;
                for (int i = 0; i < 500; i++) {
                    v += r.nextGaussian();
                    series.add(i, v);
                }
                xy.addSeries(series);
            }
            DefaultCategoryDataset cat = new DefaultCategoryDataset();
            for (int s = 0; s < 3; s++) {
                for (int c = 0; c < 12; c++) {
                    cat.addValue(r.nextInt(100), "row " + s, "month " + c);
                }
            }
            JFreeChart[] charts = {
                ChartFactory.createXYLineChart("walks", "step", "value", xy, PlotOrientation.VERTICAL, true, false, false),
                ChartFactory.createScatterPlot("scatter", "x", "y", xy, PlotOrientation.VERTICAL, true, false, false),
                ChartFactory.createBarChart("bars", "month", "count", cat, PlotOrientation.VERTICAL, true, false, false),
                ChartFactory.createLineChart("lines", "month", "count", cat, PlotOrientation.VERTICAL, true, false, false),
            };
            for (JFreeChart ch : charts) {
                BufferedImage img = ch.createBufferedImage(800, 600);
                sum += img.getRGB(400, 300);
            }
            runs++;
        }
        System.out.println("runs " + runs + " checksum " + sum);
    }
}
