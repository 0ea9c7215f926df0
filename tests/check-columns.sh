#!/usr/bin/env bash
# The C tree's line length (make lint): at most 100 columns, tabs at 8,
# except a line that holds a string literal: a message a user reads is
# never broken, so it stays greppable (the kernel's coding style says
# the same). .clang-format says the same limit to editors.
# Prints each offending line and exits 1; exits 0 when there is none.
set -u
limit=100
bad=0
for f in "$@"; do
	while IFS= read -r line; do
		echo "$f:$line"
		bad=1
	done < <(expand -t8 "$f" | awk -v max="$limit" \
		'length > max && index($0, "\"") == 0 { print NR ": " length " columns" }')
done
[ "$bad" = 0 ] || echo "check-columns: lines over $limit columns (a string literal may run past)" >&2
exit "$bad"
