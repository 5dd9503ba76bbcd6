defmodule Inventory.MixProject do
  use Mix.Project

  def project do
    [app: :inventory, version: "0.2.0", elixir: "~> 1.14", deps: []]
  end

  def application, do: [extra_applications: [:logger]]
end
