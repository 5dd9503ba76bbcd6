local csv = {}

function csv.split(line, sep)
  sep = sep or ","
  local fields = {}
  for field in string.gmatch(line, "([^" .. sep .. "]+)") do
    fields[#fields + 1] = field
  end
  return fields
end

function csv.parse(text)
  local rows = {}
  for line in string.gmatch(text, "[^\n]+") do
    rows[#rows + 1] = csv.split(line)
  end
  return rows
end

function csv.header(rows)
  local index = {}
  for i, name in ipairs(rows[1]) do
    index[name:lower()] = i
  end
  return index
end

return csv
