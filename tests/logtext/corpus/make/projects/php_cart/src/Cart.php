<?php

declare(strict_types=1);

namespace Shop;

final class Cart
{
    /** @var array<string, int> */
    private array $items = [];

    public function add(string $sku, int $qty = 1): void
    {
        $this->items[$sku] = ($this->items[$sku] ?? 0) + $qty;
    }

    public function remove(string $sku): void
    {
        unset($this->items[$sku]);
    }

    public function count(): int
    {
        return count($this->items);
    }

    public function total(array $prices): float
    {
        $total = 0.0;
        foreach ($this->items as $sku => $qty) {
            $total += $prices[$sku] * $qty;
        }
        return $total;
    }
}
