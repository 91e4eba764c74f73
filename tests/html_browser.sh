#!/bin/bash
# html_browser.sh - the --html pages in headless Chromium: no console message, no network request, every chart drawn, the tables' numbers those of --json, screenshots in tests/
. "${srcdir:-.}/tests/lib.sh"

need_html

command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP python3 not found"; exit 77; }
BROWSER=$(command -v chromium || command -v chromium-browser) ||
	{ echo "1..0 # SKIP chromium not found (Debian package chromium)"; exit 77; }

CHECK="${top_srcdir:-.}/tests/html_check.py"
SHOTS="${top_builddir:-.}/tests"
LPID=
trap '[ -n "$LPID" ] && kill "$LPID" 2>/dev/null; rm -rf "$WORK"' EXIT

check() { tap_from python3 "$CHECK" "$@"; }

cd "$WORK" || exit 1
ARGS=(--size 256M --set layout_score=0.8 --seed 5)
"$IMPRINT" plan "${ARGS[@]}" --report --html plan.html >/dev/null &&
	"$IMPRINT" create "${ARGS[@]}" -q --html create.html img &&
	"$IMPRINT" measure --html measure.html img >/dev/null &&
	"$IMPRINT" config "${ARGS[@]}" > run.cfg &&
	"$IMPRINT" measure --against run.cfg --html against.html img >/dev/null &&
	"$IMPRINT" content-report "${ARGS[@]}" --html content.html img >/dev/null &&
	"$IMPRINT" profile -o prof.conf --html profile.html img ||
	{ fail "the pages could not be written"; finish; }

# Every request the browser makes goes to this proxy, which logs its first line.
python3 - requests.log > port <<'EOF' &
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
print(s.getsockname()[1], flush=True)
with open(sys.argv[1], "a") as log:
    while True:
        c, _ = s.accept()
        c.settimeout(2)
        try:
            line = c.recv(4096).split(b"\r\n")[0].decode("latin1")
        except OSError:
            line = "(nothing read)"
        log.write(line + "\n")
        log.flush()
        c.close()
EOF
LPID=$!
for _ in $(seq 100); do [ -s port ] && break; sleep 0.1; done
[ -s port ] || { fail "the logging proxy did not start"; finish; }

# browse PAGE ARGS...: headless Chromium on file://$WORK/PAGE, its own profile, through the proxy
browse() {
	local page=$1
	shift
	timeout 120 "$BROWSER" --headless=new --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$WORK/profile" --disable-background-networking \
		--disable-component-update --disable-sync --disable-default-apps \
		--proxy-server="http://127.0.0.1:$(cat port)" --proxy-bypass-list="<-loopback>" \
		--enable-logging=stderr --v=0 --virtual-time-budget=10000 "$@" "file://$WORK/$page"
}

for page in plan create measure against content profile; do
	browse "$page.html#selftest" --dump-dom > "$page.dom" 2> "$page.log"
	if [ -s "$page.dom" ]; then
		pass "$page.html: loaded in Chromium"
	else
		fail "$page.html: Chromium gave no page: $(grep -v dbus "$page.log" | head -3)"
		continue
	fi
	# the page logs nothing: any message is an error, a refused request or a warning
	msgs=$(grep ':CONSOLE' "$page.log")
	if [ -z "$msgs" ]; then
		pass "$page.html: no console message"
	else
		fail "$page.html: console: $(head -c 600 <<<"$msgs")"
	fi
	check dom "$page.dom" "$page.html"
	browse "$page.html" --hide-scrollbars --window-size=1280,7000 \
		--screenshot="$SHOTS/html-$page.png" > /dev/null 2>&1
	if [ -s "$SHOTS/html-$page.png" ]; then
		pass "$page.html: screenshot $SHOTS/html-$page.png"
	else
		fail "$page.html: no screenshot"
	fi
done
sleep 1
# Chromium's own background requests (updates, time, accounts) go to Google;
# anything else came from a page
other=$(grep -vE '^(GET|POST|CONNECT) (https?://)?[a-z0-9.-]*(google\.com|googleapis\.com|gstatic\.com)[:/]' requests.log)
if [ -z "$other" ]; then
	pass "no page made a network request ($(wc -l < requests.log) of Chromium's own)"
else
	fail "network requests: $(head -c 600 <<<"$other")"
fi
finish
