require "./slug"

titles = ARGV.empty? ? ["Hello World", "Release Notes 2.5"] : ARGV
slugs = titles.map { |t| Slug.make(t) }
puts slugs.join("\n")
puts "third: #{slugs[2]}"
