package main

import (
	"fmt"

	"github.com/acme/feedclient/v2"
)

func main() {
	fmt.Println(feedclient.Version)
}
