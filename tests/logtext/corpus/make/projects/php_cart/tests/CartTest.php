<?php

declare(strict_types=1);

use PHPUnit\Framework\TestCase;
use Shop\Cart;

require_once __DIR__ . '/../src/Cart.php';

final class CartTest extends TestCase
{
    public function testAddIncreasesCount(): void
    {
        $cart = new Cart();
        $cart->add('apple', 2);
        $cart->add('pear');
        $this->assertSame(3, $cart->count());
    }

    public function testRemove(): void
    {
        $cart = new Cart();
        $cart->add('apple');
        $cart->remove('apple');
        $this->assertSame(0, $cart->count());
    }

    public function testTotal(): void
    {
        $cart = new Cart();
        $cart->add('apple', 2);
        $cart->add('kiwi');
        $this->assertEqualsWithDelta(2.5, $cart->total(['apple' => 1.0, 'pear' => 0.5]), 0.001);
    }
}
