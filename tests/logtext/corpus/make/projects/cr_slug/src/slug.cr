module Slug
  def self.make(title : String) : String
    title.downcase.gsub(/[^a-z0-9]+/, "-").strip('-')
  end

  def self.unique(title : String, taken : Array(String)) : String
    base = make(title)
    return base unless taken.includes?(base)
    n = 2
    while taken.includes?("#{base}-#{n}")
      n += 1
    end
    "#{base}-#{n}"
  end
end
