#!/usr/bin/env bash
# make report's pages in a real headless browser (Debian's chromium, through
# tests/report_browser.py): the page of one committed results folder and of
# one comparison load without an error (console, exception, a load refused
# by the page's Content-Security-Policy or failed), every figure is
# displayed (naturalWidth > 0) and the claims table is there; a page that
# loads something from outside, or carries a broken figure, is caught.
# Skipped with the reason where no browser is installed (scripts/deps.sh
# check installs one). The HTML itself is checked by tests/py/test_report.py.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 >/dev/null || skip "python3 missing"
browse="$top/tests/report_browser.py"
id=x86_64-intel-xeon-2c-91afb010
md=$(find "$top/plots/compare" -name '*.md' 2>/dev/null | sort | head -1)
[ -n "$md" ] || fail "no comparison page (plots/compare/*.md) to check"

"$top/scripts/tc-report" -o "$TMP/report" "$top/results/$id" --compare "$md" >"$TMP/log" 2>&1 ||
    { cat "$TMP/log"; fail "tc-report exited non-zero"; }
page="$TMP/report/$id.html"
[ -s "$page" ] || fail "no page $page: $(cat "$TMP/log")"

python3 "$browse" "$page" >"$TMP/page.json"
rc=$?
[ "$rc" = 77 ] && skip "$(tail -1 "$TMP/page.json")"
[ "$rc" = 0 ] || { cat "$TMP/page.json"; fail "the folder's page: errors or a figure not displayed"; }
# every figure of plots/<id>/ (one per name, PNG or SVG) is on the page, displayed
figs=$(find "$top/plots/$id" -maxdepth 1 \( -name '*.png' -o -name '*.svg' \) | sed 's/\.[a-z]*$//' | sort -u | wc -l)
python3 - "$TMP/page.json" "$figs" <<'PY' || fail "the folder's page: $(cat "$TMP/page.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert not d["errors"], d["errors"]
assert len(d["images"]) == int(sys.argv[2]), (len(d["images"]), sys.argv[2])
assert all(i["width"] > 0 for i in d["images"])
assert d["claims_rows"] > 10, d["claims_rows"]
PY

# the index: a row per results folder (with its header), newest first and
# marked, each with its verdict counts and host state, loading cleanly
id2=x86_64-amd-epyc-2c-33bbf912
"$top/scripts/tc-report" -o "$TMP/index" "$top/results/$id" "$top/results/$id2" >"$TMP/ilog" 2>&1 ||
    { cat "$TMP/ilog"; fail "tc-report (two folders) exited non-zero"; }
python3 "$browse" "$TMP/index/index.html" >"$TMP/index.json" || { cat "$TMP/index.json"; fail "the index: errors"; }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["tables"] == [3], d' "$TMP/index.json" || fail "the index: not one table of 2 folders: $(cat "$TMP/index.json")"
grep -q "<tr class=\"newest\"><td><a href=\"$id2.html\">$id2</a><br><span class=\"badge\">newest" "$TMP/index/index.html" ||
    fail "the index: $id2 (2026-12-04) not first and marked newest"
grep -q '<td class="num" title="27 claims: [0-9]* hold[^"]*">27</td><td class="num c-hold">[0-9]' "$TMP/index/index.html" ||
    fail "the index: no verdict counts"
grep -q 'class="host-' "$TMP/index/index.html" || fail "the index: no host state column"

cpage=$(ls "$TMP/report"/compare-*.html)
python3 "$browse" "$cpage" >"$TMP/compare.json" || { cat "$TMP/compare.json"; fail "the comparison page: errors or a figure not displayed"; }
has_both='import json,sys; d=json.load(open(sys.argv[1])); assert d["images"] and d["tables"], d'
python3 -c "$has_both" "$TMP/compare.json" || fail "the comparison page has no figure or no table"

# the check can fail: a figure loaded from outside (refused by the page's
# policy) and a broken one are both reported
sed 's|<img src="data:image/png;base64,[A-Za-z0-9+/=]*"|<img src="https://example.invalid/x.png"|' "$page" >"$TMP/outside.html"
python3 "$browse" "$TMP/outside.html" >"$TMP/outside.json" && fail "a page loading from outside passed"
grep -q "Content Security Policy" "$TMP/outside.json" || fail "outside load not reported: $(head -20 "$TMP/outside.json")"
sed '0,/base64,[A-Za-z0-9+/]\{40\}/s//base64,AAAA/' "$page" >"$TMP/broken.html"
python3 "$browse" "$TMP/broken.html" >"$TMP/broken.json" && fail "a page with a broken figure passed"
grep -q '"width": 0' "$TMP/broken.json" || fail "broken figure not reported"
exit 0
