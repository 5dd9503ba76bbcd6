type entry = { account : string; cents : int }

let parse line =
  match String.split_on_char ',' line with
  | [ account; amount ] -> { account = String.trim account; cents = int_of_string (String.trim amount) }
  | _ -> failwith ("bad line: " ^ line)

let balance entries account =
  List.fold_left (fun acc e -> if e.account = account then acc + e.cents else acc) 0 entries

let format_cents c = Printf.sprintf "%d.%02d" (c / 100) (abs c mod 100)
