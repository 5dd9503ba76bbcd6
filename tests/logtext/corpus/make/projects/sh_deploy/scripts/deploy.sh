#!/bin/bash
# Deploy the release to the staging host.
set -e
echo "==> deploying $(cat VERSION) to ${DEPLOY_HOST:-staging.internal}"
echo "==> checking tools"
helm version --short
echo "==> uploading"
