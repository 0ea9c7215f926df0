#!/usr/bin/env bash
# config.sh's step table, its library and its step families, without root:
# --list-steps, the usage text and doc/config.md's step table name the same
# steps in the same order; lib/config-lib.sh's change() journals the old
# value and journal_replay puts it back, on a temporary file, in a dry run
# and for real; bad numbers are told apart from numbers out of range; and
# each family of lib/steps/ is sourced on its own, with a change() that
# records instead of changing and the commands it reads stubbed, to check
# what each step would change, its undo and its read-back. TAP output.
# shellcheck disable=SC2034  # the library reads PROG, MODE, STEPS, RESULTS
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
CONFIG=$TOP/config.sh
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rant-config-test.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT

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


# --- the step table, three ways -------------------------------------------------

"$CONFIG" --list-steps >"$TMP/list" 2>"$TMP/list.err"
ok $? "--list-steps exits 0" "$(cat "$TMP/list.err")"
awk '{print $1}' "$TMP/list" >"$TMP/list.names"
bad=$(awk 'NF < 2 || $1 !~ /^[a-z]+_[a-z0-9_]+$/' "$TMP/list")
[ -z "$bad" ] && [ "$(wc -l <"$TMP/list.names")" -ge 20 ]
ok $? "--list-steps: one step a line, a name and a description" "$bad"

"$CONFIG" --help >"$TMP/help" 2>&1
# The usage's step table: from "Steps (" to the first empty line; a name in
# the first column, continuation lines indented further.
awk '/^Steps \(/ {on = 1; next} on && /^$/ {exit} on && /^  [a-z]/ {print $1}' "$TMP/help" >"$TMP/usage.names"
diff -u "$TMP/list.names" "$TMP/usage.names" >"$TMP/d1"
ok $? "the usage text lists the steps of --list-steps, in order" "$(cat "$TMP/d1")"

# doc/config.md's table: rows "| `name` | ..." in its Steps section.
awk '/^## Steps/ {on = 1; next} on && /^## / {exit}
	on && /^\| `[a-z0-9_]+` \|/ {s = $2; gsub(/`/, "", s); print s}' "$TOP/doc/config.md" >"$TMP/doc.names"
diff -u "$TMP/list.names" "$TMP/doc.names" >"$TMP/d2"
ok $? "doc/config.md's step table lists the steps of --list-steps, in order" "$(cat "$TMP/d2")"

# Every step in the table has its function (steps_check runs before
# anything else in config.sh; a missing one would fail --list-steps' twin).
# Each step lives in the family its name starts with.
missing=
while read -r s; do
	grep -q "^$s() {" "$TOP/lib/steps/${s%%_*}.sh" 2>/dev/null || missing+=" $s"
done <"$TMP/list.names"
[ -z "$missing" ]
ok $? "every step is a function of lib/steps/<its prefix>.sh" "missing:$missing"

# --- input: not a number vs out of range --------------------------------------------

base=(lo --ip 10.0.0.1 --remote-ip 10.0.0.2 --cpu 0 --irq-cpu 1)
err=$("$CONFIG" "${base[@]}" --busy-poll abc 2>&1)
rc=$?
[ "$rc" = 1 ] && [[ $err == *"--busy-poll abc: not a number"* ]]
ok $? "--busy-poll abc: exit 1, 'not a number'" "exit $rc: $err"
err=$("$CONFIG" "${base[@]}" --busy-poll 2000000 2>&1)
rc=$?
[ "$rc" = 1 ] && [[ $err == *"out of range, must be 0 to 1000000"* ]]
ok $? "--busy-poll 2000000: exit 1, out of range with the range" "exit $rc: $err"
err=$("$CONFIG" "${base[@]}" --busy-poll 99999999999999999999999 2>&1)
rc=$?
[ "$rc" = 1 ] && [[ $err == *"out of range"* ]] && [ "$(wc -l <<<"$err")" = 1 ]
ok $? "a number too long for the shell is out of range, in one line" "exit $rc: $err"

# --- the library, on a file of the test's own ----------------------------------------

(
	set -eu
	# shellcheck source=lib/config-lib.sh
	source "$TOP/lib/config-lib.sh"
	PROG='test'
	F=$TMP/value
	G=$TMP/other
	JOURNAL=$TMP/journal
	STEPS=("t_first|sets F to new" "t_second|sets G to two")
	t_write() { printf '%s\n' "$2" >"$1"; }
	t_first() {
		local v
		v=$(cat "$F")
		[ "$v" = "new value" ] || change "$(qcmd t_write "$F" "$v")" t_write "$F" "new value"
	}
	t_second() {
		local v
		v=$(cat "$G")
		[ "$v" = two ] || change "$(qcmd t_write "$G" "$v")" t_write "$G" two
	}
	old="old 'quoted' \$value"
	printf '%s\n' "$old" >"$F"
	echo one >"$G"

	MODE='dry-run'
	steps_run >"$TMP/dry.out"
	r=0
	[ "$(cat "$F")" = "$old" ] && [ ! -e "$JOURNAL" ] || r=1
	echo "$r" >"$TMP/r.dry"
	grep -q '^    + t_write .*value.* new\\ value$' "$TMP/dry.out" &&
		grep -q '^t_first  *would apply' "$TMP/dry.out"
	echo $? >"$TMP/r.dryprint"

	MODE=apply
	steps_run >"$TMP/apply.out"
	r=0
	[ "$(cat "$F")" = "new value" ] && [ "$(cat "$G")" = two ] || r=1
	echo "$r" >"$TMP/r.apply"
	r=0
	[ "$(wc -l <"$JOURNAL")" = 2 ] && [ "$(head -n 1 "$JOURNAL" | cut -f1)" = t_first ] || r=1
	# the journalled undo, evaluated, writes the old value back exactly
	eval "$(head -n 1 "$JOURNAL" | cut -f2-)" >/dev/null
	[ "$(cat "$F")" = "$old" ] || r=1
	t_write "$F" "new value"
	echo "$r" >"$TMP/r.journal"

	RESULTS=()
	MODE=verify
	steps_run >"$TMP/verify.out"
	grep -q '^t_first  *already set' "$TMP/verify.out" && grep -q '^t_second  *already set' "$TMP/verify.out"
	echo $? >"$TMP/r.verify"

	MODE=revert
	cp "$JOURNAL" "$TMP/journal.saved"
	journal_replay --dry-run >"$TMP/rdry.out"
	r=0
	[ "$(cat "$F")" = "new value" ] && cmp -s "$JOURNAL" "$TMP/journal.saved" || r=1
	grep -q '^t_first  *would restore' "$TMP/rdry.out" || r=1
	echo "$r" >"$TMP/r.rdry"

	journal_replay >"$TMP/revert.out"
	r=0
	[ "$(cat "$F")" = "$old" ] && [ "$(cat "$G")" = one ] && [ ! -s "$JOURNAL" ] || r=1
	# reverse STEPS order: t_second before t_first
	[ "$(awk '{print $1}' "$TMP/revert.out" | tr '\n' ' ')" = "t_second t_first " ] || r=1
	echo "$r" >"$TMP/r.revert"

	# An undo that fails stays in the journal; the others are done.
	printf 't_first\t%s\nt_second\t%s\n' "$(qcmd t_write "$F" first)" "$(qcmd false)" >"$JOURNAL"
	r=0
	if journal_replay >"$TMP/fail.out"; then r=1; fi
	[ "$(cat "$F")" = first ] && [ "$(cat "$JOURNAL")" = "t_second	false" ] || r=1
	grep -q '^t_second  *failed  *(false: exit status 1)' "$TMP/fail.out" || r=1
	echo "$r" >"$TMP/r.fail"

	# A step in the journal that STEPS no longer has is still undone, first.
	printf 't_first\t%s\nt_gone\t%s\n' "$(qcmd t_write "$F" A)" "$(qcmd t_write "$G" B)" >"$JOURNAL"
	journal_replay >"$TMP/unknown.out"
	r=0
	[ "$(cat "$F")" = A ] && [ "$(cat "$G")" = B ] || r=1
	[ "$(awk '{print $1}' "$TMP/unknown.out" | tr '\n' ' ')" = "t_gone t_first " ] || r=1
	echo "$r" >"$TMP/r.unknown"

	# A failing change is the step's failure, with the command and its error.
	MODE=apply
	RESULTS=()
	STEPS=("t_bad|writes where it cannot")
	t_bad() { change "" t_write "$TMP/no/such/dir/file" x; }
	steps_run >"$TMP/bad.out" 2>&1
	grep -q "^t_bad  *failed  *(t_write .*no/such/dir/file x: " "$TMP/bad.out"
	echo $? >"$TMP/r.bad"
) 2>"$TMP/lib.err"

res() { cat "$TMP/r.$1" 2>/dev/null || echo 1; }
ok "$(res dry)" "dry run: the file and the journal are untouched" "$(cat "$TMP/lib.err")"
ok "$(res dryprint)" "dry run: prints the command and 'would apply'" "$(cat "$TMP/dry.out" 2>/dev/null)"
ok "$(res apply)" "apply: the steps make their changes"
ok "$(res journal)" "apply: change() journals an undo that writes the old value back exactly" "$(cat "$TMP/journal.saved" 2>/dev/null)"
ok "$(res verify)" "verify after apply: every step already set" "$(cat "$TMP/verify.out" 2>/dev/null)"
ok "$(res rdry)" "revert --dry-run: prints the undos, changes nothing" "$(cat "$TMP/rdry.out" 2>/dev/null)"
ok "$(res revert)" "revert: old values back, journal empty, steps in reverse order" "$(cat "$TMP/revert.out" 2>/dev/null)"
ok "$(res fail)" "revert: a failing undo is reported and stays in the journal" "$(cat "$TMP/fail.out" 2>/dev/null)"
ok "$(res unknown)" "revert: a step unknown to STEPS is still undone, first" "$(cat "$TMP/unknown.out" 2>/dev/null)"
ok "$(res bad)" "a change that fails makes its step 'failed' with the command and error" "$(cat "$TMP/bad.out" 2>/dev/null)"

# steps_check: a table naming a step without a function is refused.
out=$(bash -c 'source "$1"; STEPS=("no_such_step|x"); steps_check; echo survived' _ "$TOP/lib/config-lib.sh" 2>&1)
[[ $out == *"step no_such_step has no function"* ]] && [[ $out != *survived* ]]
ok $? "steps_check refuses a step without a function" "$out"

# shellcheck source=tests/config/families.sh
source "$TOP/tests/config/families.sh"

echo "1..$N"
[ "$FAILS" -eq 0 ]
