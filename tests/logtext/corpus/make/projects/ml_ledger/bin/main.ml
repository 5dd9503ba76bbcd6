let () =
  let lines = [ "cash, 1250"; "bank, 40000"; "cash, -300" ] in
  let entries = List.map Ledger.parse lines in
  Printf.printf "cash: %s\n" (Ledger.format_cents (Ledger.balance entries "cash"));
  Printf.printf "bank: %s\n" (Ledger.format_cents (Ledger.balance entries "bank"))
