# frozen_string_literal: true

# Money amounts in cents with a currency.
class Money
  attr_reader :cents, :currency

  def initialize(cents, currency)
    @cents = cents
    @currency = currency
  end

  def +(other)
    raise ArgumentError, "currency mismatch: #{currency} vs #{other.currency}" unless other.currency == currency

    Money.new(cents + other.cents, currency)
  end

  def split(parts)
    base = cents / parts
    Array.new(parts) { Money.new(base, currency) }
  end

  def to_s
    format('%.2f %s', cents / 100, currency)
  end

  def ==(other)
    other.is_a?(Money) && other.cents == cents && other.currency == currency
  end
end
