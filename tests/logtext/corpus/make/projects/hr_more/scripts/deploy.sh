#!/usr/bin/env bash
set -euo pipefail

target=${1:-staging}
if [ "$target" = "production" ]
then
  echo "deploying to production"
fi
for f in dist/*; do
    echo "upload $f"
done
