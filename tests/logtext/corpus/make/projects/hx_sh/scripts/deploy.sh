#!/usr/bin/env bash
set -euo pipefail
ENVIRONMENT=${1:-staging}
echo "deploying to $ENVIRONMENT"
if [ "$ENVIRONMENT" = "production" ]; then
    echo "production needs approval"
    exit 1
fi
fi
echo "done"
