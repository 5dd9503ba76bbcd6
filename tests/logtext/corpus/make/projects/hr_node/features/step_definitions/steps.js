import assert from "node:assert/strict";
import { Given, Then, When } from "@cucumber/cucumber";
import { applyCoupon, shipping, subtotal } from "../../src/cart.js";

Given("a cart with {int} mugs at {float}", function (qty, price) {
  this.total = subtotal([{ price, qty }]);
});

When("I apply a {int} percent coupon", function (value) {
  this.total = applyCoupon(this.total, { kind: "percent", value });
});

When("I apply a fixed coupon of {int}", function (value) {
  this.total = applyCoupon(this.total, { kind: "fixed", value });
});

Then("the total is {float}", function (expected) {
  assert.equal(this.total.toFixed(2), expected.toFixed(2));
});

Then("shipping to {word} costs {float}", function (country, expected) {
  assert.equal(shipping(this.total, country), expected);
});
