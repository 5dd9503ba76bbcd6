#!/bin/sh
# Remove old build output.
BUILD_DIR=${1:-build}
for f in $(ls $BUILD_DIR); do
  echo "removing $f"
done
rm -rf $BUILD_DIR/*
if [ $KEEP_LOGS == "yes" ]; then
  echo "keeping logs"
fi
