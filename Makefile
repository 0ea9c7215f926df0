# rant: Round-trip And Network Timing
#
#   make            build ./rant
#   sudo make demo  install what is missing, build, run a pair over veth, plot it
#   sudo make check install what is missing, build, run every test
#   make bench      the performance comparison (root, veth)
#   make lint       shellcheck, cppcheck, the line-length rule, the floor plan, no
#                   function unused, no compiler warning (-Werror)
#   make asan       unit tests under ASan/UBSan
#   make fuzz       each libFuzzer harness for FUZZ_SECONDS (default 60)

CC ?= cc
CFLAGS ?= -O2 -g
PREFIX ?= /usr/local
DESTDIR ?=

VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1)

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wno-format-nonliteral
HARDEN := -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIE
NL_CFLAGS := $(shell pkg-config --cflags libnl-route-3.0 2>/dev/null || echo -I/usr/include/libnl3)
NL_LIBS := $(shell pkg-config --libs libnl-route-3.0 libnl-idiag-3.0 2>/dev/null || echo -lnl-route-3 -lnl-idiag-3 -lnl-3)
PCAP_LIBS := $(shell pkg-config --libs libpcap 2>/dev/null || echo -lpcap)

# The sources, in folders by layer (doc/layout.md): each folder is on
# the include path, so a module includes "hist.h" wherever it lives;
# tests/check-cycles.py checks that no folder includes from one above it.
SRC_DIRS := $(sort $(dir $(wildcard src/*/*.c src/*/*.h)))
SRC_INC := $(patsubst %/,-I%,$(SRC_DIRS))
SRC_HDRS := $(wildcard src/*/*.h)
vpath %.c $(SRC_DIRS)
# src_of(STEMS): the sources of those modules, wherever their folder.
src_of = $(foreach s,$(1),$(wildcard src/*/$(s).c))

BASE_CFLAGS := $(WARN) $(HARDEN) -D_GNU_SOURCE -std=gnu11 -pthread \
	-DRANT_VERSION='"$(VERSION)"' $(NL_CFLAGS) $(SRC_INC)
ALL_CFLAGS := $(CFLAGS) $(BASE_CFLAGS)
ALL_LDFLAGS := $(LDFLAGS) -pie -Wl,-z,relro,-z,now
MHD_LIBS := $(shell pkg-config --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)
LIBS := $(NL_LIBS) $(PCAP_LIBS) $(MHD_LIBS) -lhttp_parser -lcrypto -lm -pthread

# reflect --xdp (src/reflect/xdprefl.h): the BPF program is built with
# clang's BPF target against a vmlinux.h bpftool dumps from this
# kernel's BTF, and embedded through bpftool's skeleton; the loader
# links libbpf. Without them the build leaves --xdp out and says so.
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || ls /usr/sbin/bpftool 2>/dev/null)
BPF_CLANG ?= clang
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
HAVE_XDP := $(shell test -n "$(BPFTOOL)" && test -r $(VMLINUX_BTF) && \
	test -r /usr/include/bpf/libbpf.h && \
	$(BPF_CLANG) -print-targets 2>/dev/null | grep -qw bpf && echo 1)
ifeq ($(HAVE_XDP),1)
LIBS += -lbpf
XDP_CFLAGS := -DRANT_HAVE_XDP -Ibuild
else
XDP_CFLAGS :=
$(info rant: reflect --xdp left out of this build: it needs clang's BPF target, bpftool, libbpf-dev and $(VMLINUX_BTF) (make deps))
endif
BPF_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

SRCS := $(wildcard src/*/*.c)	# the BPF program is in src/reflect/bpf/, apart
OBJS := $(addprefix build/,$(notdir $(SRCS:.c=.o)))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:.c=.t)
# The unit tests again under AddressSanitizer and UBSan, from objects of
# their own (build-asan/), beside the plain ones: NAME.asan.t next to
# NAME.t (a test finds ../sim/libsimnic.so from its own directory).
ASAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ASAN_OBJS := $(addprefix build-asan/,$(notdir $(SRCS:.c=.o)))
ASAN_BINS := $(UNIT_SRCS:.c=.asan.t)
# The simulated PHC NIC (tests/sim/README.md): an LD_PRELOAD library and
# its self-test program. Built without the sanitizers: it is preloaded
# into sanitized and plain programs alike.
SIM_LIB := tests/sim/libsimnic.so
SIM_BINS := tests/sim/simnic-probe
SIM_CFLAGS := -O2 -g $(WARN) -D_GNU_SOURCE -std=gnu11 -pthread

# Tools' tests, TAP from /usr/bin/python3 (run by prove as executables).
TOOL_TESTS := tests/unit/test_rant_trace.py
# The bench's statistics on canned rounds (TAP from bash).
TOOL_TESTS += bench/test_stats.sh
# test_stamp_decoders.py reads the packets tests/unit/stamp_vectors writes
# with scapy and tshark.
TOOL_TESTS += tests/unit/test_stamp_decoders.py
TEST_HELPERS := tests/unit/stamp_vectors
# schema/rant.schema.json on real documents and hand-broken ones, through
# tests/net/schemacheck.py (python3-jsonschema), the checker tests/net/lib.sh
# runs on every network test's JSON.
TOOL_TESTS += tests/unit/test_schema.py
# tests/check-man.py (the pages against --help) on mismatches planted in copies.
TOOL_TESTS += tests/unit/test_check_man.py
# rant help --completion bash, run by bash on command lines as TAB does.
TOOL_TESTS += tests/unit/test_completion.sh

# Debian packages the build, the tests, the demo and the bench need.
DEB_PKGS := gcc libc6-dev make pkg-config libnl-3-dev libnl-route-3-dev \
	iproute2 ethtool jq perl shellcheck cppcheck sockperf tuna linuxptp \
	pciutils procps psmisc valgrind clang libclang-rt-14-dev python3 python3-matplotlib \
	python3-numpy python3-pyflakes
# tests/net/schemacheck.py: every network test's JSON against schema/rant.schema.json.
DEB_PKGS += python3-jsonschema
# --server-pid, --client-pid: a port's sockets from sock_diag through
# libnl-idiag (src/server/sockdiag.c).
DEB_PKGS += libnl-idiag-3-dev
# --key: HMAC-SHA-256 from OpenSSL's libcrypto.
DEB_PKGS += libssl-dev
# --http: responses framed by libhttp-parser (src/wire/httpresp.c);
# tests/net/test_probe.sh and the bench's probe row run Debian's nginx
# and wrk against it, and hping3's and tcpdump's figures beside it; the
# bench's probe row Debian's lighttpd too.
DEB_PKGS += libhttp-parser-dev nginx wrk hping3 lighttpd
# tests/net/test_probe.sh: capsh drops CAP_SYS_RESOURCE to test the
# open-file limit of --connections.
DEB_PKGS += libcap2-bin
# --metrics-listen: libmicrohttpd serves /metrics (src/print/promhttp.h). The
# metrics tests check the output with promtool (prometheus), scrape it with
# a real Prometheus and node_exporter, and parse it with prometheus_client.
DEB_PKGS += libmicrohttpd-dev prometheus prometheus-node-exporter python3-prometheus-client
# reflect --xdp: the BPF program (clang's BPF target, above), its skeleton
# and vmlinux.h (bpftool), its loader (libbpf-dev); tests/net/test_xdp.sh.
DEB_PKGS += bpftool libbpf-dev
# tests/net/test_hops.sh: rant trace beside traceroute -T and mtr --tcp,
# a ping flood (iputils-ping) holding a link's tbf queue full.
DEB_PKGS += traceroute mtr-tiny iputils-ping
# tests/net/test_icmp.sh: rant probe icmp beside ping -c and fping -C.
DEB_PKGS += fping

.PHONY: all deps stamp-suite check check-parallel test unit net sim plot-test plot-fixtures plot-real \
	lint lint-sh lint-c lint-misc lint-man lint-werror asan fuzz fuzz-check fuzz-corpus demo bench bench-fleet \
	bench-probe bench-server bench-targets bench-xdp bench-sessions install clean

all: rant

# The files that print the version (RANT_VERSION) are rebuilt when it
# changes: a commit changes nothing else of theirs, and an incremental
# build kept the version of the build before it.
VERSION_OBJS := $(notdir $(patsubst %.c,%.o,$(shell grep -l RANT_VERSION src/*/*.c)))
build/version.txt: FORCE
	@mkdir -p build
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@
$(addprefix build/,$(VERSION_OBJS)) $(addprefix build-asan/,$(VERSION_OBJS)): build/version.txt
.PHONY: FORCE
FORCE:

build/%.o: %.c $(SRC_HDRS) Makefile
	@mkdir -p build
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The XDP reflector: this kernel's types, the program, its skeleton.
build/vmlinux.h:
	@mkdir -p build
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

build/xdprefl.bpf.o: src/reflect/bpf/xdprefl.bpf.c src/reflect/bpf/xdpwire.h src/run/xdpmap.h build/vmlinux.h Makefile
	$(BPF_CLANG) -g -O2 -Wall -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Ibuild -Isrc/run \
		-c -o $@ $<

# tests/net/test_xdp.sh, bench/: XDP_PASS on the emitter's veth end;
# bench/xdp.sh: the replies counted and dropped there
build/xdppass.bpf.o: tests/net/xdppass.bpf.c build/vmlinux.h Makefile
	$(BPF_CLANG) -g -O2 -Wall -target bpf -Ibuild -c -o $@ $<
build/xdpcount.bpf.o: bench/xdpcount.bpf.c build/vmlinux.h Makefile
	$(BPF_CLANG) -g -O2 -Wall -target bpf -Ibuild -c -o $@ $<

build/xdprefl.skel.h: build/xdprefl.bpf.o
	$(BPFTOOL) gen skeleton $< name xdprefl_bpf > $@.tmp && mv $@.tmp $@

ifeq ($(HAVE_XDP),1)
build/xdprefl.o build-asan/xdprefl.o: build/xdprefl.skel.h
endif
build/xdprefl.o build/xdpxsk.o: ALL_CFLAGS += $(XDP_CFLAGS)
build-asan/xdprefl.o build-asan/xdpxsk.o: BASE_CFLAGS += $(XDP_CFLAGS)

build/rant.o: rant.c $(SRC_HDRS) Makefile
	@mkdir -p build
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

build/librant.a: $(OBJS)
	$(AR) rcs $@ $^

rant: build/rant.o build/librant.a
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

tests/unit/%.t: tests/unit/%.c tests/unit/tap.h tests/unit/simexec.h build/librant.a
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -Itests/unit -o $@ $< build/librant.a $(LIBS)

build-asan/%.o: %.c $(SRC_HDRS) Makefile
	@mkdir -p build-asan
	$(CC) $(ASAN_CFLAGS) $(BASE_CFLAGS) -c -o $@ $<

# The lint build (make lint): every object of rant (rant.c, src/) and of
# its unit tests again, with -Werror, into a directory of its own, so
# that any compiler warning fails lint. LINT_SRCS and LINT_DIR are
# tests/unit/test_lint_build.py's, which plants a warning.
LINT_DIR ?= build-lint
LINT_SRCS ?= rant.c $(SRCS) $(UNIT_SRCS)
LINT_OBJS = $(addprefix $(LINT_DIR)/,$(notdir $(LINT_SRCS:.c=.o)))
vpath %.c $(sort $(dir $(LINT_SRCS)))

lint-werror: $(LINT_OBJS)
	@echo "lint build: $(words $(LINT_OBJS)) objects, no compiler warning (-Werror)"

$(LINT_DIR)/%.o: %.c $(SRC_HDRS) Makefile
	@mkdir -p $(LINT_DIR)
	$(CC) $(ALL_CFLAGS) -Werror -Itests/unit -c -o $@ $<

build-asan/librant.a: $(ASAN_OBJS)
	$(AR) rcs $@ $^

tests/unit/%.asan.t: tests/unit/%.c tests/unit/tap.h tests/unit/simexec.h build-asan/librant.a
	$(CC) $(ASAN_CFLAGS) $(BASE_CFLAGS) $(ALL_LDFLAGS) -Itests/unit -o $@ $< build-asan/librant.a $(LIBS)

# floor -R's copy of the wire format, checked against src/wire/wire.c
tests/unit/test_floorwire.t tests/unit/test_floorwire.asan.t: bench/floorwire.h

# the capture reader's tests build their frames and pcap files by hand
PKTBUILD_TESTS := test_pktparse test_flowtab test_watch test_hopmatch
$(PKTBUILD_TESTS:%=tests/unit/%.t) $(PKTBUILD_TESTS:%=tests/unit/%.asan.t): tests/unit/pktbuild.h

tests/unit/stamp_vectors: tests/unit/stamp_vectors.c build/librant.a
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< build/librant.a $(LIBS)

$(SIM_LIB): tests/sim/simnic.c Makefile
	$(CC) $(SIM_CFLAGS) -fPIC -shared -o $@ $< -ldl

tests/sim/simnic-probe: tests/sim/simnic-probe.c Makefile
	$(CC) $(SIM_CFLAGS) -o $@ $<

sim: $(SIM_LIB) $(SIM_BINS)

# Installs only what is missing, and only as root on Debian; elsewhere it
# says what to install. The packages' services (prometheus, node_exporter:
# test peers only) are not started: a policy-rc.d refuses it for the
# install, unless the machine has its own.
deps:
	@missing=$$(for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q 'install ok installed' || echo $$p; done); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then \
		echo "missing packages: $$missing (run: sudo make deps)" >&2; exit 1; fi; \
	echo "installing: $$missing"; \
	echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections; \
	policy=; if [ ! -e /usr/sbin/policy-rc.d ]; then policy=/usr/sbin/policy-rc.d; \
		printf '#!/bin/sh\nexit 101\n' >$$policy && chmod 755 $$policy; fi; \
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing || \
	{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; }; \
	rc=$$?; [ -z "$$policy" ] || rm -f $$policy; exit $$rc
	@$(MAKE) --no-print-directory stamp-suite

# The STAMP interop peer: stamp-suite from crates.io, built once into a
# cache outside the tree, so clones share it; tests/net/test_stamp.sh runs
# it against rant's --stamp (the first build took 3 min 16 s on an idle
# 2-CPU VM, 6 min 30 s on a loaded one). Rust 1.86 or newer (rustup: Debian 12's cargo is
# too old). Without cargo it says so and the interop tests skip.
STAMP_SUITE_VERSION := 1.0.0
STAMP_SUITE_ROOT ?= /var/cache/rant/stamp-suite
STAMP_SUITE := $(STAMP_SUITE_ROOT)/bin/stamp-suite

stamp-suite:
	@if $(STAMP_SUITE) --version 2>/dev/null | grep -qx 'stamp-suite $(STAMP_SUITE_VERSION)'; then \
		exit 0; fi; \
	cargo=$$(command -v cargo || ls "$$HOME/.cargo/bin/cargo" 2>/dev/null); \
	if [ -z "$$cargo" ]; then \
		echo "stamp-suite: no cargo: install Rust 1.86 or newer (https://rustup.rs) and run make deps again; the STAMP interop tests skip until then" >&2; \
		exit 0; fi; \
	mkdir -p $(STAMP_SUITE_ROOT) || { echo "stamp-suite: cannot create $(STAMP_SUITE_ROOT): run as root, or set STAMP_SUITE_ROOT" >&2; exit 1; }; \
	echo "stamp-suite: building $(STAMP_SUITE_VERSION) into $(STAMP_SUITE_ROOT) (about 3 minutes, once)"; \
	"$$cargo" install stamp-suite --version $(STAMP_SUITE_VERSION) --locked --root $(STAMP_SUITE_ROOT) \
		>$(STAMP_SUITE_ROOT)/install.log 2>&1 || \
		{ tail -n 20 $(STAMP_SUITE_ROOT)/install.log; \
		  echo "stamp-suite: cargo install failed (log: $(STAMP_SUITE_ROOT)/install.log)" >&2; exit 1; }

unit: $(UNIT_BINS) $(SIM_LIB) $(TEST_HELPERS) rant
	prove -v $(UNIT_BINS) tests/config/test_steps.sh $(TOOL_TESTS)

# tests/repeat.sh clones the repository.
DEB_PKGS += git
# --pcap (src/capture/capture.c) links libpcap; tests/net/test_pcap.sh reads the file with tcpdump.
DEB_PKGS += libpcap-dev tcpdump
# tests/net/test_series.sh: the bulk TCP load of the bufferbloat experiment.
DEB_PKGS += iperf3

# test_hwsetup.sh decodes --ptp-mode's packets with tcpdump.
DEB_PKGS += tcpdump
# tests/unit/test_stamp_decoders.py: scapy's STAMP layer and tshark's
# TWAMP-Test dissector read rant's STAMP packets.
DEB_PKGS += python3-scapy tshark
# --read/--watch: tests/net/test_watch.sh captures Debian's nginx under wrk
# (editcap, of tshark's wireshark-common, writes pcapng; curl scrapes the
# live metrics); bench/readbench.sh times rant and tshark with GNU time.
DEB_PKGS += nginx wrk curl time

# tests/net/test_service.sh: rant-emit(8)'s logrotate configuration, run as written.
DEB_PKGS += logrotate
# make lint-man: groff -ww renders each page (tests/check-man.py); man -l reads them.
DEB_PKGS += groff-base man-db

# TESTS="name ..." runs only those network tests (names: ALL_TESTS in each file).
net: rant sim $(if $(filter 1,$(HAVE_XDP)),build/xdppass.bpf.o)
	TESTS="$(TESTS)" tests/net/run.sh

# tools/rant-plot: fixtures and a real run over veth (root; skipped without).
plot-test: plot-fixtures plot-real

plot-fixtures:
	/usr/bin/python3 tests/plot/test_plot.py TestFixtures TestErrors
	/usr/bin/python3 tests/plot/test_bloat.py

plot-real: rant
	/usr/bin/python3 tests/plot/test_plot.py TestRealRun

# shellcheck file by file (a file's sourced files followed: .shellcheckrc),
# so that make -j spreads them over the CPUs.
SH_FILES := $(wildcard config.sh lib/*.sh lib/steps/*.sh tools/*.sh tests/*.sh tests/net/*.sh \
	tests/config/*.sh tests/plot/*.sh doc/*.sh bench/*.sh) .ci/run
SH_LINT := $(SH_FILES:%=shellcheck/%)
.PHONY: $(SH_LINT)

lint: lint-sh lint-c lint-misc lint-man lint-werror

lint-sh: $(SH_LINT)
	@echo "shellcheck: $(words $(SH_FILES)) files, no warning"

$(SH_LINT): shellcheck/%:
	@shellcheck -S warning $*

lint-c:
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
		--inline-suppr $(SRC_INC) -D_GNU_SOURCE -i src/reflect/bpf rant.c src tests/sim

# The floor plan: tests/check-cycles.py (no include or call up a layer, no
# circle of includes or calls), tests/check-length.py (no function over 80
# lines, no file over 700, no folder of src/ over 6,000), both tested first
# on planted trees (tests/unit/test_floorplan.py); tests/check-unused.py (no function of
# src/ that no one calls; the tests' own in tests/unit/test-only.txt),
# tested on planted trees (tests/unit/test_check_unused.py); the -Werror
# build (lint-werror) tested on planted files (tests/unit/test_lint_build.py).
lint-misc:
	tests/check-columns.sh rant.c src/*/*.[ch] tests/unit/*.[ch] tests/sim/*.c tests/fuzz/*.c bench/*.c
	/usr/bin/python3 -m pyflakes tools/rant-plot tools/rantplot/*.py tests/plot/test_plot.py \
		tests/plot/test_bloat.py \
		tests/check-cycles.py \
		tests/check-length.py tests/csrc.py tests/unit/test_floorplan.py \
		tests/unit/tap.py tests/unit/test_stamp_decoders.py tests/unit/test_rant_trace.py \
		tests/unit/test_schema.py tests/net/schemacheck.py tests/check-man.py \
		tests/unit/test_check_man.py tests/check-unused.py tests/unit/test_check_unused.py \
		tests/unit/test_lint_build.py
	/usr/bin/python3 tests/unit/test_floorplan.py >/dev/null || /usr/bin/python3 tests/unit/test_floorplan.py
	/usr/bin/python3 tests/check-cycles.py src
	/usr/bin/python3 tests/check-length.py rant.c src/*/*.[ch]
	/usr/bin/python3 tests/unit/test_check_unused.py >/dev/null || /usr/bin/python3 tests/unit/test_check_unused.py
	/usr/bin/python3 tests/check-unused.py
	/usr/bin/python3 tests/unit/test_lint_build.py >/dev/null || /usr/bin/python3 tests/unit/test_lint_build.py
	promtool check rules doc/fleet.rules.yml
	promtool test rules tests/unit/fleet_rules_test.yml

# Each subcommand's page (rant-emit.8, ...) against rant SUB --help: the same
# options, groups, argument names, ranges and defaults, and the usage lines in
# its SYNOPSIS; rant.8 against rant --help; no page with a groff warning
# (tests/check-man.py).
lint-man: rant
	/usr/bin/python3 tests/check-man.py --rant ./rant --man-dir .

# The bash completion, written by rant from its option table.
build/rant.bash: rant
	@mkdir -p build
	./rant help --completion bash >$@.tmp && mv $@.tmp $@

# make check in two phases. First what measures no time, CHECK_JOBS at a
# time (make -j: the builds, plain, ASan and fuzz, lint, the fuzz runs of
# FUZZ_CHECK_SECONDS each and the plot tests on fixtures), on the CPUs
# CHECK_CPUS (default: all online, whatever CPU make was pinned to; empty:
# the CPUs make may use). Then, one at a time and alone on the machine, on
# make's own CPUs, the tests with waits and time bounds: unit, ASan unit,
# network, and the plot tests' real run over veth.
CHECK_JOBS ?= $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
CHECK_CPUS ?= $(shell cat /sys/devices/system/cpu/online 2>/dev/null)

# Each stage begins with a line "check HH:MM:SS: STAGE", so that a log
# says where the time went.
check: deps
	@cpus='$(CHECK_CPUS)'; on=; \
	if [ -n "$$cpus" ] && taskset -c "$$cpus" true 2>/dev/null; then on="taskset -c $$cpus"; fi; \
	echo "check $$(date +%T): builds, lint, fuzz and plot fixtures, $(CHECK_JOBS) at a time$${on:+ on CPUs $$cpus}"; \
	$$on $(MAKE) -j$(CHECK_JOBS) --output-sync=target FUZZ_SECONDS=$(FUZZ_CHECK_SECONDS) check-parallel
	@date +'check %T: unit'
	$(MAKE) unit
	@date +'check %T: asan'
	$(MAKE) asan
	@date +'check %T: net'
	$(MAKE) net
	@date +'check %T: plot-real'
	$(MAKE) plot-real
	@date +'check %T: done'

# The longest jobs first (make -j starts them in this order): the plot
# tests on fixtures are one process of about 45 s, cppcheck one of 10 s.
check-parallel: plot-fixtures lint-c lint all $(UNIT_BINS) $(TEST_HELPERS) $(ASAN_BINS) sim fuzz

test: check

asan: $(ASAN_BINS) $(SIM_LIB)
	prove $(ASAN_BINS)

# libFuzzer harnesses (tests/fuzz/), built with clang into a directory of
# their own so the sanitizer objects never mix with the normal build. Each
# runs on its seed corpus (tests/fuzz/corpus/NAME, read only) plus a
# working corpus in build-fuzz/; a crash (leak, timeout, ...) leaves its
# input in build-fuzz/NAME-crash-* (-leak-*, -timeout-*) and fails the
# target. `make check` runs each for FUZZ_CHECK_SECONDS. clang's runtime
# is libclang-rt-14-dev on Debian 12 (the version follows clang's).
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_CHECK_SECONDS ?= 5
FUZZ_DIR := build-fuzz
FUZZ_NAMES := wire cmsg opts stamp frame http pcap capture
FUZZ_BINS := $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz_%)
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer $(WARN) \
	-D_GNU_SOURCE -std=gnu11 -pthread -DRANT_VERSION='"$(VERSION)"' $(SRC_INC)
fuzz_srcs_wire := $(call src_of,msgfmt wire hostid ptp fmtstamp stamp stampsend stampts record \
	metric hist txfmt mem session out json auth) -lcrypto
fuzz_srcs_cmsg := $(call src_of,ts)
fuzz_srcs_frame := $(call src_of,frame)
fuzz_srcs_opts := $(call src_of,opts optcomp opthelp subcmd optprobe opttrace optmetric optfleet metric hist mem record opttab optnum sweep fit allow msgfmt wire hostid \
	ptp fmtstamp stamp stampsend stampts auth)
fuzz_srcs_stamp := $(call src_of,stamp stampsend stampts auth)
fuzz_libs_stamp := -lcrypto
# --http's responses (httpresp.h), framed by Debian's libhttp-parser
fuzz_srcs_http := $(call src_of,httpresp)
fuzz_libs_http := -lhttp_parser
fuzz_libs_opts := -lcrypto
# captured frames: the packet parser (every capture's, --syn's raw socket's) and
# --read/--watch's flow tracker behind it
fuzz_srcs_pcap := $(call src_of,pktparse flowtab flowstat moments watchagg watchrep tcpana tcppath tcptally \
	hist mem)
# --pcap's cross-check: frames parsed down to each format's header, and
# the table where they meet rant's stamps
fuzz_srcs_capture := $(call src_of,capmatch pktparse msgfmt wire hostid ptp fmtstamp stamp stampsend \
	stampts auth)
fuzz_libs_capture := -lcrypto

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(SRCS) $(SRC_HDRS) Makefile
	@mkdir -p $(FUZZ_DIR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(fuzz_srcs_$*) $(fuzz_libs_$*)

fuzz: $(FUZZ_NAMES:%=fuzz-run-%)

# Built through a pattern chain: keep them (make would delete them).
.SECONDARY: $(FUZZ_BINS)

# Rewrites the seed corpora (wire, option lines, control buffers captured
# over loopback, frames for the capture check); the files are kept in the
# tree.
fuzz-corpus: build/librant.a
	@mkdir -p $(FUZZ_DIR) tests/fuzz/corpus/wire tests/fuzz/corpus/cmsg tests/fuzz/corpus/opts \
		tests/fuzz/corpus/stamp tests/fuzz/corpus/capture
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $(FUZZ_DIR)/mkcorpus tests/fuzz/mkcorpus.c build/librant.a $(LIBS)
	$(FUZZ_DIR)/mkcorpus
	/usr/bin/python3 tests/fuzz/mkcapture.py
	/usr/bin/python3 tests/net/hostilecap.py --seeds tests/fuzz/corpus/pcap

fuzz-check:
	$(MAKE) fuzz FUZZ_SECONDS=$(FUZZ_CHECK_SECONDS)

# One harness: a crash fails with the log's tail and the input's name.
fuzz-run-%: $(FUZZ_DIR)/fuzz_%
	@mkdir -p $(FUZZ_DIR)/corpus-$*
	@echo "fuzz_$*: $(FUZZ_SECONDS) s"
	@$(FUZZ_DIR)/fuzz_$* -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
		-print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/$*- \
		$(if $(wildcard tests/fuzz/$*.dict),-dict=tests/fuzz/$*.dict) \
		$(FUZZ_DIR)/corpus-$* tests/fuzz/corpus/$* 2>$(FUZZ_DIR)/$*.log || \
		{ tail -n 40 $(FUZZ_DIR)/$*.log; \
		  echo "fuzz_$*: FAILED; replay: $(FUZZ_DIR)/fuzz_$* $$(ls -t $(FUZZ_DIR)/$*-*-* 2>/dev/null | head -n 1)" >&2; \
		  exit 1; }
	@grep -E '^stat::(number_of_executed_units|new_units_added)' $(FUZZ_DIR)/$*.log | \
		sed 's/^stat::/fuzz_$*: /'

demo: deps
	$(MAKE) all
	tools/demo.sh

# BENCH_N, BENCH_ROUNDS, BENCH_QUICK=1, RANT_B=PATH, BENCH_ROWS=RE: see bench/README.md;
# bench/readbench.sh: rant --read against tshark (READ_FLOWS, READ_CPU).
bench: deps
	$(MAKE) all sim
	bench/run.sh
	bench/fleet.sh
	bench/readbench.sh
	bench/targets.sh
	bench/probe.sh
	bench/server.sh

# The fleet's emitter alone (--targets): TARGETS_ROUNDS, TARGETS_SECONDS,
# BENCH_QUICK=1 (bench/README.md, "The fleet's emitter").
bench-targets: deps
	$(MAKE) all
	bench/targets.sh

# The probe beside wrk alone: PROBE_ROUNDS, PROBE_SECONDS, PROBE_CONNECTIONS,
# PROBE_SERVERS, BENCH_QUICK=1, RANT_ARGS (bench/README.md, "The probe").
bench-probe: deps
	$(MAKE) all
	bench/probe.sh

# --server-pid's cost to the server: SERVER_ROUNDS, SERVER_SECONDS,
# BENCH_QUICK=1 (bench/README.md, "The server's side").
bench-server: deps
	$(MAKE) all
	bench/server.sh

# The reflector for a fleet alone: FLEET_ROUNDS, FLEET_SECONDS, FLEET_ROWS=RE,
# BENCH_QUICK=1, RANT_B=PATH (bench/README.md, "The fleet").
bench-fleet: deps
	$(MAKE) all
	bench/fleet.sh

# reflect against reflect --xdp (bench/xdp.sh; bench/README.md)
bench-xdp: rant build/xdppass.bpf.o build/xdpcount.bpf.o
	bench/xdp.sh

# the reflector's response with 14 and 4,096 sessions (bench/sessions.sh;
# SESS_ROUNDS, SESS_RATE, SESS_N: bench/README.md, "The reflector's sessions")
bench-sessions: rant
	bench/sessions.sh

MAN_PAGES := rant.8 rant-emit.8 rant-reflect.8 rant-probe.8 rant-read.8 rant-watch.8 \
	rant-sockets.8 rant-trace.8

install: rant build/rant.bash
	install -D -m 0755 rant $(DESTDIR)$(PREFIX)/bin/rant
	install -D -m 0755 config.sh $(DESTDIR)$(PREFIX)/share/rant/config.sh
	install -D -m 0644 lib/config-lib.sh $(DESTDIR)$(PREFIX)/share/rant/lib/config-lib.sh
	install -d $(DESTDIR)$(PREFIX)/share/rant/lib/steps
	install -m 0644 lib/steps/*.sh $(DESTDIR)$(PREFIX)/share/rant/lib/steps/
	install -D -m 0755 tools/rant-trace $(DESTDIR)$(PREFIX)/bin/rant-trace
	install -D -m 0755 tools/rant-plot $(DESTDIR)$(PREFIX)/bin/rant-plot
	install -d $(DESTDIR)$(PREFIX)/lib/rant/rantplot
	install -m 0644 tools/rantplot/*.py $(DESTDIR)$(PREFIX)/lib/rant/rantplot/
	install -d $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 0644 $(MAN_PAGES) $(DESTDIR)$(PREFIX)/share/man/man8/
	install -D -m 0644 build/rant.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/rant
	for u in systemd/*.service; do \
		sed 's|@BINDIR@|$(PREFIX)/bin|g' $$u >$$u.out && \
		install -D -m 0644 $$u.out $(DESTDIR)$(PREFIX)/lib/systemd/system/$${u#systemd/}; \
		rc=$$?; rm -f $$u.out; [ $$rc = 0 ] || exit $$rc; \
	done

.PHONY: clean-objs
clean-objs:
	rm -rf build build-asan build-lint $(UNIT_BINS) $(ASAN_BINS) $(TEST_HELPERS)

clean: clean-objs
	rm -f rant bench/floor bench/logbench bench/histbench bench/authbench bench/fmtbench bench/capgen \
		$(SIM_LIB) $(SIM_BINS)
	rm -rf $(FUZZ_DIR)
