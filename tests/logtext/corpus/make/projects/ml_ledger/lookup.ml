let rates = [ ("EUR", 100); ("USD", 92) ]

let () =
  let code = if Array.length Sys.argv > 1 then Sys.argv.(1) else "EUR" in
  Printf.printf "%s: %d\n" code (List.assoc code rates)
