package main

import (
	"log"
	"os"
)

func main() {
	log.Println("loading settings")
	data, err := os.ReadFile("settings.yaml")
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("loaded %d bytes", len(data))
}
