// Mytkowicz, Diwan, Hauswirth and Sweeney, "Evaluating the Accuracy of
// Java Profilers", PLDI 2010, Listing 1, verbatim but for main, which the
// listing leaves out: cold() runs until the recording is over and the
// driver script ends the JVM.
public class HotCold {
    static int[] array = new int[1024];
    public static void hot (int i) {
        int ii = (i + 10 * 100) % array.length;
        int jj = (ii + i / 33) % array.length;
        if (ii < 0) ii = -ii;
        if (jj < 0) jj = -jj;
        array[ii] = array[jj] + 1;
    }
    public static void cold () {
        for (int i = 0; i < Integer.MAX_VALUE; i++)
            hot(i);
    }
    public static void main(String[] args) {
        cold();
    }
}
