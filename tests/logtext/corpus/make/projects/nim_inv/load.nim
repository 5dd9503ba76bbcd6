import inventory

let lines = @["A-1, 3", "B-2, five"]
for line in lines:
  echo parseItem(line).qty
