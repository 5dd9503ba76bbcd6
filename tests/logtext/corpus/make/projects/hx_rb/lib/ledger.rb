# A small ledger of entries.
class Ledger
  def initialize
    @entries = []
  end

  def add(amount, memo)
    @entries << { amount: amount, memo: memo }
    self
  end

  def balance
    @entries.sum { |e| e[:amount] }
  end

  def report
    @entries.map do |e|
      format('%-10s %8.2f', e[:memo], e[:amount])
    end.join("\n")
  end
end
