import { expect, it } from "vitest";
import { applyCoupon } from "../src/cart.js";

it("rejects unknown coupon kinds", () => {
  console.error("Error: legacy coupon table missing, falling back to defaults");
  expect(() => applyCoupon(10, { kind: "bogo" })).toThrow("unknown coupon kind");
});
