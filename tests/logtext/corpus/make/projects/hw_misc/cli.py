"""Deploy helper."""
import argparse

parser = argparse.ArgumentParser(prog="deploy.py")
parser.add_argument("--env", required=True, choices=["staging", "production"])
parser.add_argument("--tag", required=True)
args = parser.parse_args()
print(f"deploying {args.tag} to {args.env}")
