#!/bin/bash
# html.sh - the --html pages of plan, create, measure and content-report: offline, their figures those of --json and of the manifest, the disk map against dumpe2fs
. "${srcdir:-.}/tests/lib.sh"

need_html

command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP python3 not found"; exit 77; }
command -v dumpe2fs >/dev/null 2>&1 || { echo "1..0 # SKIP dumpe2fs not found"; exit 77; }

CHECK="${top_srcdir:-.}/tests/html_check.py"

# check CMD ARGS...: html_check.py's lines as TAP
check() { tap_from python3 "$CHECK" "$@"; }

ARGS=(--size 256M --set layout_score=0.8 --seed 5)
cd "$WORK" || exit 1
"$IMPRINT" plan "${ARGS[@]}" -o manifest.tsv || exit 1

expect_status 0 "plan --report --json --html" \
	"$IMPRINT" plan "${ARGS[@]}" --report --json --html plan.html
cp "$WORK/out" plan.json
expect_status 0 "create --json --html" "$IMPRINT" create "${ARGS[@]}" -q --json --html create.html img
cp "$WORK/out" create.json
expect_status 0 "measure --json --html" "$IMPRINT" measure --json --html measure.html img
cp "$WORK/out" measure.json
"$IMPRINT" config "${ARGS[@]}" > run.cfg
expect_status 0 "measure --against --json --html" \
	"$IMPRINT" measure --against run.cfg --json --html against.html img
cp "$WORK/out" against.json
expect_status 0 "content-report --json --html" \
	"$IMPRINT" content-report "${ARGS[@]}" --json --html content.html img
cp "$WORK/out" content.json

for page in plan create measure against content; do
	check offline $page.html
done
# the same run's --json output, figure for figure
check same plan.html plan plan.json
check same create.html create create.json
check same measure.html measure measure.json
check same against.html measure against.json
check same content.html content content.json
# what only the page draws, against the manifest (the image holds the plan)
check tree plan.html manifest.tsv
check tree measure.html manifest.tsv
check tree create.html manifest.tsv
# the disk map against dumpe2fs: one row a group, the free share
info=$(dumpe2fs -h img 2>/dev/null)
blocks=$(sed -n 's/^Block count: *//p' <<<"$info")
free=$(sed -n 's/^Free blocks: *//p' <<<"$info")
per=$(sed -n 's/^Blocks per group: *//p' <<<"$info")
check map measure.html "$blocks" "$free" $(((blocks + per - 1) / per))
check map create.html "$blocks" "$free" $(((blocks + per - 1) / per))

# the page's command to build the image again builds the same bytes
python3 -c 'import json, re, sys
t = open(sys.argv[1]).read()
m = re.search(r"id=\"imprint-data\">(.*?)</script>", t, re.S)
print(json.loads(m.group(1))["regenerate"], end="")' create.html > regenerate.sh
mkdir again
if (cd again && imprint() { "$IMPRINT" "$@"; } && . ../regenerate.sh > /dev/null) &&
	cmp -s img again/img; then
	pass "the page's rebuild command makes the same image ($(head -1 regenerate.sh))"
else
	fail "the page's rebuild command: $(head -1 regenerate.sh)"
fi
rm -f again/img

# text and JSON outputs do not change with --html
"$IMPRINT" measure img > plain.txt
"$IMPRINT" measure --html again.html img > with.txt
if cmp -s plain.txt with.txt; then pass "measure's text is the same with --html"; else fail "measure's text changes with --html"; fi

# the page is a file: what is not a report is never replaced
echo "precious" > notes.txt
expect_status 1 "a file that is not a report is refused" "$IMPRINT" measure --html notes.txt img
expect_err "'notes.txt' exists and is not an imprint report" "the refusal says why"
if [ "$(cat notes.txt)" = precious ]; then pass "the file is untouched"; else fail "the file was changed"; fi
expect_status 0 "an earlier report is replaced" "$IMPRINT" measure --html measure.html img
expect_status 1 "a directory is refused" "$IMPRINT" plan --html .
expect_err "is a directory" "the refusal names a directory"
expect_status 1 "'-' is refused" "$IMPRINT" plan --html -
expect_status 1 "an unwritable place is refused before the build" \
	"$IMPRINT" create --size 64M -q --html /nonexistent/dir/r.html img2
if [ ! -e img2 ]; then pass "nothing was built"; else fail "img2 was built"; fi
expect_status 2 "--html is not for config" "$IMPRINT" config --html x.html
expect_err "'--html' is only for 'plan', 'create', 'measure', 'content-report' and 'profile'" "the refusal lists the commands"
finish
