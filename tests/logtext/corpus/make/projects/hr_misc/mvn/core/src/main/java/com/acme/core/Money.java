package com.acme.core;

import java.math.BigDecimal;
import java.math.RoundingMode;

public final class Money {
    private Money() {}

    public static BigDecimal gross(BigDecimal net, int ratePercent) {
        BigDecimal factor = BigDecimal.valueOf(100 + ratePercent).movePointLeft(2);
        return net.multiply(factor).setScale(2, RoundingMode.HALF_UP);
    }
}
