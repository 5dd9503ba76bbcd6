defmodule Inventory do
  @moduledoc "Stock levels per SKU."

  def new, do: %{}

  def add(stock, sku, qty) when qty > 0, do: Map.update(stock, sku, qty, &(&1 + qty))

  def remove(stock, sku, qty) do
    case Map.fetch(stock, sku) do
      {:ok, have} when have >= qty -> {:ok, Map.put(stock, sku, have - qty)}
      {:ok, have} -> {:error, {:insufficient, sku, have}}
      :error -> {:error, {:unknown, sku}}
    end
  end

  def total(stock), do: stock |> Map.values() |> Enum.sum()

  def restock_all(stock, qty), do: Map.new(stock, fn {sku, have} -> {sku, have + qty} end)
end
