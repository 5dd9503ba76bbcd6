package com.acme.billing;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;

public class Invoice {
    private final String customer;
    private final List<BigDecimal> lines = new ArrayList<>();

    public Invoice(String customer) {
        this.customer = customer;
    }

    public void addLine(BigDecimal amount) {
        if (amount.signum() < 0) {
            System.err.println("[ERROR] negative line amount " + amount + " for " + customer + ", ignored");
            return;
        }
        lines.add(amount);
    }

    public BigDecimal net() {
        return lines.stream().reduce(BigDecimal.ZERO, BigDecimal::add);
    }

    public BigDecimal gross(BigDecimal vatRate) {
        return net().multiply(BigDecimal.ONE.add(vatRate)).setScale(2, RoundingMode.DOWN);
    }

    public String customer() {
        return customer;
    }
}
