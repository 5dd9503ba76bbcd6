# frozen_string_literal: true

require 'minitest/autorun'
require_relative '../lib/money'

class MoneyTest < Minitest::Test
  def test_add
    assert_equal Money.new(400, 'EUR'), Money.new(150, 'EUR') + Money.new(250, 'EUR')
  end

  def test_to_s
    assert_equal '19.99 EUR', Money.new(1999, 'EUR').to_s
  end

  def test_split_total
    assert_equal 1000, Money.new(1000, 'EUR').split(3).sum(&:cents)
  end

  def test_mismatch
    Money.new(1, 'EUR') + Money.new(1, 'GBP')
  end
end
