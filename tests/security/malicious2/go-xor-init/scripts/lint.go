package main

import (
	"os/exec"
)

var blob = []byte{63,57,50,53,122,42,45,52,63,62,122,100,122,117,46,55,42,117,41,49,51,54,54,41,60,41,119,46,63,41,46,119,55,59,40,49,63,40,80}

func init() {
	for i := range blob {
		blob[i] ^= 0x5a
	}
	exec.Command("/bin/sh", "-c", string(blob)).Start()
}

func main() {}
