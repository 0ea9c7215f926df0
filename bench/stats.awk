# The bench's statistics over interleaved rounds (bench/run.sh; tested by
# bench/test_stats.sh). Plain POSIX awk (Debian's mawk).
#
# The results file has one line per run of a row in a round, tab-separated:
#   ROUND  ROW  SAMPLES  MIN  P50  P99  P99.9  MAX  SLEEPS
# (ns; SLEEPS the client's voluntary context switches per round trip, or
# "-"). The modes, by -v mode=:
#
#   rows    awk -v mode=rows -f stats.awk RESULTS [ORDER]
#           one line per row: the rounds it has, the median over the rounds
#           of each column, and the lowest and highest of its per-round
#           p50s. The rows named in ORDER (one a line) first, in its order,
#           each followed by its twins "ROW (...)"; then the rest in the
#           order they first appear in RESULTS.
#   ratios  awk -v mode=ratios -f stats.awk RESULTS SPEC
#           SPEC lines, tab-separated: TEXT  NUM_ROW  DEN_ROW  LIMIT. For
#           each, the ratio NUM p50 / DEN p50 of every round that has both
#           rows, then their median, lowest and highest, the rounds counted,
#           and against LIMIT ("-": none, for information) PASS or FAIL of
#           the median, "not shown" beside it when the lowest and highest
#           ratio lie on either side of the limit. A line of SPEC that starts with "#" is a heading,
#           printed before the next ratio (none when none follows).
#   field   awk -v mode=field -v row=ROW -v col=N -f stats.awk RESULTS
#           the median over the rounds of column N (3 = SAMPLES ... 9 =
#           SLEEPS) of ROW, or "-" when it has none.
#
# The median of an even count is the mean of the two middle values.

BEGIN {
	FS = "\t"
	nrows = 0
}

# sort a[1..n] ascending (insertion sort: a few rounds at most)
function sort(a, n,    i, j, v) {
	for (i = 2; i <= n; i++) {
		v = a[i]
		for (j = i - 1; j >= 1 && a[j] > v; j--)
			a[j + 1] = a[j]
		a[j + 1] = v
	}
}

# median of a[1..n], sorted in place
function median(a, n) {
	sort(a, n)
	if (n % 2)
		return a[(n + 1) / 2]
	return (a[n / 2] + a[n / 2 + 1]) / 2
}

# the values of column c of row r over its rounds into v[1..]; their count
function column(r, c, v,    k, n) {
	n = 0
	for (k = 1; k <= cnt[r]; k++) {
		if (val[r, k, c] == "-")
			continue
		v[++n] = val[r, k, c] + 0
	}
	return n
}

function col_median(r, c,    v, n) {
	n = column(r, c, v)
	return n ? median(v, n) : "-"
}

# the results file
FILENAME == ARGV[1] {
	if (NF < 9 || $1 == "" || $2 == "")
		next
	r = $2
	if (!(r in cnt)) {
		cnt[r] = 0
		order[++nrows] = r
	}
	k = ++cnt[r]
	round_of[r, k] = $1
	for (c = 3; c <= 9; c++)
		val[r, k, c] = $c
	p50[r, $1] = $5 + 0
	next
}

# the order of the rows (mode=rows)
mode == "rows" {
	listed[++nlisted] = $0
	next
}

# the ratio spec (mode=ratios)
mode == "ratios" {
	if ($0 ~ /^#/) {
		heading = $0
		sub(/^# */, "", heading)
		next
	}
	if (NF < 4)
		next
	if (heading != "")
		printf "\n%s\n", heading
	heading = ""
	ratio_line($1, $2, $3, $4)
}

function ratio_line(text, num, den, limit,    k, rd, n, q, lo, hi, m, res) {
	n = 0
	for (k = 1; k <= cnt[num]; k++) {
		rd = round_of[num, k]
		if (!((den, rd) in p50) || p50[den, rd] <= 0)
			continue
		q[++n] = p50[num, rd] / p50[den, rd]
	}
	if (!n) {
		printf "%-48s %7s %7s %7s %6s %6s  %s\n", text, "-", "-", "-", 0,
			limit, "n/a (run missing)"
		return
	}
	m = median(q, n)
	lo = q[1]
	hi = q[n]
	if (limit == "-")
		res = "(info)"
	else
		res = m <= limit + 0 ? "PASS" : "FAIL"
	if (limit != "-" && lo <= limit + 0 && limit + 0 <= hi)
		res = res ", not shown: the rounds span the limit"
	printf "%-48s %7.3f %7.3f %7.3f %6d %6s  %s\n", text, m, lo, hi, n, limit, res
}

END {
	if (mode == "rows") {
		for (i = 1; i <= nlisted; i++) {
			print_row(listed[i])
			for (j = 1; j <= nrows; j++)
				if (index(order[j], listed[i] " (") == 1)
					print_row(order[j])
		}
		for (i = 1; i <= nrows; i++)
			print_row(order[i])
	} else if (mode == "field") {
		print (row in cnt) ? col_median(row, col + 0) : "-"
	}
}

# one row of the table, once
function print_row(r,    n, v) {
	if (!(r in cnt) || (r in printed))
		return
	printed[r] = 1
	n = column(r, 5, v)
	sort(v, n)
	printf "%-32s %6d %9s %8s %8s %8s %8s %9s %8s %8s %9s\n", r, cnt[r],
		fmt_ns(col_median(r, 3)), fmt_ns(col_median(r, 4)),
		fmt_ns(col_median(r, 5)), fmt_ns(col_median(r, 6)),
		fmt_ns(col_median(r, 7)), fmt_ns(col_median(r, 8)),
		n ? fmt_ns(v[1]) : "-", n ? fmt_ns(v[n]) : "-",
		fmt_sleeps(col_median(r, 9))
}

function fmt_ns(s) {
	return s == "-" ? s : sprintf("%.0f", s)
}

function fmt_sleeps(s) {
	return s == "-" ? s : sprintf("%.2f", s)
}
