public class Meter {
    public static void main(String[] args) {
        String[] readings = {"12.5", "7.25", "n/a"};
        double total = 0;
        for (String r : readings) {
            total += parse(r);
        }
        System.out.println("total " + total);
    }

    static double parse(String reading) {
        return Double.parseDouble(reading);
    }
}
