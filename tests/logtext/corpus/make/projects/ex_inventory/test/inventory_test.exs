defmodule InventoryTest do
  use ExUnit.Case

  test "adding stock" do
    stock = Inventory.new() |> Inventory.add("apple", 3) |> Inventory.add("apple", 2)
    assert stock == %{"apple" => 5}
  end

  test "removing too much is refused" do
    stock = Inventory.new() |> Inventory.add("pear", 1)
    assert Inventory.remove(stock, "pear", 2) == {:error, {:insufficient, "pear", 1}}
  end

  test "removing an unknown sku" do
    assert Inventory.remove(%{}, "kiwi", 1) == {:error, :unknown_sku}
  end

  test "adding zero is a no-op" do
    stock = Inventory.new() |> Inventory.add("fig", 0)
    assert stock == %{}
  end

  test "total" do
    assert Inventory.total(%{"a" => 1, "b" => 2}) == 3
  end
end
