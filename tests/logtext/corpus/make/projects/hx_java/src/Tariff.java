import java.util.List;
import java.util.Map;

public class Tariff {
    private final Map<String, Double> rates = Map.of("day", 0.31, "night", 0.19);

    public double cost(String band, double kwh) {
        return rates.get(band) * kwh;
    }

    public double total(List<String> bands, double[] kwh) {
        double sum = 0;
        for (int i = 0; i < bands.size(); i++) {
            sum += cost(bands.get(i), kwh[i]);
        }
        return sum
    }
}
