package main

import "fmt"

type Item struct {
	SKU string
	Qty   int
}

func main() {
	items := []Item{{"MUG-01", 12}, {"TEA-07", 40}}
	for _, it := range items {
		if it.Qty<20 { fmt.Println("low:", it.SKU) }
	}
}
