#!/usr/bin/env bash
# A CI step with Floe's own commands: lint the schemas, start Floe, push them, run the app's tests
# against its collector, and assert what they sent. Exits non-zero at the first thing that fails.
#
#   FLOE        how to run Floe (default: npx floe)
#   SCHEMAS     the schemas directory, laid out as vendor/name/jsonschema/1-0-0 (default: schemas)
#   APP_TESTS   the command that runs the app's tests; it finds the collector in FLOE_COLLECTOR_URL
#   ASSERTION   the JSON of POST /micro/assert (default: no bad event, no violation)
#   PORT        Floe's port (default: 9090)
set -euo pipefail

FLOE=${FLOE:-npx floe}
SCHEMAS=${SCHEMAS:-schemas}
PORT=${PORT:-9090}
ASSERTION=${ASSERTION:-'{"maxBad": 0, "maxViolations": 0}'}
: "${APP_TESTS:?names the command that runs the tests of the app}"

echo "--- floe schemas lint $SCHEMAS"
$FLOE schemas lint "$SCHEMAS"

# A throwaway organization and admin key for this run: Floe creates them at its first start.
new_uuid() { node -e 'console.log(require("node:crypto").randomUUID())'; }
export FLOE_BOOTSTRAP_ORG_ID=${FLOE_BOOTSTRAP_ORG_ID:-$(new_uuid)}
export FLOE_BOOTSTRAP_API_KEY_ID=${FLOE_BOOTSTRAP_API_KEY_ID:-$(new_uuid)}
export FLOE_BOOTSTRAP_API_KEY=${FLOE_BOOTSTRAP_API_KEY:-ci-$(new_uuid)}
export FLOE_DATA_DIR=${FLOE_DATA_DIR:-$(mktemp -d)/floe}

echo "--- floe start on port $PORT"
$FLOE start --port "$PORT" --log-level warn &
floe_pid=$!
trap 'kill "$floe_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  curl -sf "http://localhost:$PORT/health" >/dev/null && break
  kill -0 "$floe_pid" 2>/dev/null || { echo "floe start stopped" >&2; exit 1; }
  sleep 0.2
done
curl -sf "http://localhost:$PORT/health" >/dev/null

echo "--- floe schemas push $SCHEMAS --env prod"
export SNOWPLOW_CONSOLE_API_URL="http://localhost:$PORT/api/msc"
export SNOWPLOW_CONSOLE_ORG_ID=$FLOE_BOOTSTRAP_ORG_ID
export SNOWPLOW_CONSOLE_API_KEY_ID=$FLOE_BOOTSTRAP_API_KEY_ID
export SNOWPLOW_CONSOLE_API_KEY=$FLOE_BOOTSTRAP_API_KEY
$FLOE schemas push "$SCHEMAS" --env prod

echo "--- the app's tests: $APP_TESTS"
export FLOE_COLLECTOR_URL="http://localhost:$PORT"
bash -c "$APP_TESTS"

echo "--- POST /micro/assert $ASSERTION"
curl -sS --fail-with-body -X POST -H 'content-type: application/json' \
  --data "$ASSERTION" "http://localhost:$PORT/micro/assert"
echo
