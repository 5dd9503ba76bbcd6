import std/[unittest, tables]
import inventory

suite "inventory":
  test "parse an item":
    let it = parseItem("A-1, 3")
    check it.sku == "A-1"
    check it.qty == 3

  test "totals add up per sku":
    let t = totals(@[parseItem("A-1, 3"), parseItem("A-1, 2")])
    check t["A-1"] == 5

  test "unknown sku is absent":
    let t = totals(@[parseItem("A-1, 3")])
    check not t.hasKey("Z-9")
