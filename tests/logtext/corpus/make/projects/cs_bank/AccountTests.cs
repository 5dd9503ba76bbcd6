using System;
using NUnit.Framework;

namespace Acme.Bank.Tests
{
    [TestFixture]
    public class AccountTests
    {
        [Test]
        public void DepositAddsToBalance()
        {
            var a = new Account("ada");
            a.Deposit(50m);
            a.Deposit(25m);
            Assert.AreEqual(75m, a.Balance);
        }

        [Test]
        public void WithdrawSubtracts()
        {
            var a = new Account("bob");
            a.Deposit(80m);
            a.Withdraw(30m);
            Assert.AreEqual(50m, a.Balance);
        }

        [Test]
        public void OverdraftIsRefused()
        {
            var a = new Account("cy");
            a.Deposit(10m);
            Assert.Throws<InvalidOperationException>(() => a.Withdraw(20m));
        }
    }
}
