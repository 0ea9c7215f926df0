# lib/steps/pci.sh: config.sh's PCIe step: ASPM off on the device and its
# upstream port with setpci, read back (kernel lockdown refuses the write
# while setpci exits 0).
#
# Reads config.sh's globals: PCI_ADDR, MODE.
# shellcheck shell=bash
# shellcheck disable=SC2317  # reached from the STEPS table and the journal

# pci_aspm_set ADDR BITS: write the ASPM bits and read them back (under
# kernel lockdown setpci exits 0 and the write is dropped).
pci_aspm_set() {
	local got
	setpci -s "$1" "CAP_EXP+10.w=$(printf '%04x' "$2"):0003" || return 1
	got=$(pci_aspm_bits "$1") || return 1
	[ "$got" = "$2" ] || { echo "$1: ASPM reads back $got, not $2" >&2; return 1; }
}

# pci_upstream ADDR: the PCI address of ADDR's upstream port, if it has one.
pci_upstream() {
	local up
	up=$(readlink -f "/sys/bus/pci/devices/$1/..") || return 0
	up=${up##*/}
	[[ ! $up =~ ^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$ ]] || echo "$up"
}

pci_aspm_bits() {
	local v
	v=$(setpci -s "$1" CAP_EXP+10.w 2>/dev/null) || return 1
	[[ $v =~ ^[0-9a-fA-F]+$ ]] || return 1
	echo $((16#$v & 3))
}

pci_aspm() {
	if [ -z "$PCI_ADDR" ]; then
		unsupported "$(what) is not a PCI device"
		return
	fi
	local devs=("$PCI_ADDR") up d b lock=
	up=$(pci_upstream "$PCI_ADDR")
	[ -z "$up" ] || devs+=("$up")
	if ! pci_aspm_bits "$PCI_ADDR" >/dev/null; then
		unsupported "$PCI_ADDR has no PCIe capability (no ASPM to turn off)"
		return
	fi
	for d in "${devs[@]}"; do
		b=$(pci_aspm_bits "$d") || continue
		[ "$b" = 0 ] && continue
		change "$(qcmd pci_aspm_set "$d" "$b")" pci_aspm_set "$d" 0
		note "$d ASPM off (was $b)"
	done
	[ "$MODE" = apply ] || return 0
	lock=$(grep -o '\[[a-z]*\]' /sys/kernel/security/lockdown 2>/dev/null || true)
	for d in "${devs[@]}"; do
		b=$(pci_aspm_bits "$d") || continue
		[ "$b" = 0 ] || failed "$d: read back ASPM $b, setpci's write was not applied${lock:+ (kernel lockdown $lock refuses PCI config writes; boot with pcie_aspm=off)}"
	done
}
