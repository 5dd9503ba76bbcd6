package com.acme.api;

import com.acme.core.Money;
import java.math.BigDecimal;

public final class PriceView {
    private PriceView() {}

    public static String label(BigDecimal net, int ratePercent, String currency) {
        return currency + " " + Money.gross(net, ratePercent).toPlainString();
    }
}
