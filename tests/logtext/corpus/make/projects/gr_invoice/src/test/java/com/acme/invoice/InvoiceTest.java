package com.acme.invoice;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class InvoiceTest {
    @Test
    public void netSumsLines() {
        Invoice inv = new Invoice(20);
        inv.add(1000);
        inv.add(250);
        assertEquals(1250, inv.net());
    }

    @Test
    public void grossAddsTax() {
        Invoice inv = new Invoice(20);
        inv.add(1000);
        assertEquals(1200, inv.gross());
    }
}
