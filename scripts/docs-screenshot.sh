#!/bin/sh
# Renders GET /docs of a running Parley in headless Chromium and saves a
# screenshot, to check the reference page by eye (not part of CI).
# Needs: apt-get install chromium.  Usage: scripts/docs-screenshot.sh [BASE_URL] [OUT.png]
set -eu
base=${1:-http://127.0.0.1:8080}
out=${2:-docs.png}
chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
  --window-size=1400,1000 --virtual-time-budget=10000 --screenshot="$out" "$base/docs"
echo "$out"
