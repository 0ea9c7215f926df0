# rant: Round-trip And Network Timing
#
#   make            build ./rant
#   sudo make demo  install what is missing, build, run a pair over veth
#   sudo make check install what is missing, build, run every test
#   make bench      the performance comparison (root, veth)
#   make lint       shellcheck and cppcheck
#   make asan       unit tests under ASan/UBSan

CC ?= cc
CFLAGS ?= -O2 -g
PREFIX ?= /usr/local
DESTDIR ?=

VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1)

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wno-format-nonliteral
HARDEN := -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIE
NL_CFLAGS := $(shell pkg-config --cflags libnl-route-3.0 2>/dev/null || echo -I/usr/include/libnl3)
NL_LIBS := $(shell pkg-config --libs libnl-route-3.0 2>/dev/null || echo -lnl-route-3 -lnl-3)

ALL_CFLAGS := $(CFLAGS) $(WARN) $(HARDEN) -D_GNU_SOURCE -std=gnu11 -pthread \
	-DRANT_VERSION='"$(VERSION)"' $(NL_CFLAGS) -Isrc
ALL_LDFLAGS := $(LDFLAGS) -pie -Wl,-z,relro,-z,now
LIBS := $(NL_LIBS) -lm -pthread

SRCS := $(wildcard src/*.c)
OBJS := $(SRCS:src/%.c=build/%.o)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:.c=.t)

# Debian packages the build, the tests, the demo and the bench need.
DEB_PKGS := gcc libc6-dev make pkg-config libnl-3-dev libnl-route-3-dev \
	iproute2 ethtool jq perl shellcheck cppcheck sockperf tuna linuxptp \
	pciutils procps psmisc valgrind

.PHONY: all deps check test unit net lint asan demo bench install clean

all: rant

build/%.o: src/%.c $(wildcard src/*.h) Makefile
	@mkdir -p build
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

build/rant.o: rant.c $(wildcard src/*.h) Makefile
	@mkdir -p build
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

build/librant.a: $(OBJS)
	$(AR) rcs $@ $^

rant: build/rant.o build/librant.a
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

tests/unit/%.t: tests/unit/%.c tests/unit/tap.h build/librant.a
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -Itests/unit -o $@ $< build/librant.a $(LIBS)

# Installs only what is missing, and only as root on Debian; elsewhere it
# says what to install.
deps:
	@missing=$$(for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q 'install ok installed' || echo $$p; done); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then \
		echo "missing packages: $$missing (run: sudo make deps)" >&2; exit 1; fi; \
	echo "installing: $$missing"; \
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing || \
	{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; }

unit: $(UNIT_BINS)
	prove -v $(UNIT_BINS)

# tests/repeat.sh clones the repository.
DEB_PKGS += git

# TESTS="name ..." runs only those network tests (names: ALL_TESTS in each file).
net: rant
	TESTS="$(TESTS)" tests/net/run.sh

lint:
	shellcheck -S warning config.sh tools/*.sh tests/*.sh tests/net/*.sh bench/*.sh .ci/run
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
		--inline-suppr -Isrc -D_GNU_SOURCE rant.c src

check: deps
	$(MAKE) all
	$(MAKE) lint
	$(MAKE) unit
	$(MAKE) asan
	$(MAKE) net

test: check

# Unit tests again under AddressSanitizer and UBSan, in a build of their own.
asan:
	$(MAKE) clean-objs
	$(MAKE) CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" $(UNIT_BINS)
	prove $(UNIT_BINS)
	$(MAKE) clean-objs

demo: deps
	$(MAKE) all
	tools/demo.sh

bench: deps
	$(MAKE) all
	bench/run.sh

install: rant
	install -D -m 0755 rant $(DESTDIR)$(PREFIX)/bin/rant
	install -D -m 0755 config.sh $(DESTDIR)$(PREFIX)/share/rant/config.sh
	install -D -m 0644 rant.8 $(DESTDIR)$(PREFIX)/share/man/man8/rant.8

.PHONY: clean-objs
clean-objs:
	rm -rf build $(UNIT_BINS)

clean: clean-objs
	rm -f rant bench/floor bench/logbench
