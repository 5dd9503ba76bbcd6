# frozen_string_literal: true

require_relative '../lib/money'

RSpec.describe Money do
  describe '#+' do
    it 'adds amounts in the same currency' do
      expect(Money.new(150, 'EUR') + Money.new(250, 'EUR')).to eq(Money.new(400, 'EUR'))
    end

    it 'refuses to add different currencies' do
      expect { Money.new(1, 'EUR') + Money.new(1, 'USD') }.to raise_error(ArgumentError, /currency mismatch/)
    end
  end

  describe '#split' do
    it 'keeps every cent' do
      parts = Money.new(1000, 'EUR').split(3)
      expect(parts.sum(&:cents)).to eq(1000)
    end
  end

  describe '#to_s' do
    it 'shows cents' do
      expect(Money.new(1999, 'EUR').to_s).to eq('19.99 EUR')
    end
  end
end
