package com.acme.billing;

import java.math.BigDecimal;

public final class Discounts {
    private Discounts() {}

    public static BigDecimal forVolume(int units) {
        if (units >= 100) return new BigDecimal("0.10");
        if (units >= 10) return new BigDecimal("0.05");
        return BigDecimal.ZERO;
    }
}
