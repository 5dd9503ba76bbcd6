Feature: Checkout totals

  Scenario: Percent coupon on a full cart
    Given a cart with 2 mugs at 12.50
    When I apply a 10 percent coupon
    Then the total is 22.50

  Scenario: Fixed coupon larger than the cart
    Given a cart with 1 mugs at 4.00
    When I apply a fixed coupon of 10
    Then the total is 0.00

  Scenario: Free shipping threshold
    Given a cart with 4 mugs at 12.50
    Then shipping to DE costs 0.00

  Scenario: Shipping to Austria
    Given a cart with 1 mugs at 12.50
    Then shipping to AT costs 9.90
