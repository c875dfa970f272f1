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
