import java.util.Date;

public class Report {
    public static void main(String[] args) {
        Date when = new Date(2026, 10, 27);
        System.out.println("report for " + when.getYear());
    }
}
