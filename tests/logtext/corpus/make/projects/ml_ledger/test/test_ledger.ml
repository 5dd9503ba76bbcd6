let check name got want =
  if got = want then Printf.printf "ok   %s\n" name
  else begin
    Printf.printf "FAIL %s: got %S, want %S\n" name got want;
    exit 1
  end

let () =
  let entries = List.map Ledger.parse [ "cash, 1250"; "cash, -300" ] in
  check "format whole" (Ledger.format_cents 40000) "400.00";
  check "format cents" (Ledger.format_cents 1205) "12.05";
  check "balance cash" (Ledger.format_cents (Ledger.balance entries "cash")) "9.50";
  assert (Ledger.balance entries "bank" = 0);
  print_endline "all ledger tests passed"
