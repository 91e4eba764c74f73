#!/bin/bash
# report_render.sh - every figure the text of measure, plan --report, content-report, a profile's header and create's summary shows equals its JSON's (tests/report_render.py, content_render.py, profile_render.py, create_render.py)
. "${srcdir:-.}/tests/lib.sh"

CHECK="${top_srcdir:-.}/tests/report_render.py"
CONTENT_CHECK="${top_srcdir:-.}/tests/content_render.py"
PROFILE_CHECK="${top_srcdir:-.}/tests/profile_render.py"
CREATE_CHECK="${top_srcdir:-.}/tests/create_render.py"
ARGS=(--size 64M --seed 12 --files 1500 --used 24M --set sparse_file_share=0.3
	--set xattr_user_share=0.2 --set acl_share=0.1 --set special_file_share=0.01
	--set prealloc_file_share=0.5 --set special_dirs=1 --set special_dir_files=100)

# agree WHAT KIND CMD...: CMD's text and CMD --json agree, figure by figure
agree() {
	local what=$1 kind=$2
	shift 2
	if ! "$@" >"$WORK/text" 2>"$WORK/err" || ! "$@" --json >"$WORK/json" 2>>"$WORK/err"; then
		fail "$what: $(head -c 300 "$WORK/err")"
		return
	fi
	if case $kind in
		content) python3 "$CONTENT_CHECK" "$WORK/text" "$WORK/json" ;;
		profile) python3 "$PROFILE_CHECK" "$WORK/text" "$WORK/json" ;;
		create) python3 "$CREATE_CHECK" "$WORK/text" "$WORK/json" ;;
		*) python3 "$CHECK" "$kind" "$WORK/text" "$WORK/json" ;;
	   esac >"$WORK/bad" 2>"$WORK/count"; then
		pass "$what: text and JSON agree ($(cat "$WORK/count"))"
	else
		fail "$what: $(head -5 "$WORK/bad" | tr '\n' ';')"
	fi
}

"$IMPRINT" config "${ARGS[@]}" >"$WORK/cfg" || fail "config"
"$IMPRINT" create -q "${ARGS[@]}" "$WORK/img" 2>"$WORK/err" || fail "create: $(head -c 300 "$WORK/err")"
agree "plan --report" plan "$IMPRINT" plan "${ARGS[@]}" --report
agree "plan --report, defaults" plan "$IMPRINT" plan --size 64M --files 800 --used 20M --report
agree "measure an image" measure "$IMPRINT" measure "$WORK/img"
agree "measure --against" measure "$IMPRINT" measure --against "$WORK/cfg" "$WORK/img"
agree "measure --against, aged" measure "$IMPRINT" measure --against "$WORK/cfg" \
	--set age_rounds=2 "$WORK/img"
agree "measure a tree" measure "$IMPRINT" measure "${top_srcdir:-.}/src"
agree "measure a tree --against" measure "$IMPRINT" measure --against "$WORK/cfg" "${top_srcdir:-.}/src"
agree "content-report an image" content "$IMPRINT" content-report "$WORK/img"
agree "content-report, predicted" content "$IMPRINT" content-report --config "$WORK/cfg" "$WORK/img"
agree "content-report, zero targets" content "$IMPRINT" content-report --set dup_file_share=0 \
	--set zero_block_share=0 --sample 0.5 "$WORK/img"
agree "content-report a tree" content "$IMPRINT" content-report "${top_srcdir:-.}/doc"
agree "profile an image" profile "$IMPRINT" profile "$WORK/img"
agree "profile an image --content" profile "$IMPRINT" profile --content --sample 0.5 "$WORK/img"
agree "profile a tree" profile "$IMPRINT" profile "${top_srcdir:-.}/src"
# create's summary: the same build twice (text, then --json over it)
agree "create's summary" create "$IMPRINT" create --force "${ARGS[@]}" "$WORK/c.img"
agree "create's summary: split directories, sparse files" create "$IMPRINT" create --force \
	--size 128M --seed 5 --files 2000 --used 60M --set layout_score=0.8 --set sparse_file_share=1 \
	--set dir_frag_share=0.5 --set special_dirs=1 --set special_dir_files=400 "$WORK/c.img"
agree "create's summary: MBR, a free-space target" create "$IMPRINT" create --force --size 64M \
	--seed 4 --files 400 --used 30M --set free_frag_share=0.3 --set layout_score=0.6 \
	--partition mbr "$WORK/c.img"
agree "create's summary: aged, generation 1" create "$IMPRINT" create --force --size 64M --seed 1 \
	--files 300 --used 20M --set age_rounds=2 --generation 1 "$WORK/c.img"
mkdir -p "$WORK/inc/d" && echo data >"$WORK/inc/d/f"
agree "create's summary: null backend, --include" create "$IMPRINT" create --backend null \
	--size 64M --seed 1 --files 100 --include "$WORK/inc" --include-normalize "$WORK/null.img"
if command -v qemu-img >/dev/null; then
	agree "create's summary: qcow2, GPT" create "$IMPRINT" create --force --size 64M --seed 1 \
		--files 100 --format qcow2 --partition gpt "$WORK/c.qcow2"
fi

# the check can fail: a figure changed in the JSON, a text line without a JSON figure
"$IMPRINT" measure "$WORK/img" >"$WORK/text" && "$IMPRINT" measure --json "$WORK/img" >"$WORK/json"
# caught WHAT PATTERN CHECKER...: CHECKER fails on the text and JSON in WORK, printing PATTERN
caught() {
	local what=$1 pattern=$2
	shift 2
	if "$@" "$WORK/text" "$WORK/json" >"$WORK/bad" 2>/dev/null; then
		fail "$what went unseen"
	elif grep -q "$pattern" "$WORK/bad"; then
		pass "$what is found"
	else
		fail "$what: $(head -3 "$WORK/bad")"
	fi
}
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); j["hardlinks"] += 1; json.dump(j, open(sys.argv[1], "w"))' "$WORK/json"
caught "a hard-link count changed in the JSON" "^hardlinks: text" python3 "$CHECK" measure
"$IMPRINT" measure --json "$WORK/img" >"$WORK/json"
sed -i 's/^  directories .*/&\n  widgets         3/' "$WORK/text"
caught "a text line without a JSON figure" "widgets" python3 "$CHECK" measure

# and content-report's: a group's count changed, a line it does not know
"$IMPRINT" content-report "$WORK/img" >"$WORK/text" && "$IMPRINT" content-report --json "$WORK/img" >"$WORK/json"
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); j["groups"]["text"]["blocks"] += 1; json.dump(j, open(sys.argv[1], "w"))' "$WORK/json"
caught "content-report: a group's block count changed" "^groups.text: text" python3 "$CONTENT_CHECK"
"$IMPRINT" content-report --json "$WORK/img" >"$WORK/json"
sed -i 's/^  compressed .*/&\n  widgets      3/' "$WORK/text"
caught "content-report: a text line without a JSON figure" widgets python3 "$CONTENT_CHECK"

# and the profile's: a name share changed in the JSON
"$IMPRINT" profile "$WORK/img" >"$WORK/text" && "$IMPRINT" profile --json "$WORK/img" >"$WORK/json"
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); j["names"]["upper_share"] += 0.01; json.dump(j, open(sys.argv[1], "w"))' "$WORK/json"
caught "profile: a name share changed" "^names.upper_share: text" python3 "$PROFILE_CHECK"

# and create's: a count changed in the JSON alone, in the text alone, a line it does not know
"$IMPRINT" create --force "${ARGS[@]}" "$WORK/c.img" >"$WORK/text" &&
	"$IMPRINT" create --force --json "${ARGS[@]}" "$WORK/c.img" >"$WORK/json"
cp "$WORK/text" "$WORK/text0"
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); j["files"] += 1; json.dump(j, open(sys.argv[1], "w"))' "$WORK/json"
caught "create: the file count changed in the JSON" "files, .*JSON gives" python3 "$CREATE_CHECK"
"$IMPRINT" create --force --json "${ARGS[@]}" "$WORK/c.img" >"$WORK/json"
python3 -c 'import re, sys; p = sys.argv[1]; t = open(p).read(); open(p, "w").write(re.sub(r"\((\d+) bytes\) of file", lambda m: "(%d bytes) of file" % (int(m.group(1)) + 1), t))' "$WORK/text"
caught "create: the bytes changed in the text" "bytes.*JSON gives" python3 "$CREATE_CHECK"
cp "$WORK/text0" "$WORK/text"
sed -i 's/^  inodes: .*/&\n  widgets 3/' "$WORK/text"
caught "create: a text line without a JSON figure" widgets python3 "$CREATE_CHECK"
finish
