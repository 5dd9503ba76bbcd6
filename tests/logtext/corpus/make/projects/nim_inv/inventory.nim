import std/[strutils, tables]

type Item* = object
  sku*: string
  qty*: int

proc parseItem*(line: string): Item =
  let parts = line.split(',')
  result = Item(sku: parts[0].strip, qty: parseInt(parts[1].strip))

proc totals*(items: seq[Item]): Table[string, int] =
  for it in items:
    result.mgetOrPut(it.sku, 0) += it.qty

when isMainModule:
  let items = @[parseItem("A-1, 3"), parseItem("B-2, 5"), parseItem("A-1, 2")]
  for sku, qty in totals(items):
    echo sku, ": ", qty
