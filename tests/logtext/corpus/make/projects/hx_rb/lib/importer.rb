require_relative 'ledger'

# Imports CSV rows into a ledger.
class Importer
  def initialize(ledger)
    @ledger = ledger
  end

  def import(rows)
    rows.each do |row|
      amount, memo = row.split(',')
      @ledger.add(Float(amount), memo)
    end
  end
