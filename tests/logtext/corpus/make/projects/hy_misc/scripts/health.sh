#!/usr/bin/env bash
set -e
echo "checking health of the preview deployment"
curl -fsS --max-time 3 http://localhost:9/healthz
echo "healthy"
