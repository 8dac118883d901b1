Write-Output ok
