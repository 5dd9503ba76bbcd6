package com.acme.invoice;

import java.util.ArrayList;
import java.util.List;

public class Invoice {
    private final List<Long> lines = new ArrayList<>();
    private final int taxPercent;

    public Invoice(int taxPercent) {
        this.taxPercent = taxPercent;
    }

    public void add(long cents) {
        lines.add(cents);
    }

    public long net() {
        long total = 0;
        for (long c : lines) {
            total += c;
        }
        return total;
    }

    public long gross() {
        return net() + net() * taxPercent / 100;
    }
}
