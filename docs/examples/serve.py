"""The abha-link serve flow in Python (standard library only): build,
validate, render, FHIR, an ABHA search through the server, and a submission
followed to its outcome.

    ABHA_LINK_SERVE_URL=http://127.0.0.1:8080 ABHA_LINK_SERVE_TOKEN=... python3 serve.py [clinical-input.json]
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request

URL = os.environ.get("ABHA_LINK_SERVE_URL", "http://127.0.0.1:8080")
TOKEN = os.environ["ABHA_LINK_SERVE_TOKEN"]


def call(method, path, body=None, accept="application/json"):
    """One request to the server; returns (status, body as JSON or text)."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    req = urllib.request.Request(URL + path, data=data, method=method)
    req.add_header("Authorization", "Bearer " + TOKEN)
    req.add_header("Content-Type", "application/json")
    req.add_header("Accept", accept)
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            status, raw, ctype = res.status, res.read(), res.headers.get("Content-Type", "")
    except urllib.error.HTTPError as e:
        status, raw, ctype = e.code, e.read(), e.headers.get("Content-Type", "")
    return status, (json.loads(raw) if "json" in ctype else raw.decode("utf-8"))


def fail(what, status, body):
    # The issues name the field (a JSON Pointer) and what was expected.
    issues = body.get("issues", []) if isinstance(body, dict) else []
    for i in issues:
        print(f"  {i['path'] or '/'}: {i['message']} ({i['code']})", file=sys.stderr)
    sys.exit(f"{what}: HTTP {status}")


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "examples/opd-prescription.input.json"
    with open(path, encoding="utf-8") as f:
        clinical_input = json.load(f)

    status, request = call("POST", "/v1/build", clinical_input)
    if status != 200:
        fail("build", status, request)
    print("build:", request["visitId"])

    status, result = call("POST", "/v1/validate?lint=true", request)
    if not result["valid"]:
        fail("validate", status, {"issues": result["errors"]})
    print("validate: valid")

    status, html = call("POST", "/v1/render?template=prescription", clinical_input, accept="text/html")
    if status != 200:
        fail("render", status, html)
    print(f"render: {len(html.encode('utf-8'))} bytes of HTML")

    status, bundle = call("POST", "/v1/fhir", clinical_input)
    if status != 200:
        fail("fhir", status, bundle)
    print("fhir: a", bundle["resourceType"], "of", len(bundle["entry"]), "entries")

    status, found = call("POST", "/v1/service/api/m1/abha/search/abha", {"mobile": "9000000001"})
    if status != 200:
        fail("search", status, found)
    print("search:", len(found["data"]), "result(s)")

    status, queued = call("POST", "/v1/submissions", request)
    if status not in (200, 202):
        fail("submit", status, queued)
    submission = queued
    for _ in range(100):
        if submission["status"] not in ("queued", "sending"):
            break
        time.sleep(0.2)
        _, submission = call("GET", "/v1/submissions/" + queued["id"])
    print(f"submission {queued['id']}: {submission['status']}")
    sys.exit(0 if submission["status"] == "acknowledged" else 1)


if __name__ == "__main__":
    main()
