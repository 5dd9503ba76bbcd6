use ledger::Ledger;
use std::env;

fn main() {
    let mut ledger = Ledger::default();
    ledger.post("cash", 10_000);
    let account = env::var("LEDGER_ACCOUNT").ok();
    let target = account.as_deref().unwrap_or("savings");
    ledger.transfer("cash", target, 2_500).expect("transfer failed");
    let limit: i64 = env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(0);
    println!("{target}: {} (limit {limit})", ledger.balance(target));
}
