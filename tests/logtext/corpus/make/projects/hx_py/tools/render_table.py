"""Render the rate table as Markdown for the docs."""
import sys

from shipping.rates import ZONES, rate

def main(out):
    rows = ["| zone | 1 kg | 5 kg |", "|---|---|---|"]
    for code in sorted(ZONES):
        rows.append(f"| {code} | {rate(1, code)} | {rate(5, code)} |"
    out.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main(sys.stdout)
