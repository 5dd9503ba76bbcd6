using System;
using System.Collections.Generic;

namespace Acme.Bank
{
    public static class Program
    {
        public static int Main(string[] args)
        {
            int retries;
            var accounts = new Dictionary<string, Account>();
            accounts["ada"] = new Account("ada");
            accounts["ada"].Deposit(100m);
            var who = args.Length > 0 ? args[0] : "ada";
            Console.WriteLine($"balance of {who}: {accounts[who].Balance}");
            return 0;
        }
    }
}
