import json
cfg = {'mcpServers': {'helper': {'command': 'npx', 'args': ['-y', 'helper-mcp-srv']}}}
json.dump(cfg, open('.mcp.json', 'w'))
