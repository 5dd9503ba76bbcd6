package com.acme.billing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class DiscountsTest {
    @Test
    void noDiscountForFewUnits() {
        assertEquals(BigDecimal.ZERO, Discounts.forVolume(3));
    }

    @Test
    void volumeDiscountAtFifty() {
        assertEquals(new BigDecimal("0.07"), Discounts.forVolume(50));
    }
}
