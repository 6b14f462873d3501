#!/usr/bin/env bash
# Builds (if needed) and runs every test: lit regression tests, integration
# tests and gtest unit tests. Ends with "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
build=${AMP_BUILD_DIR:-build}
scripts/build.sh || exit 1

xml="$build/test-results.xml"
/usr/lib/llvm-22/bin/lit -sv --xunit-xml-output="$xml" \
  "$build/test"
status=$?

python3 - "$xml" <<'PY'
import sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
tests = sum(int(s.get("tests", 0)) for s in suites)
failed = sum(int(s.get("failures", 0)) + int(s.get("errors", 0) or 0)
             for s in suites)
skipped = sum(int(s.get("skipped", 0)) for s in suites)
print(f"{tests - failed - skipped} passed, {failed} failed, {skipped} skipped")
PY
exit $status
