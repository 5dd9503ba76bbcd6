package.path = "src/?.lua;" .. package.path
local csv = require("csv")

describe("csv", function()
  it("splits a simple line", function()
    assert.are.same({ "a", "b", "c" }, csv.split("a,b,c"))
  end)

  it("keeps empty fields", function()
    assert.are.same({ "a", "", "c" }, csv.split("a,,c"))
  end)

  it("parses rows", function()
    assert.are.equal(2, #csv.parse("a,b\nc,d\n"))
  end)

  it("indexes the header", function()
    local index = csv.header(csv.parse(""))
    assert.are.equal(1, index.name)
  end)
end)
