<?php
namespace Acme\Invoices;

final class Total
{
    public static function gross(int $net, int $rate): int
    {
        return intdiv($net * (100 + $rate), 100);
    }
}
