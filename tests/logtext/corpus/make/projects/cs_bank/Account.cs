using System;
using System.Collections.Generic;

namespace Acme.Bank
{
    public class Account
    {
        private readonly List<decimal> _moves = new List<decimal>();

        public string Owner { get; }

        public Account(string owner)
        {
            Owner = owner;
        }

        public void Deposit(decimal amount)
        {
            if (amount <= 0) throw new ArgumentOutOfRangeException(nameof(amount), "deposit must be positive");
            _moves.Add(amount);
        }

        public void Withdraw(decimal amount)
        {
            if (amount > Balance) throw new InvalidOperationException($"insufficient funds for {Owner}");
            _moves.Add(-amount);
        }

        public decimal Balance
        {
            get
            {
                decimal total = 0;
                foreach (var m in _moves) total += m;
                return total;
            }
        }
    }
}
