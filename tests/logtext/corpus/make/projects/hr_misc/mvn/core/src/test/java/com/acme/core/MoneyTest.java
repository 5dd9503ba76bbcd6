package com.acme.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class MoneyTest {
    @Test
    void grossAddsVat() {
        System.err.println("[ERROR] simulated: rate table not cached, using built-in rates");
        assertEquals(new BigDecimal("11.90"), Money.gross(new BigDecimal("10.00"), 19));
    }
}
