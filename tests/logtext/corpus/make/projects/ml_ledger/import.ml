let () =
  let entries = List.map Ledger.parse [ "cash, 12.50" ] in
  print_int (List.length entries)
