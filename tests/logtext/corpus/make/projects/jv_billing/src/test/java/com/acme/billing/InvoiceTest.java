package com.acme.billing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class InvoiceTest {
    @Test
    void netSumsLines() {
        Invoice invoice = new Invoice("acme");
        invoice.addLine(new BigDecimal("10.00"));
        invoice.addLine(new BigDecimal("5.50"));
        assertEquals(new BigDecimal("15.50"), invoice.net());
    }

    @Test
    void negativeLinesAreIgnored() {
        Invoice invoice = new Invoice("acme");
        invoice.addLine(new BigDecimal("-3.00"));
        assertEquals(BigDecimal.ZERO, invoice.net());
    }

    @Test
    void grossRoundsHalfUp() {
        Invoice invoice = new Invoice("acme");
        invoice.addLine(new BigDecimal("10.05"));
        assertEquals(new BigDecimal("11.96"), invoice.gross(new BigDecimal("0.19")));
    }

    @Test
    void grossOfEmptyInvoiceIsZero() {
        assertEquals(new BigDecimal("0.00"), new Invoice("x").gross(new BigDecimal("0.19")));
    }
}
