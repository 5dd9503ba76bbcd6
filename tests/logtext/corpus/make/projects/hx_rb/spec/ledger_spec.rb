require_relative '../lib/ledger'
require_relative '../lib/ledger_export'

RSpec.describe Ledger do
  it 'sums entries' do
    expect(Ledger.new.add(5, 'a').add(7, 'b').balance).to eq(12)
  end
end
