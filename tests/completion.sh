#!/bin/bash
# completion.sh - the bash completion against the option and command tables of src/cli/main.c and the binary
. "${srcdir:-.}/tests/lib.sh"

BC=${BASH_COMPLETION:-/usr/share/bash-completion/bash_completion}
if [ ! -r "$BC" ]; then
	echo "1..0 # SKIP needs bash-completion ($BC)"
	exit 77
fi
MAIN="$top_srcdir/src/cli/main.c"
# shellcheck source=/dev/null
. "$BC"
# shellcheck source=completion/bash/imprint
. "$top_srcdir/completion/bash/imprint"

# comp WORD...: complete the last WORD as bash would (words split as readline
# splits them, '=' a word of its own); the sorted candidates into $WORK/got.
comp() {
	local line='' w
	COMP_WORDS=("$IMPRINT" "${@:2}")
	COMP_CWORD=$(($# - 1))
	for w in "${COMP_WORDS[@]}"; do
		if [[ -z $line ]]; then line=$w
		elif [[ $w == = || $line == *= ]]; then line+=$w
		else line+=" $w"; fi
	done
	[[ -z ${COMP_WORDS[COMP_CWORD]} && ${COMP_WORDS[COMP_CWORD - 1]} != = ]] && line+=" "
	COMP_LINE=$line COMP_POINT=${#line} COMPREPLY=()
	_imprint "$IMPRINT" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort -u >"$WORK/got"
}

# same WHAT FILE: the candidates equal FILE's lines (sorted)
same() {
	if sort -u "$2" | cmp -s - "$WORK/got"; then
		pass "$1 ($(wc -l <"$WORK/got") candidates)"
	else
		fail "$1: got [$(tr '\n' ' ' <"$WORK/got")], wanted [$(sort -u "$2" | tr '\n' ' ')]"
	fi
}

# The tables, read from the source rather than from --help.
sed -n '/^static const struct command commands\[/,/^};/s/.*\.name = "\([^"]*\)".*/\1/p' "$MAIN" \
	>"$WORK/commands"
sed -n '/^static const struct option long_opts\[\]/,/^};/s/.*{ "\([^"]*\)",.*/--\1/p' "$MAIN" \
	>"$WORK/long"
short=$(sed -n 's/.*getopt_long(argc, argv, "\([^"]*\)".*/\1/p' "$MAIN" | tr -d ':')
for ((i = 0; i < ${#short}; i++)); do echo "-${short:i:1}"; done >"$WORK/short"
[ "$(wc -l <"$WORK/commands")" -ge 5 ] && [ "$(wc -l <"$WORK/long")" -ge 15 ] &&
	[ "$(wc -l <"$WORK/short")" -ge 3 ] &&
	pass "read $(wc -l <"$WORK/commands") commands, $(wc -l <"$WORK/long") long and $(wc -l <"$WORK/short") short options from main.c" ||
	fail "could not read the tables of $MAIN"

comp imprint ""
same "commands" "$WORK/commands"
comp imprint con
grep '^con' "$WORK/commands" >"$WORK/want"
same "commands starting 'con'" "$WORK/want"

# Every option of the table is offered to some command, and every one
# offered to a command is one that command takes.
: >"$WORK/offered"
while read -r cmd; do
	comp imprint "$cmd" -
	cp "$WORK/got" "$WORK/offered.$cmd"
	cat "$WORK/got" >>"$WORK/offered"
done <"$WORK/commands"
for opt in $(cat "$WORK/long" "$WORK/short"); do
	grep -qxF -- "$opt" "$WORK/offered" || fail "option $opt is completed for no command (missing from --help?)"
done
pass "every option of long_opts and the getopt string is completed"

# a value option $1 takes (its choices $2 from the completion), for the acceptance run below
value_of() {
	[[ $2 == *'|'* ]] && { echo "${2%%|*}"; return; }
	case $1 in
	--set) echo seed=1 ;; --seed | -j | --jobs | --files) echo 1 ;; --size | --used) echo 8M ;;
	--fs) echo ext4 ;; --backend) echo null ;; --sample) echo 0.5 ;; --mkfs-options) echo "" ;;
	-o | --output) echo /dev/null ;;
	*) echo "$WORK/none/file" ;;
	esac
}
bad=0
while read -r cmd; do
	for opt in $(cat "$WORK/offered.$cmd"); do
		args=("$cmd" "$opt")
		# the completion's idea of a value: wrong either way, the binary says so below
		[[ ${_imprint_arg[$opt]:--} != - ]] && args+=("$(value_of "$opt" "${_imprint_arg["$cmd $opt"]}")")
		case $cmd in
		plan | config) args+=(--size 8M --files 10) ;;
		create | verify | measure | content-report) args+=("$WORK/none/target") ;;
		esac
		"$IMPRINT" "${args[@]}" >/dev/null 2>"$WORK/err" </dev/null
		if grep -qE "is only for|unknown option|needs a value|unexpected argument" "$WORK/err"; then
			fail "'imprint ${args[*]}' refused an option the completion offers: $(head -c 200 "$WORK/err")"
			bad=1
		fi
	done
done <"$WORK/commands"
[ $bad -eq 0 ] && pass "the binary takes every option completed for each command"
grep -qxF -- --sample "$WORK/offered.measure" && fail "--sample offered to measure" ||
	pass "--sample is not offered to measure (content-report only)"
grep -qxF -- --backend "$WORK/offered.plan" && fail "--backend offered to plan" ||
	pass "create's options are not offered to plan"

# Parameters and their values, from the binary's JSON rather than its table.
"$IMPRINT" params --json >"$WORK/params.json"
pyq() { python3 -c "import json,sys; d=json.load(open('$WORK/params.json')); $1" "${@:2}"; }
comp imprint plan --set size_s
pyq 'print("\n".join(p["name"] + "=" for p in d if p["name"].startswith("size_s")))' >"$WORK/want"
same "--set size_s: parameter names with '='" "$WORK/want"
comp imprint plan --set ""
[ "$(wc -l <"$WORK/got")" -eq "$(pyq 'print(len(d))')" ] && pass "--set offers every parameter" ||
	fail "--set offers $(wc -l <"$WORK/got") of $(pyq 'print(len(d))') parameters"
comp imprint plan --set fs = b
pyq 'print("\n".join(v for p in d if p["name"] == "fs" for v in p["values"] if v.startswith("b")))' >"$WORK/want"
same "--set fs=b: enum values" "$WORK/want"
bad=0 n=0
for name in $(pyq 'print(" ".join(p["name"] for p in d if p["type"] == "enum"))'); do
	comp imprint config --set "$name" = ""
	pyq 'print("\n".join(v for p in d if p["name"] == sys.argv[1] for v in p["values"]))' "$name" >"$WORK/want"
	n=$((n + 1))
	sort -u "$WORK/want" | cmp -s - "$WORK/got" || { fail "--set $name=: got [$(tr '\n' ' ' <"$WORK/got")]"; bad=1; }
done
[ $bad -eq 0 ] && [ $n -ge 3 ] && pass "--set NAME= offers the values of each of the $n enum parameters"
comp imprint create --fs ""
pyq 'print("\n".join(v for p in d if p["name"] == "fs" for v in p["values"]))' >"$WORK/want"
same "--fs: file systems" "$WORK/want"
comp imprint plan --fs = e
grep '^e' "$WORK/want" >"$WORK/want2"
same "--fs=e: split at '='" "$WORK/want2"
comp imprint plan --seed ""
echo random >"$WORK/want"
same "--seed: random" "$WORK/want"

# --backend against the list the binary gives when refusing a name.
mkdir "$WORK/b"
"$IMPRINT" create --backend '?' "$WORK/b/x.img" 2>"$WORK/err"
sed -n "s/.*(expected \(.*\))$/\1/p" "$WORK/err" | sed 's/, \| or /\n/g' >"$WORK/want"
comp imprint create --backend ""
[ -s "$WORK/want" ] && same "--backend: the backends the binary knows" "$WORK/want" ||
	fail "no backend list in: $(cat "$WORK/err")"

# --partition and --format against what the binary accepts when refusing a value
"$IMPRINT" create --format '?' "$WORK/b/x.img" 2>"$WORK/err"
sed -n "s/.*must be \(.*\) (got.*/\1/p" "$WORK/err" | sed 's/, \| or /\n/g' >"$WORK/want"
comp imprint create --format ""
[ -s "$WORK/want" ] && same "--format: the formats the binary takes" "$WORK/want" ||
	fail "no format list in: $(cat "$WORK/err")"
comp imprint create --partition ""
printf 'gpt\nmbr\n' >"$WORK/want"
same "create --partition: the tables" "$WORK/want"
comp imprint measure --partition ""
same "measure --partition N: no candidates" /dev/null

# The reading of --help, on a made-up one: choices as a|b or as a list of
# words, the commands an option names, one option with two meanings.
cat >"$WORK/fake" <<EOF
#!/bin/bash
[ "\$1" = --help ] || exec "$IMPRINT" "\$@"
cat <<'HELP'
commands:
  create    build: imprint create [options] TARGET
  measure   measure: imprint measure TARGET
  verify    check: imprint verify DIR

options:
      --json           print JSON

create options (TARGET is an image file):
      --shape tri|quad  the shape
      --mode M         fast (default), slow or auto (as root;
                       the default on a device)
      --zone N         measure, verify: the zone to read
      --zone tri|quad  create: the zone to make
      --keep S         ext4, loopfs: keep things
      --as F           raw (default), qcow2 or vmdk (from TARGET's
                       name): converted once built
HELP
EOF
chmod +x "$WORK/fake"
IMPRINT_REAL=$IMPRINT IMPRINT=$WORK/fake
comp imprint create --shape ""
printf '%s\n' tri quad >"$WORK/want"
same "choices given as a|b" "$WORK/want"
comp imprint create --mode ""
printf '%s\n' fast slow auto >"$WORK/want"
same "choices given as a list of words with asides" "$WORK/want"
comp imprint create --zone ""
printf '%s\n' tri quad >"$WORK/want"
same "an option with its own choices for create" "$WORK/want"
comp imprint measure --zone ""
: >"$WORK/want"
same "and a number for measure" "$WORK/want"
comp imprint verify --
printf '%s\n' --json --zone >"$WORK/want"
same "'measure, verify:' names the commands" "$WORK/want"
comp imprint create --keep ""
: >"$WORK/want"
same "'ext4, loopfs:' names none, and 'S' has no choices" "$WORK/want"
comp imprint create --as ""
printf '%s\n' raw qcow2 vmdk >"$WORK/want"
same "a list with 'or' opening the description" "$WORK/want"
IMPRINT=$IMPRINT_REAL

# Files: TARGET, DIR and option arguments.
mkdir -p "$WORK/f/adir" && touch "$WORK/f/a.img" "$WORK/f/ab.cfg" "$WORK/f/b.img"
printf '%s\n' "$WORK/f/a.img" "$WORK/f/ab.cfg" "$WORK/f/adir" >"$WORK/want"
comp imprint create "$WORK/f/a"
same "create TARGET: files and directories" "$WORK/want"
comp imprint measure --json "$WORK/f/a"
same "measure TARGET after an option" "$WORK/want"
comp imprint create -c "$WORK/f/a"
same "-c FILE: files" "$WORK/want"
comp imprint verify --extents "$WORK/f/ab"
echo "$WORK/f/ab.cfg" >"$WORK/want"
same "--extents FILE: files" "$WORK/want"
comp imprint verify "$WORK/f/a"
echo "$WORK/f/adir" >"$WORK/want"
same "verify DIR: directories only" "$WORK/want"
comp imprint create "$WORK/f/a.img" --forc
echo --force >"$WORK/want"
same "options after TARGET" "$WORK/want"
comp imprint plan ""
cp "$WORK/offered.plan" "$WORK/want"
same "plan takes no operand: options" "$WORK/want"

# --profile: the shipped profiles (as 'params --profiles' lists them) and files
"$IMPRINT" params --profiles | awk '{ print $1 }' | grep '^d' >"$WORK/want"
# (from a directory with no file starting 'd')
(IMPRINT=$(realpath "$IMPRINT") && cd "$WORK/f/adir" && comp imprint create --profile d)
[ -s "$WORK/want" ] && same "--profile d: the shipped profiles starting 'd'" "$WORK/want" ||
	fail "params --profiles lists no profile starting 'd'"
comp imprint plan --profile "$WORK/f/ab"
echo "$WORK/f/ab.cfg" >"$WORK/want"
same "--profile PATH: files" "$WORK/want"
(IMPRINT=$(realpath "$IMPRINT") && cd "$WORK/f/adir" && comp imprint config --set profile = l)
"$IMPRINT" params --profiles | awk '{ print $1 }' | grep '^l' >"$WORK/want"
same "--set profile=l: the shipped profiles" "$WORK/want"

echo "1..$TESTS_RUN"
[ "$TESTS_FAILED" -eq 0 ]
