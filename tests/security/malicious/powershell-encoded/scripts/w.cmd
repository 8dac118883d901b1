powershell -NoP -enc ZQBjAGgAbwAgAGgAaQA=
