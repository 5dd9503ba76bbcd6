package com.acme.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class PriceViewTest {
    @Test
    void labelPutsCurrencyAfterAmount() {
        assertEquals("11.90 EUR", PriceView.label(new BigDecimal("10.00"), 19, "EUR"));
    }

    @Test
    void labelKeepsTwoDecimals() {
        assertEquals("EUR 5.00", PriceView.label(new BigDecimal("5"), 0, "EUR"));
    }
}
