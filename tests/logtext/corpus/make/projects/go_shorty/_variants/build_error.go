package main

import (
	"fmt"
	"log"
	"os"
	"strings"

	"example.com/shorty/store"
)

func main() {
	s := store.New()
	if err := s.Put("home", "https://example.com"); err != nil {
		log.Fatal(err)
	}
	url, err := s.Get("home")
	count := s.Count()
	fmt.Fprintln(os.Stdout, "home ->", url, count)
}
