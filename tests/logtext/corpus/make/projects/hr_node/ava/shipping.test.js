import test from "ava";
import { applyCoupon, shipping } from "../src/cart.js";

test("fixed coupon never goes below zero", (t) => {
  t.is(applyCoupon(5, { kind: "fixed", value: 10 }), 0);
});

test("percent coupons over 100 are rejected", (t) => {
  t.throws(() => applyCoupon(10, { kind: "percent", value: 120 }), { message: /percent/ });
});

test("shipping to DE under 50 costs 4.90", (t) => {
  t.is(shipping(20, "DE"), 4.9);
});
