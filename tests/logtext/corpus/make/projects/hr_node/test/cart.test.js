import { describe, expect, it } from "vitest";
import { applyCoupon, lineLabels, shipping, subtotal } from "../src/cart.js";

describe("cart", () => {
  it("sums prices times quantities", () => {
    expect(subtotal([{ price: 2.5, qty: 2 }, { price: 1, qty: 3 }])).toBe(8);
  });

  it("applies a percent coupon", () => {
    expect(applyCoupon(80, { kind: "percent", value: 25 })).toBe(60);
  });

  it("labels lines with name first", () => {
    expect(lineLabels([{ name: "mug", qty: 2 }, { name: "tea", qty: 1 }])).toEqual(["mug x 2", "tea x 1"]);
  });

  it("ships free in DE from 50", () => {
    expect(shipping(50, "DE")).toBe(0);
  });
});
