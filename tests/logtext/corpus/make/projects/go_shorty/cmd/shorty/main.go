package main

import (
	"fmt"
	"log"
	"os"

	"example.com/shorty/store"
)

func main() {
	s := store.New()
	if err := s.Put("home", "https://example.com"); err != nil {
		log.Fatal(err)
	}
	url, err := s.Get("home")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintln(os.Stdout, "home ->", url)
}
