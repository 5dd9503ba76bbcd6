#!/usr/bin/env bash
set -eo pipefail
echo "reading release versions"
latest=$(jq -r '.releases.latest' package.json)
echo "latest: $latest"
lts=$(jq -r '.releases[0].lts' package.json)
echo "lts: $lts"
