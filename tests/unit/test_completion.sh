#!/usr/bin/env bash
# The bash completion rant help --completion bash writes (src/cfg/optcomp.c),
# sourced into a bash and run as bash runs it on TAB (COMP_WORDS,
# COMP_CWORD, the function complete -p names): the subcommands, each
# subcommand's options and only those (its --help's), files after a FILE
# argument, interfaces after -i, probe's words. TAP output.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
RANT=$TOP/rant
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rant-completion-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

N=0
FAILS=0
# ok COND-STATUS NAME [DIAG]: one TAP line.
ok() {
	N=$((N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $N - $2"
	else
		echo "not ok $N - $2"
		[ -z "${3:-}" ] || printf '%s\n' "$3" | sed 's/^/# /'
		FAILS=$((FAILS + 1))
	fi
}

if [ ! -x "$RANT" ]; then
	echo "1..0 # skip rant is not built (make)"
	exit 0
fi
"$RANT" help --completion bash >"$TMP/rant.bash"
ok $? "rant help --completion bash exits 0"

# complete WORD...: the completions of the command line WORD... (its last
# word the one under the cursor), one a line, sorted.
complete_line() {
	bash --norc --noprofile -c '
		source "$1"; shift
		f=$(complete -p rant | sed -n "s/.*-F \([^ ]*\) rant$/\1/p")
		[ -n "$f" ] || { echo "complete -p rant: no function" >&2; exit 1; }
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		"$f" rant "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' bash "$TMP/rant.bash" "$@" | sort
}

# the long options of rant SUB --help, sorted
help_longs() {
	"$RANT" "$1" --help | sed -n 's/^  \(-., \|    \)\(--[a-z0-9-]*\).*/\2/p' | sort
}

got=$(complete_line rant em)
ok "$([ "$got" = emit ] && echo 0 || echo 1)" "rant em<TAB> completes to emit" "got: $got"

# the subcommands rant --help lists
SUBS=$("$RANT" --help | sed -n '/^Subcommands:/,/^$/s/^  \([a-z][a-z]*\)  .*/\1/p')

got=$(complete_line rant "")
want=$(printf '%s\n' help; printf '%s\n' "$SUBS") && want=$(printf '%s\n' "$want" | sort)
ok "$([ "$got" = "$want" ] && echo 0 || echo 1)" "rant <TAB> offers the subcommands and help" "got: $got"

for sub in $SUBS; do
	complete_line rant "$sub" -- >"$TMP/got.$sub"
	help_longs "$sub" >"$TMP/want.$sub"
	diff "$TMP/want.$sub" "$TMP/got.$sub" >"$TMP/diff.$sub"
	ok $? "rant $sub --<TAB> offers $sub's options, those of its --help" "$(cat "$TMP/diff.$sub")"
done

complete_line rant read -- | grep -qx -- --targets
ok "$([ $? = 1 ] && echo 0 || echo 1)" "rant read --<TAB> leaves emit's --targets out"

got=$(complete_line rant probe h)
ok "$([ "$got" = http ] && echo 0 || echo 1)" "rant probe h<TAB> completes to http" "got: $got"

: >"$TMP/capture-x.pcap"
got=$(cd "$TMP" && complete_line rant read capture-)
ok "$([ "$got" = capture-x.pcap ] && echo 0 || echo 1)" "rant read FILE<TAB> completes a file" "got: $got"
got=$(cd "$TMP" && complete_line rant emit -j capture-)
ok "$([ "$got" = capture-x.pcap ] && echo 0 || echo 1)" "rant emit -j FILE<TAB> completes a file" "got: $got"

got=$(complete_line rant watch -i l)
ok "$(printf '%s\n' "$got" | grep -qx lo && echo 0 || echo 1)" "rant watch -i l<TAB> offers lo" "got: $got"

got=$(complete_line rant emit --diagnosis o)
ok "$([ "$got" = "$(printf 'off\non')" ] && echo 0 || echo 1)" "--diagnosis o<TAB> offers on and off" "got: $got"

got=$(complete_line rant emit --count "")
ok "$([ -z "$got" ] && echo 0 || echo 1)" "a number's argument offers nothing" "got: $got"

echo "1..$N"
[ "$FAILS" -eq 0 ]
