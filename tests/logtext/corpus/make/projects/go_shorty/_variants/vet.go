package main

import (
	"fmt"
	"log"

	"example.com/shorty/store"
)

func main() {
	s := store.New()
	if err := s.Put("home", "https://example.com"); err != nil {
		log.Fatal(err)
	}
	url, err := s.Get("home")
	if err != nil {
		log.Fatalf("lookup failed: %d", err)
	}
	fmt.Printf("home -> %s (%d hits)\n", url)
}
