//! A tiny double-entry ledger.

use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub account: String,
    pub cents: i64,
}

#[derive(Default)]
pub struct Ledger {
    entries: Vec<Entry>,
}

impl Ledger {
    pub fn post(&mut self, account: &str, cents: i64) {
        self.entries.push(Entry { account: account.to_string(), cents });
    }

    pub fn balance(&self, account: &str) -> i64 {
        self.entries.iter().filter(|e| e.account == account).map(|e| e.cents).sum()
    }

    pub fn balances(&self) -> HashMap<String, i64> {
        let mut out = HashMap::new();
        for e in &self.entries {
            *out.entry(e.account.clone()).or_insert(0) += e.cents;
        }
        out
    }

    pub fn transfer(&mut self, from: &str, to: &str, cents: i64) -> Result<(), String> {
        if self.balance(from) < cents {
            return Err(format!("insufficient funds in {from}"));
        }
        self.post(from, -cents);
        self.post(to, cents);
        Ok(())
    }

    pub fn fee(&self, cents: i64) -> i64 {
        cents * 15 / 1000
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posts_add_up() {
        let mut l = Ledger::default();
        l.post("cash", 500);
        l.post("cash", -200);
        assert_eq!(l.balance("cash"), 300);
    }

    #[test]
    fn transfer_moves_money() {
        let mut l = Ledger::default();
        l.post("a", 1000);
        l.transfer("a", "b", 400).unwrap();
        assert_eq!(l.balance("b"), 400);
    }

    #[test]
    fn fee_rounds_up() {
        let l = Ledger::default();
        assert_eq!(l.fee(1010), 16, "fee for 10.10 should round up to 0.16");
    }

    #[test]
    fn overdraft_is_refused() {
        let mut l = Ledger::default();
        l.post("a", 10);
        let err = l.transfer("a", "b", 50).unwrap_err();
        assert_eq!(err, "insufficient funds in a");
    }
}
