#!/usr/bin/env bash
set -eu
echo "tagging release $(jq -r .version package.json)"
: "${RELEASE_TOKEN:?must be set for tagged builds (Settings > CI/CD > Variables)}"
echo "uploading"
