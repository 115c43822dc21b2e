#!/bin/sh
# The abha-link serve flow with curl: validate, build, render, FHIR, an ABHA
# search through the server, and a submission followed to its outcome.
#   ABHA_LINK_SERVE_URL   the server (default http://127.0.0.1:8080)
#   ABHA_LINK_SERVE_TOKEN its token
#   $1                    a clinical input (default examples/opd-prescription.input.json)
set -eu
URL="${ABHA_LINK_SERVE_URL:-http://127.0.0.1:8080}"
INPUT="${1:-examples/opd-prescription.input.json}"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
# The token goes in a header file, so that it is not on the command line (visible in the process list).
printf 'Authorization: Bearer %s\nContent-Type: application/json\n' "$ABHA_LINK_SERVE_TOKEN" > "$OUT/headers"
api() { curl -sS --fail-with-body -H @"$OUT/headers" "$@"; }

curl -sS --fail "$URL/healthz" > /dev/null && echo "healthz: ok"

# 1. Build the link request from the clinical input (422 with every issue when it cannot be built).
api -X POST "$URL/v1/build" --data-binary @"$INPUT" > "$OUT/request.json"
echo "build: $(grep -o '"visitId":"[^"]*"' "$OUT/request.json")"

# 2. Validate it, with the lint rules (200 either way: look at "valid").
api -X POST "$URL/v1/validate?lint=true" --data-binary @"$OUT/request.json" | grep -q '"valid":true' && echo "validate: valid"

# 3. The printable prescription (HTML; ask for application/pdf to get a PDF where the server has Chromium).
api -X POST "$URL/v1/render?template=prescription&lang=en" -H 'Accept: text/html' --data-binary @"$INPUT" > "$OUT/prescription.html"
echo "render: $(wc -c < "$OUT/prescription.html" | tr -d ' ') bytes of HTML"

# 4. The FHIR document bundle.
api -X POST "$URL/v1/fhir" --data-binary @"$INPUT" > "$OUT/bundle.json"
grep -q '"resourceType":"Bundle"' "$OUT/bundle.json" && echo "fhir: a Bundle"

# 5. An ABHA search through the server (it holds the API key and the bearer token).
api -X POST "$URL/v1/service/api/m1/abha/search/abha" -d '{"mobile":"9000000001"}' | grep -q '"success":true' && echo "search: ok"

# 6. Queue the link request: 202 (or 200 when the same request was queued before), then follow it.
ID="$(api -X POST "$URL/v1/submissions" --data-binary @"$OUT/request.json" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')"
STATUS=queued
for _ in $(seq 1 100); do
  STATUS="$(api "$URL/v1/submissions/$ID" | sed -n 's/.*"status":"\([^"]*\)".*/\1/p')"
  case "$STATUS" in queued | sending) sleep 0.2 ;; *) break ;; esac
done
echo "submission $ID: $STATUS"
[ "$STATUS" = acknowledged ]
